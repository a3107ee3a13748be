package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.log.LogFiles;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link DeltaTable#snapshotAt}: an earlier version exactly, from commits or from a checkpoint. */
class SnapshotAtTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);

  @Test
  void rebuildsEachEarlierVersionExactly() throws Exception {
    DeltaTable table =
        DeltaTable.open(store, TestTables.fastOptions(clock).withLogCheckpointInterval(3));
    table.create(SCHEMA, List.of(), Map.of());
    for (int b = 0; b < 7; b++) {
      TestTables.append(table, "p", b, b * 2L, b * 2L + 2);
    }
    assertThat(table.snapshot().version()).isEqualTo(7);

    for (long v = 0; v <= 7; v++) {
      Snapshot at = DeltaTable.open(store, TableOptions.defaults()).snapshotAt(v);
      assertThat(at.version()).isEqualTo(v);
      assertThat(TestTables.ids(TestTables.rows(store, at))).hasSize((int) v * 2);
    }
    assertThat(table.snapshotAt(7).version()).isEqualTo(7);
  }

  @Test
  void usesACheckpointWhenEarlyCommitsAreGoneAndRefusesWhatCannotBeRebuilt() throws Exception {
    DeltaTable table =
        DeltaTable.open(store, TestTables.fastOptions(clock).withLogCheckpointInterval(3));
    table.create(SCHEMA, List.of(), Map.of());
    for (int b = 0; b < 5; b++) {
      TestTables.append(table, "p", b, b * 2L, b * 2L + 2);
    }
    for (long v = 0; v <= 3; v++) {
      store.delete(LogFiles.commit(v));
    }

    assertThat(TestTables.ids(TestTables.rows(store, table.snapshotAt(4)))).hasSize(8);
    assertThatThrownBy(() -> table.snapshotAt(2))
        .isInstanceOf(TableException.class)
        .hasMessageStartingWith(
            "Cannot read version 2 of Delta table at "
                + store.location()
                + ": no commit or checkpoint at or below it is left.")
        .hasMessageContaining("raise the retention");
    assertThatThrownBy(() -> table.snapshotAt(9))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(
            "Cannot read version 9 of Delta table at "
                + store.location()
                + ": the latest version is 5.");
  }
}
