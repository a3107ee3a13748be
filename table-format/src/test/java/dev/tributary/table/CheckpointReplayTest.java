package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.TableState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CheckpointReplayTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);

  @Test
  void checkpointsEveryIntervalAndLoadsFromThem() throws Exception {
    DeltaTable table =
        DeltaTable.open(store, TestTables.fastOptions(clock).withLogCheckpointInterval(10));
    table.create(SCHEMA, List.of("region"), Map.of());
    for (int b = 0; b < 25; b++) {
      TestTables.append(table, "p", b, b * 4L, b * 4L + 4);
    }

    assertThat(store.stat(LogFiles.checkpoint(10))).isPresent();
    assertThat(store.stat(LogFiles.checkpoint(20))).isPresent();
    assertThat(new String(store.read(LogFiles.LAST_CHECKPOINT), StandardCharsets.UTF_8))
        .startsWith("{\"version\":20,\"size\":");
    assertThat(table.counters().checkpoints()).isEqualTo(2);
    // Without the JSON commits before the checkpoint, only the checkpoint can supply them.
    for (long v = 0; v <= 20; v++) {
      store.delete(LogFiles.commit(v));
    }
    Snapshot fromCheckpoint = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    assertThat(fromCheckpoint.version()).isEqualTo(25);
    assertThat(fromCheckpoint.latestTransactionVersion("p")).hasValue(24);
    assertThat(TestTables.ids(TestTables.rows(store, fromCheckpoint))).hasSize(100);
  }

  @Test
  void snapshotFromCheckpointEqualsFullReplayForRandomHistories() throws Exception {
    for (long seed = 1; seed <= 2; seed++) {
      InMemoryObjectStore s = new InMemoryObjectStore(clock);
      Random random = new Random(seed);
      DeltaTable table =
          DeltaTable.open(
              s,
              TestTables.fastOptions(clock)
                  .withLogCheckpointInterval(1 + random.nextInt(5))
                  .withDataWriteOptions(new DataWriteOptions(1024, DataWriteOptions.Codec.SNAPPY)));
      table.create(SCHEMA, List.of("region"), Map.of());
      long nextId = 0;
      for (int step = 0; step < 12; step++) {
        clock.advance(Duration.ofMinutes(1));
        int kind = random.nextInt(10);
        if (kind < 7) {
          int n = random.nextInt(5);
          TestTables.append(table, "app-" + random.nextInt(3), step, nextId, nextId + n);
          nextId += n;
        } else if (kind < 9) {
          table.compact(new CompactionOptions(2, 64 * 1024));
        } else {
          try (OverwriteTransaction tx = table.newOverwrite(new TransactionId("ow", step))) {
            tx.write(TestTables.row(nextId++, "US"));
            tx.commit(Map.of());
          }
        }
      }
      TableState viaCheckpoint = new DeltaLog(s).load().orElseThrow();
      TableState viaReplay = new DeltaLog(withoutCheckpoints(s)).load().orElseThrow();

      assertThat(viaCheckpoint.version()).isEqualTo(viaReplay.version());
      assertThat(viaCheckpoint.protocol()).isEqualTo(viaReplay.protocol());
      assertThat(viaCheckpoint.metadata()).isEqualTo(viaReplay.metadata());
      assertThat(viaCheckpoint.transactions()).isEqualTo(viaReplay.transactions());
      assertThat(viaCheckpoint.tombstones().keySet()).isEqualTo(viaReplay.tombstones().keySet());
      // Checkpoints store adds with dataChange=false; everything else is identical.
      assertThat(viaCheckpoint.files().keySet()).isEqualTo(viaReplay.files().keySet());
      viaReplay
          .files()
          .forEach(
              (path, add) ->
                  assertThat(viaCheckpoint.files().get(path).withDataChange(false))
                      .isEqualTo(add.withDataChange(false)));
    }
  }

  private static InMemoryObjectStore withoutCheckpoints(InMemoryObjectStore source)
      throws Exception {
    InMemoryObjectStore copy = new InMemoryObjectStore();
    for (ObjectInfo o : source.list(LogFiles.LOG_DIR)) {
      if (o.key().endsWith(".json")) {
        copy.put(o.key(), source.read(o.key()));
      }
    }
    return copy;
  }
}
