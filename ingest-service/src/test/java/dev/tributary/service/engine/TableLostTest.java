package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.RemoveFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table that lost the batches its pipeline's checkpoint committed is never written over (issue
 * 20): deleted (and re-created empty), emptied by an overwrite, restored to an older version by
 * Delta's RESTORE or by putting an older copy back, replaced by another table — at start and before
 * a batch of a running pipeline. Edits of some rows and compaction are not a loss.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TableLostTest {
  @TempDir Path dir;

  private final InMemorySource.Log topic = new InMemorySource.Log("events", 2);

  @Test
  void aDeletedSinkTableIsNotWrittenAgainEmpty() throws Exception {
    MemoryPipeline pipeline = twoBatches();
    deleteAll(pipeline.sinkStore);
    moreRecords();
    // the sink's constructor re-creates the table empty (PipelineRun refuses before that: see
    // TableLostIT); the guard then finds another table
    assertLost(pipeline, "sink table", "it is another table now");
    assertThat(pipeline.sinkRows()).isEmpty();
  }

  @Test
  void anEmptiedTableIsNotWrittenOver() throws Exception {
    MemoryPipeline pipeline = twoBatches();
    commitLike(pipeline.sinkStore, "WRITE", Map.of("mode", "Overwrite"), true);
    moreRecords();
    assertLost(pipeline, "sink table", "its data was taken out by version");
  }

  @Test
  void aTableRestoredByDeltaRestoreIsNotWrittenOver() throws Exception {
    MemoryPipeline pipeline = twoBatches();
    commitLike(pipeline.sinkStore, "RESTORE", Map.of("version", "1"), true);
    moreRecords();
    assertLost(pipeline, "sink table", "RESTORE");
  }

  @Test
  void aTablePutBackFromAnOlderCopyIsNotWrittenOver() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    records(0, 10);
    drain(pipeline, 10);
    Map<String, byte[]> copy = copyOf(pipeline.sinkStore);
    records(10, 20);
    drain(pipeline, 10);
    deleteAll(pipeline.sinkStore);
    copy.forEach((k, v) -> put(pipeline.sinkStore, k, v));
    moreRecords();
    assertLost(pipeline, "sink table", "put back from an older copy");
  }

  @Test
  void aReplacedQuarantineTableIsNotWrittenOver() throws Exception {
    MemoryPipeline pipeline = twoBatches();
    deleteAll(pipeline.quarantineStore);
    DeltaTable.open(pipeline.quarantineStore, TableOptions.defaults())
        .create(QuarantineRows.SCHEMA, List.of(), Map.of()); // same schema, another table
    moreRecords();
    assertLost(pipeline, "quarantine table", "it is another table now");
  }

  @Test
  void aTableLostWhileThePipelineRunsStopsItBeforeTheNextBatch() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    records(0, 40);
    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, 10), Model.WRITE_AHEAD_LOG);
    int[] batches = {0};
    assertThatThrownBy(
            () ->
                CrashPoints.onThisThread(
                    point -> {
                      if (point.equals(CrashPoints.AFTER_COMMITS_LOG) && ++batches[0] == 2) {
                        commitLike(pipeline.sinkStore, "TRUNCATE", Map.of(), true);
                      }
                    },
                    () -> {
                      process.loop().run(new TriggerSpec.AvailableNow());
                      return null;
                    }))
        .isInstanceOf(TableLostException.class)
        .hasMessageContaining("has batch 1 committed")
        .hasMessageContaining("TRUNCATE");
    assertThat(process.progress().last(100)).hasSize(2); // batch 2 wrote nothing
  }

  @Test
  void rowEditsAndCompactionAreNotALoss() throws Exception {
    MemoryPipeline pipeline = twoBatches();
    commitLike(pipeline.sinkStore, "DELETE", Map.of("predicate", "[\"id = 1\"]"), false);
    DeltaTable.open(pipeline.sinkStore, TableOptions.defaults())
        .compact(new CompactionOptions(2, 128L * 1024 * 1024));
    moreRecords();
    drain(pipeline, 10);
    assertThat(pipeline.sinkRows()).isNotEmpty();
  }

  // ---------------------------------------------------------------------------------------------

  private MemoryPipeline twoBatches() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    records(0, 20);
    drain(pipeline, 10);
    assertThat(pipeline.sinkRows()).isNotEmpty();
    return pipeline;
  }

  private void moreRecords() {
    records(100, 110);
  }

  private void records(int from, int to) {
    for (int p = 0; p < 2; p++) {
      for (int i = from; i < to; i++) {
        topic.append(p, "{\"id\":" + (p * 1000 + i) + ",\"v\":\"x\"}");
      }
    }
  }

  private void drain(MemoryPipeline pipeline, int perBatch) throws Exception {
    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, perBatch), Model.WRITE_AHEAD_LOG);
    try {
      process.loop().run(new TriggerSpec.AvailableNow());
    } finally {
      process.processor().close();
    }
  }

  private void assertLost(MemoryPipeline pipeline, String table, String what) throws Exception {
    long before = rows(pipeline);
    assertThatThrownBy(() -> drain(pipeline, 10))
        .isInstanceOf(TableLostException.class)
        .hasMessageContaining("Pipeline memory: the " + table)
        .hasMessageContaining(what)
        .hasMessageContaining("restore the table")
        .hasMessageContaining("starting-offsets: table")
        .hasMessageContaining("deleting the checkpoint too");
    assertThat(rows(pipeline)).as("nothing written").isEqualTo(before);
  }

  private static long rows(MemoryPipeline pipeline) throws IOException {
    return DeltaTable.open(pipeline.sinkStore, TableOptions.defaults()).exists()
        ? pipeline.sinkRows().size()
        : 0;
  }

  /**
   * A commit as another engine writes it: commitInfo with the operation and parameters, and (with
   * {@code removeAll}) every file removed.
   */
  private static void commitLike(
      ObjectStore store, String operation, Map<String, String> parameters, boolean removeAll) {
    try {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      List<Action> actions = new ArrayList<>();
      Map<String, Object> info = new LinkedHashMap<>();
      info.put("timestamp", System.currentTimeMillis());
      info.put("operation", operation);
      info.put("operationParameters", parameters);
      actions.add(new CommitInfo(info));
      List<AddFile> files =
          removeAll ? snapshot.state().files().values().stream().toList() : firstFile(snapshot);
      for (AddFile f : files) {
        actions.add(
            new RemoveFile(
                f.path(), System.currentTimeMillis(), true, true, f.partitionValues(), f.size()));
      }
      assertThat(new DeltaLog(store).tryCommit(snapshot.version() + 1, actions)).isTrue();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static List<AddFile> firstFile(Snapshot snapshot) {
    return snapshot.state().files().values().stream().limit(1).toList();
  }

  private static Map<String, byte[]> copyOf(ObjectStore store) throws IOException {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (ObjectInfo o : store.list("")) {
      out.put(o.key(), store.read(o.key()));
    }
    return out;
  }

  private static void deleteAll(ObjectStore store) throws IOException {
    for (ObjectInfo o : store.list("")) {
      store.delete(o.key());
    }
  }

  private static void put(ObjectStore store, String key, byte[] data) {
    try {
      store.put(key, data);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
