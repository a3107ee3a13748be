package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The zombie fence of consumer-group mode at the table level: two writers share a table by source
 * partition, each commit moves the partition's position ({@code txn}) from where its range starts
 * to where it ends, and a writer whose partition moved on (a stale owner) can never commit.
 */
class FencedAppendTest {
  static final String P0 = "orders:topic:0";
  static final String P1 = "orders:topic:1";

  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  DeltaTable a;
  DeltaTable b;

  @BeforeEach
  void twoWritersOnOneTable() throws Exception {
    DeltaTable.open(store, TestTables.fastOptions(clock)).create(SCHEMA, List.of(), Map.of());
    a = DeltaTable.open(store, TestTables.fastOptions(clock));
    b = DeltaTable.open(store, TestTables.fastOptions(clock));
  }

  @Test
  void theStaleOwnerOfAPartitionFailsAndOnlyTheNewOwnersRangeIsCommitted() throws Exception {
    commit(a, 100, fence(P0, OptionalLong.empty(), 10));
    // both read position 10 and write the next range of partition 0: a is the stale owner (paused),
    // b took the partition over and commits first
    AppendTransaction stale = a.newFencedAppend(List.of(fence(P0, OptionalLong.of(10), 20)));
    stale.write(TestTables.row(1, "EU"));
    commit(b, 200, fence(P0, OptionalLong.of(10), 25));

    assertThatThrownBy(() -> stale.commit(Map.of()))
        .isInstanceOf(PositionConflictException.class)
        .hasMessageContaining("fenced off")
        .hasMessageContaining("moved position " + P0 + " to 25")
        .hasMessageContaining("continued from 10")
        .satisfies(e -> assertThat(((PositionConflictException) e).appId()).isEqualTo(P0));
    Snapshot snapshot = b.snapshot();
    assertThat(snapshot.latestTransactionVersion(P0)).hasValue(25);
    assertThat(TestTables.ids(TestTables.rows(store, snapshot))).containsExactly(100L, 200L);
    assertThat(a.counters().conflicts()).isEqualTo(1);
  }

  @Test
  void aWriterThatPlannedFromAnOldSnapshotIsFencedBeforeItsFirstAttempt() throws Exception {
    commit(b, 100, fence(P0, OptionalLong.empty(), 10));
    // a planned "no position yet" before b's commit, and starts its transaction after it
    AppendTransaction late = a.newFencedAppend(List.of(fence(P0, OptionalLong.empty(), 7)));
    late.write(TestTables.row(1, "EU"));

    assertThatThrownBy(() -> late.commit(Map.of()))
        .isInstanceOf(PositionConflictException.class)
        .hasMessageContaining("position " + P0 + " is at 10")
        .hasMessageContaining("continues from (none)");
    assertThat(TestTables.ids(TestTables.rows(store, b.snapshot()))).containsExactly(100L);
  }

  @Test
  void commitsOfOtherPartitionsAreRetriedOverAndBothLand() throws Exception {
    commit(a, 100, fence(P0, OptionalLong.empty(), 10), fence(P1, OptionalLong.empty(), 5));
    AppendTransaction first = a.newFencedAppend(List.of(fence(P0, OptionalLong.of(10), 20)));
    first.write(TestTables.row(1, "EU"));
    commit(b, 200, fence(P1, OptionalLong.of(5), 9)); // b owns partition 1: no conflict

    CommitResult result = first.commit(Map.of());

    assertThat(result.committed()).isTrue();
    assertThat(result.attempts())
        .isEqualTo(2); // lost the race for the version, retried over b's commit
    Snapshot snapshot = a.snapshot();
    assertThat(snapshot.latestTransactionVersion(P0)).hasValue(20);
    assertThat(snapshot.latestTransactionVersion(P1)).hasValue(9);
    assertThat(TestTables.ids(TestTables.rows(store, snapshot))).containsExactly(1L, 100L, 200L);
  }

  @Test
  void aFenceCannotMoveBackwardsAndAFencedAppendNeedsDistinctPositions() {
    assertThatThrownBy(() -> fence(P0, OptionalLong.of(10), 9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot move from");
    assertThatThrownBy(() -> a.newFencedAppend(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one position");
    assertThatThrownBy(
            () ->
                a.newFencedAppend(
                    List.of(
                        fence(P0, OptionalLong.empty(), 1), fence(P0, OptionalLong.empty(), 2))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("share an app id");
  }

  private static PositionFence fence(String appId, OptionalLong expected, long next) {
    return new PositionFence(appId, expected, next);
  }

  private static void commit(DeltaTable table, long id, PositionFence... fences) throws Exception {
    try (AppendTransaction tx = table.newFencedAppend(List.of(fences))) {
      tx.write(TestTables.row(id, "EU"));
      assertThat(tx.commit(Map.of()).committed()).isTrue();
    }
  }
}
