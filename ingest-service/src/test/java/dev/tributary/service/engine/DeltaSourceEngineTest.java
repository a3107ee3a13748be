package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.service.source.DeltaTableSource;
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
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine runs a Delta → Delta pipeline through the source SPI, knowing neither: bronze is
 * written with our DeltaTable writer, silver is bronze's rows with a derived column, exactly once
 * across runs, compactions of bronze and a refused DELETE. On local disk; the YAML wiring is not
 * part of this test.
 */
class DeltaSourceEngineTest {
  static final StructType BRONZE = DeltaSilverRun.BRONZE;

  @TempDir Path dir;
  ObjectStore bronzeStore;
  DeltaTable bronze;
  final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void createBronze() throws IOException {
    bronzeStore = ObjectStores.open(dir.resolve("bronze").toString(), null);
    bronze = DeltaTable.open(bronzeStore, TableOptions.defaults());
    bronze.create(BRONZE, List.of(), Map.of());
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    bronzeStore.close();
  }

  private void append(long batch, long from, long to) throws IOException {
    try (AppendTransaction tx = bronze.newAppend(new TransactionId("bronze-writer", batch))) {
      for (long id = from; id < to; id++) {
        tx.write(new Object[] {id, "name-" + id});
      }
      tx.commit(Map.of());
    }
  }

  private ObjectStore store(String name) throws IOException {
    ObjectStore s = ObjectStores.open(dir.resolve(name).toString(), null);
    open.add(s);
    return s;
  }

  /**
   * One run of the silver pipeline with a fresh engine, source and sinks, as a new process would.
   */
  private List<BatchProgress> runSilver() throws Exception {
    return DeltaSilverRun.run(dir);
  }

  private List<Long> silverIds() throws IOException {
    return ids(DeltaTable.open(store("silver"), TableOptions.defaults()));
  }

  private static List<Long> ids(DeltaTable table) throws IOException {
    Snapshot snapshot = table.snapshot();
    List<Long> ids = new ArrayList<>();
    for (DataFile f : snapshot.files()) {
      try (CloseableIterator<Object[]> it = DataFiles.read(table.store(), f, snapshot.schema())) {
        while (it.hasNext()) {
          Object[] row = it.next();
          assertThat(row[2]).isEqualTo((Long) row[0] * 2);
          ids.add((Long) row[0]);
        }
      }
    }
    ids.sort(null);
    return ids;
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  @Test
  void silverHoldsBronzesRowsOnceAcrossRunsAndACompactionOfBronzeAddsNothing() throws Exception {
    for (int b = 0; b < 5; b++) {
      append(b, b * 10L, b * 10L + 10);
    }
    runSilver();
    assertThat(silverIds()).isEqualTo(range(0, 50));

    assertThat(bronze.compact(new CompactionOptions(2, 128L * 1024 * 1024)).compacted()).isTrue();
    append(5, 50, 60);
    runSilver(); // restart: continues after the last recorded position, passes over the compaction
    assertThat(silverIds()).isEqualTo(range(0, 60));

    runSilver(); // nothing new
    assertThat(silverIds()).isEqualTo(range(0, 60));

    OffsetsEntry latest =
        Checkpoint.open(store("chk"), "silver", Map.of()).recover().latestOffsets().orElseThrow();
    assertThat(latest.ranges()).isEmpty();
    assertThat(latest.extras()).containsKeys(DeltaTableSource.FROM, DeltaTableSource.TO);
  }

  @Test
  void aDeleteInBronzeStopsThePipelineWithTheMessageAndNothingAfterItIsRead() throws Exception {
    append(0, 0, 10);
    runSilver();
    AddFile victim = bronze.snapshot().state().files().values().iterator().next();
    long version = bronze.snapshot().version() + 1;
    List<Action> delete =
        List.of(
            new CommitInfo(Map.of("timestamp", System.currentTimeMillis(), "operation", "DELETE")),
            victim.toRemove(System.currentTimeMillis(), true));
    assertThat(new DeltaLog(bronzeStore).tryCommit(version, delete)).isTrue();
    append(1, 10, 20);

    assertThatThrownBy(this::runSilver)
        .hasMessageContaining("Commit " + version + " (DELETE)")
        .hasMessageContaining("ignore-deletes: true");
    assertThat(silverIds()).isEqualTo(range(0, 10));
  }

  @Test
  void aBatchReplayedAfterARestartReportsTheSourceLagMeasuredAfterItsRange() throws Exception {
    for (int b = 0; b < 5; b++) {
      append(b, b * 10L, b * 10L + 10);
    }
    // A first attempt planned batch 0 (two of the snapshot's five files), wrote it ahead and died.
    try (DeltaTableSource source =
        new DeltaTableSource(
            "silver",
            bronze,
            new StartingPoint.Earliest(),
            SourceLimits.of(2L, null),
            ChangeOptions.strict())) {
      PlannedBatch plan = source.plan(BatchRange.startingAt(Map.of()), true);
      assertThat(plan.sourceLag()).containsEntry("filesBehind", 3L);
      Checkpoint.open(store("chk"), "silver", Map.of())
          .writeOffsets(
              new OffsetsEntry(
                  0, Map.of(), OptionalLong.empty(), Instant.now(), plan.range().facts()));
    }
    append(5, 50, 60);
    append(6, 60, 70);
    long bytesAfterTheRange = 0;
    Snapshot now = bronze.snapshot();
    for (DataFile f : now.files()) {
      bytesAfterTheRange += f.size();
    }

    List<BatchProgress> batches = runSilver();

    BatchProgress replayed = batches.get(0);
    assertThat(replayed.replayed()).isTrue();
    assertThat(replayed.inputRows()).isEqualTo(20);
    // Measured at the replay: the snapshot's three unread files and the two commits made since.
    assertThat(replayed.sourceLag())
        .containsEntry("versionsBehind", 3L)
        .containsEntry("filesBehind", 5L);
    assertThat(replayed.sourceLag().get("bytesBehind")).isPositive().isLessThan(bytesAfterTheRange);
    assertThat(replayed.partitions())
        .singleElement()
        .satisfies(p -> assertThat(p.latestOffset()).isEqualTo(7));
    assertThat(batches.get(batches.size() - 1).sourceLag()).containsEntry("filesBehind", 0L);
    assertThat(silverIds()).isEqualTo(range(0, 70));
  }
}
