package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static dev.tributary.table.TestTables.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.MergeTransaction.Kind;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** {@code history: scd2} merges on a real table: versions across files, one commit, replays. */
class HistoryMergeTransactionTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));
  final MergeSpec spec = new MergeSpec(List.of("id"), java.util.Optional.of("ts"));

  static HistoryMergeTransaction.Change upsert(long id, String name, long second) {
    return new HistoryMergeTransaction.Change(
        Kind.UPSERT,
        new Object[] {id, name, Instant.ofEpochSecond(second), null, null, null, null},
        second * 1_000_000L);
  }

  static HistoryMergeTransaction.Change delete(long id, long second) {
    return new HistoryMergeTransaction.Change(
        Kind.DELETE, new Object[] {id, null, null, null, null, null, null}, second * 1_000_000L);
  }

  CommitResult merge(long batch, HistoryMergeTransaction.Change... changes) throws Exception {
    try (HistoryMergeTransaction tx =
        table.newHistoryMerge(new TransactionId("pipe", batch), spec)) {
      for (HistoryMergeTransaction.Change c : changes) {
        tx.apply(c);
      }
      return tx.commit(Map.of());
    }
  }

  /** Every row as "id name [from, to) current?", sorted. */
  TreeSet<String> history() throws Exception {
    TreeSet<String> out = new TreeSet<>();
    for (Object[] r : rows(store, table.snapshot())) {
      out.add(
          r[0]
              + " "
              + r[1]
              + " ["
              + ((Instant) r[4]).getEpochSecond()
              + ", "
              + (r[5] == null ? "-" : ((Instant) r[5]).getEpochSecond())
              + ")"
              + (Boolean.TRUE.equals(r[6]) ? " current" : ""));
    }
    return out;
  }

  @Test
  void versionsOfAKeyInSeveralFilesAreClosedSplitAndOpenedInOneCommit() throws Exception {
    table.create(HistoryMergeTransaction.withHistoryColumns(SCHEMA), List.of(), Map.of());
    merge(0, upsert(1, "a", 10), upsert(2, "x", 10));
    merge(1, upsert(1, "early", 1), upsert(3, "y", 10)); // a new file: "a" does not change
    assertThat(table.snapshot().fileCount()).isEqualTo(2);
    long before = table.snapshot().version();
    CommitResult r =
        merge(2, upsert(1, "c", 30), upsert(1, "mid", 5), delete(2, 12), upsert(4, "new", 5));
    assertThat(r.tableVersion()).isEqualTo(before + 1);
    assertThat(history())
        .containsExactly(
            "1 a [10, 30)",
            "1 c [30, -) current",
            "1 early [1, 5)",
            "1 mid [5, 10)",
            "2 x [10, 12)",
            "3 y [10, -) current",
            "4 new [5, -) current");
    assertThat(r.filesRemoved()).as("both files held a version that changed").isEqualTo(2);
  }

  @Test
  void aFileHoldingOnlyVersionsThatStayIsNotRewritten() throws Exception {
    table.create(HistoryMergeTransaction.withHistoryColumns(SCHEMA), List.of(), Map.of());
    merge(0, upsert(1, "a", 10), upsert(1, "b", 20)); // a closed, b current: one file
    merge(1, upsert(1, "c", 30)); // b closed and rewritten with a; c in a new file
    CommitResult r = merge(2, upsert(1, "d", 40)); // only c's file changes
    assertThat(r.filesRemoved()).isEqualTo(1);
    assertThat(history())
        .containsExactly("1 a [10, 20)", "1 b [20, 30)", "1 c [30, 40)", "1 d [40, -) current");
  }

  @Test
  void aReplayedBatchIsSkippedAndReEmittedChangesAddNoVersions() throws Exception {
    table.create(HistoryMergeTransaction.withHistoryColumns(SCHEMA), List.of(), Map.of());
    merge(0, upsert(1, "a", 10), upsert(1, "b", 20));
    assertThat(merge(0, upsert(1, "a", 10), upsert(1, "other", 25)).committed()).isFalse();
    CommitResult again = merge(1, upsert(1, "a", 10), upsert(1, "b", 20));
    assertThat(again.filesRemoved()).isZero();
    assertThat(history()).containsExactly("1 a [10, 20)", "1 b [20, -) current");
  }

  @Test
  void aTableWithoutTheHistoryColumnsIsRefusedByName() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    assertThatThrownBy(() -> table.newHistoryMerge(new TransactionId("pipe", 0), spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("history column '_valid_from' is not a timestamp column of table")
        .hasMessageContaining("write the history to a new table");
  }
}
