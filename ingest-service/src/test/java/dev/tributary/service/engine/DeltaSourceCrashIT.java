package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.cli.Main;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once for a Delta source under kill -9: the silver pipeline of {@link DeltaSilverRun}
 * (bronze {@code (id, name)} plus {@code id_times_two}, two files per batch), declared in YAML and
 * run by the command line ({@code run --pipeline silver.yaml --available-now}), runs in a child JVM
 * halted at each of the engine's crash points in turn (the same as kill -9: no shutdown hooks, no
 * flushing), with fresh bronze commits before every run and a compaction of bronze in between; a
 * final run drains. Silver must then equal the batch computation over bronze: every bronze row
 * once, with its derived column. Each halt is reachable by construction: the run before it finds at
 * least one new bronze file to read, so it plans a new batch that passes every per-batch point, and
 * the test asserts the child halted there.
 */
class DeltaSourceCrashIT {
  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_STATE_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG,
  };
  private static final int ROWS_PER_FILE = 10;

  @TempDir Path dir;
  private long nextId;
  private long nextBatch;

  private void appendFiles(DeltaTable bronze, int files) throws Exception {
    for (int f = 0; f < files; f++) {
      try (AppendTransaction tx =
          bronze.newAppend(new TransactionId("bronze-writer", nextBatch++))) {
        for (int r = 0; r < ROWS_PER_FILE; r++, nextId++) {
          tx.write(new Object[] {nextId, "name-" + nextId});
        }
        tx.commit(Map.of());
      }
    }
  }

  /**
   * Writes the silver pipeline file (once) and returns the command line that runs it available-now.
   */
  private List<String> silverRun() throws Exception {
    Path file = dir.resolve("silver.yaml");
    if (!Files.exists(file)) {
      Files.writeString(
          file,
          """
          pipeline: silver
          source:
            delta:
              path: %1$s/bronze
              max-files-per-trigger: 2
          transform:
            - derive: { id_times_two: "id * 2" }
          sink:
            delta: { path: %1$s/silver }
          quarantine:
            delta: { path: %1$s/quarantine }
          checkpoint: %1$s/chk
          """
              .formatted(dir));
    }
    return List.of("run", "--pipeline", file.toString(), "--available-now");
  }

  @Test
  void silverEqualsTheBatchComputationOverBronzeAfterAHaltAtEveryCrashPoint() throws Exception {
    Random random = new Random(20261201L);
    try (ObjectStore bronzeStore = ObjectStores.open(dir.resolve("bronze").toString(), null)) {
      DeltaTable bronze = DeltaTable.open(bronzeStore, TableOptions.defaults());
      bronze.create(DeltaSilverRun.BRONZE, List.of(), Map.of());
      appendFiles(bronze, 3);
      for (int i = 0; i < POINTS.length; i++) {
        String point = POINTS[i];
        int occurrence =
            point.equals(CrashPoints.MID_BATCH) ? 1 + random.nextInt(ROWS_PER_FILE) : 1;
        appendFiles(
            bronze, 1 + random.nextInt(3)); // at least one new file: a new batch reaches the point
        if (i == POINTS.length / 2) {
          assertThat(bronze.compact(new CompactionOptions(2, 128L * 1024 * 1024)).compacted())
              .isTrue();
          appendFiles(bronze, 1);
        }
        String crashAt = point + ":" + occurrence;
        Path log = dir.resolve("run-" + i + ".log");
        Process child =
            ChildJvm.start(
                List.of(
                    "-Xmx256m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-Dtributary.test.crash-at=" + crashAt),
                Main.class.getName(),
                silverRun(),
                log,
                dir);
        CrashRuns.assertHaltedAt(child, crashAt, log);
      }
      Path log = dir.resolve("drain.log");
      Process drain =
          ChildJvm.start(List.of("-Xmx256m"), Main.class.getName(), silverRun(), log, dir);
      CrashRuns.assertFinished(drain, log);

      List<Long> expected = new ArrayList<>();
      for (Object[] row : rows(bronze)) {
        expected.add((Long) row[0]);
      }
      expected.sort(null);
      assertThat(expected).hasSize((int) nextId).doesNotHaveDuplicates();
      try (ObjectStore silverStore = ObjectStores.open(dir.resolve("silver").toString(), null);
          ObjectStore quarantineStore =
              ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
        List<Long> silver = new ArrayList<>();
        for (Object[] row : rows(DeltaTable.open(silverStore, TableOptions.defaults()))) {
          assertThat(row[2]).isEqualTo((Long) row[0] * 2);
          silver.add((Long) row[0]);
        }
        silver.sort(null);
        assertThat(silver).as("every bronze row once in silver").isEqualTo(expected);
        assertThat(rows(DeltaTable.open(quarantineStore, TableOptions.defaults()))).isEmpty();
      }
    }
  }

  private static List<Object[]> rows(DeltaTable table) throws Exception {
    Snapshot snapshot = table.snapshot();
    List<Object[]> rows = new ArrayList<>();
    for (DataFile f : snapshot.files()) {
      try (CloseableIterator<Object[]> it = DataFiles.read(table.store(), f, snapshot.schema())) {
        it.forEachRemaining(rows::add);
      }
    }
    return rows;
  }
}
