package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.ChildJvm;
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
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Table maintenance on bronze between silver runs (issue #12, item 5): new commits, a compaction
 * ({@code dataChange: false}) and a vacuum with zero retention (no retention check) interleaved
 * with repeated available-now runs of a silver pipeline from YAML. Silver must hold every bronze
 * row exactly once; a vacuum that deleted files of commits silver has not read yet must fail the
 * run loudly rather than skip those rows.
 */
class DeltaSourceMaintenanceIT {
  static final StructType BRONZE =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("name", PrimitiveType.STRING));

  /** Every small file of a test table is "small": compaction rewrites them all into one. */
  static final CompactionOptions COMPACT_ALL = new CompactionOptions(2, 64L * 1024 * 1024);

  @TempDir Path dir;
  ObjectStore bronzeStore;
  DeltaTable bronze;
  private ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void createBronze() throws IOException {
    bronzeStore = ObjectStores.open(dir.resolve("bronze").toString(), null);
    bronze = DeltaTable.open(bronzeStore, TableOptions.defaults());
    bronze.create(BRONZE, List.of(), Map.of());
  }

  @AfterEach
  void close() throws IOException {
    bronzeStore.close();
  }

  private int runSilver() throws IOException {
    Path file = dir.resolve("silver.yaml");
    Files.writeString(
        file,
        """
        pipeline: silver
        source:
          delta:
            path: %1$s/bronze
            max-files-per-trigger: 1
        transform:
          - filter: "id >= 0"
          - derive: { id_times_two: "id * 2" }
        sink:
          delta: { path: %1$s/silver }
        checkpoint: %1$s/chk/silver
        """
            .formatted(dir));
    err = new ByteArrayOutputStream();
    return Main.run(
        new String[] {"run", "--pipeline", file.toString(), "--available-now"},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private void append(long batch, long from, long to) throws IOException {
    try (AppendTransaction tx = bronze.newAppend(new TransactionId("bronze-writer", batch))) {
      for (long id = from; id < to; id++) {
        tx.write(new Object[] {id, "name-" + id});
      }
      tx.commit(Map.of());
    }
  }

  private List<Long> silverIds() throws IOException {
    List<Long> ids = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("silver").toString(), null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      for (DataFile f : snapshot.files()) {
        try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
          it.forEachRemaining(
              row -> {
                assertThat(row[1]).isEqualTo("name-" + row[0]);
                assertThat(row[2]).isEqualTo((Long) row[0] * 2);
                ids.add((Long) row[0]);
              });
        }
      }
    }
    ids.sort(null);
    return ids;
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  @Test
  void compactionAndVacuumOfReadCommitsLeaveSilverExactlyOnce() throws Exception {
    append(0, 0, 10);
    append(1, 10, 20);
    assertThat(runSilver()).as(err()).isZero();
    assertThat(silverIds()).isEqualTo(range(0, 20));

    append(2, 20, 30);
    assertThat(bronze.compact(COMPACT_ALL).filesRemoved()).isEqualTo(3);
    append(3, 30, 40);
    assertThat(runSilver()).as(err()).isZero();
    assertThat(silverIds()).as("the compaction's rewrite is not new data").isEqualTo(range(0, 40));

    assertThat(bronze.vacuum(Duration.ZERO).files()).hasSize(3);
    assertThat(runSilver()).as(err()).isZero();
    assertThat(silverIds()).isEqualTo(range(0, 40));

    append(4, 40, 50);
    bronze.compact(COMPACT_ALL);
    append(5, 50, 60);
    assertThat(runSilver()).as(err()).isZero();
    assertThat(silverIds()).isEqualTo(range(0, 60));
  }

  @Test
  void aVacuumThatDeletedUnreadFilesFailsTheRunAndLosesNothing() throws Exception {
    append(0, 0, 10);
    assertThat(runSilver()).as(err()).isZero();
    append(1, 10, 20);
    append(2, 20, 30);
    bronze.compact(COMPACT_ALL);
    // a vacuum in the compaction's own millisecond would keep the files it just removed (their
    // removal is not older than the zero retention): let the clock move first
    Thread.sleep(20);
    assertThat(bronze.vacuum(Duration.ZERO).files())
        .as("the files of commits 1 to 3, two of which silver has not read")
        .hasSize(3);

    assertThat(runSilver()).as("silver must not skip rows it can no longer read").isNotZero();
    assertThat(err())
        .contains("Pipeline silver")
        .contains("[v2#0, v3#0)")
        .contains("of the Delta source " + dir + "/bronze (added by commit 2) is gone")
        .contains("a VACUUM with a retention shorter")
        .contains("start with a new checkpoint");
    assertThat(silverIds())
        .as("nothing from the vacuumed commits, nothing twice")
        .isEqualTo(range(0, 10));
  }

  /**
   * A batch planned (its range in the offsets log) but never read, because the process died, then a
   * compaction and vacuum remove the files of that range: the restart replays the recorded range
   * and must fail loudly, never commit the batch without those rows.
   */
  @Test
  void aVacuumThatDeletedAPlannedButUnreadRangeFailsTheReplay() throws Exception {
    append(0, 0, 10);
    append(1, 10, 20);
    runSilver(); // writes silver.yaml; silver holds 0..20
    append(2, 20, 30);
    Path log = dir.resolve("halted.log");
    Process child =
        ChildJvm.start(
            List.of(
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dtributary.test.crash-at=after-offsets-log:1"),
            Main.class.getName(),
            List.of("run", "--pipeline", dir.resolve("silver.yaml").toString(), "--available-now"),
            log,
            dir);
    boolean exited = child.waitFor(120, TimeUnit.SECONDS);
    if (!exited) {
      child.destroyForcibly().waitFor();
    }
    assertThat(exited).as("halted run finished; log:%n%s", Files.readString(log)).isTrue();
    assertThat(child.exitValue())
        .as("halted after planning; log:%n%s", Files.readString(log))
        .isEqualTo(137);
    assertThat(Files.readString(log)).contains("crash point after-offsets-log:1 reached");

    append(3, 30, 40);
    bronze.compact(COMPACT_ALL);
    Thread.sleep(20); // past the compaction's millisecond: see the test above
    assertThat(bronze.vacuum(Duration.ZERO).files())
        .as("among them the file of commit 3, planned by the halted run")
        .isNotEmpty();

    assertThat(runSilver()).as("the replay cannot read its range").isNotZero();
    assertThat(err())
        .contains("of the Delta source " + dir + "/bronze (added by commit 3) is gone");
    assertThat(silverIds())
        .as("the planned batch was not committed without its rows")
        .isEqualTo(range(0, 20));
  }
}
