package dev.tributary.service.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code write: upsert} through the real batch body, processor and sink, in memory: inserts,
 * updates, ordering by {@code sequence-by}, {@code delete-when}, tombstones, null keys, replays.
 */
class UpsertPipelineTest {
  @TempDir Path dir;

  static final String YAML =
      """
      pipeline: customers
      source: { kafka: { bootstrap-servers: "localhost:1", topics: [customers] } }
      format: { json: { schema: { id: long, name: string, version: long, op: string } } }
      sink:
        delta:
          path: /memory/sink
          write: upsert
          key: [id]
          sequence-by: version
          delete-when: "op = 'd'"
      quarantine: { delta: { path: /memory/quarantine } }
      checkpoint: /memory/checkpoint
      """;

  static String change(long id, String name, long version, String op) {
    return "{\"id\":%d,\"name\":\"%s\",\"version\":%d,\"op\":\"%s\"}"
        .formatted(id, name, version, op);
  }

  private static void run(MemoryPipeline pipeline, InMemorySource.Log topic) throws Exception {
    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, 4), Model.WRITE_AHEAD_LOG);
    process.loop().run(new TriggerSpec.AvailableNow());
    process.processor().close();
  }

  /** The table: id to "name@version". */
  static Map<Long, String> table(MemoryPipeline pipeline) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (Object[] r : pipeline.sinkRows()) {
      assertThat(out.put((Long) r[0], r[1] + "@" + r[2])).as("id %s once", r[0]).isNull();
    }
    return out;
  }

  @Test
  void theTableHoldsTheLatestVersionOfEachKey() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 2);
    for (long id = 1; id <= 6; id++) {
      topic.append((int) (id % 2), String.valueOf(id), change(id, "v1", 1, "c"));
    }
    run(pipeline, topic);
    assertThat(table(pipeline)).hasSize(6).containsEntry(3L, "v1@1");

    topic.append(1, "1", change(1, "v2", 2, "u"));
    topic.append(1, "1", change(1, "v3", 3, "u"));
    topic.append(0, "2", change(2, "gone", 2, "d")); // delete-when
    topic.append(1, "3", null); // a tombstone with a bare key
    topic.append(0, "{\"id\": 4}", null); // a tombstone with a JSON object key
    topic.append(1, "5", change(5, "stale", 0, "u")); // older than the table's row: ignored
    topic.append(0, "7", change(7, "new", 1, "c"));
    topic.append(0, "7", change(7, "newer", 2, "u"));
    topic.append(1, "9", change(9, "replayed", 5, "u"));
    topic.append(1, "9", change(9, "out of order", 4, "u")); // older in the batch: ignored
    run(pipeline, topic);
    assertThat(table(pipeline))
        .containsExactly(
            Map.entry(1L, "v3@3"),
            Map.entry(5L, "v1@1"),
            Map.entry(6L, "v1@1"),
            Map.entry(7L, "newer@2"),
            Map.entry(9L, "replayed@5"));
    assertThat(pipeline.quarantineRows()).isEmpty();
  }

  @Test
  void aDeleteThenAnInsertIsAnInsertAndADeletedKeyComesBack() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 1);
    topic.append(0, "1", change(1, "first", 5, "c"));
    run(pipeline, topic);
    topic.append(0, "1", null); // tombstone
    topic.append(0, "1", change(1, "again", 1, "c")); // after the tombstone: applies
    run(pipeline, topic);
    assertThat(table(pipeline)).containsExactly(Map.entry(1L, "again@1"));
  }

  @Test
  void rowsWithoutTheirKeyOrSequenceAndUndecodableTombstonesAreQuarantined() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 1);
    topic.append(0, null, "{\"name\":\"no id\",\"version\":1}");
    topic.append(0, "2", "{\"id\":2,\"name\":\"no version\"}");
    topic.append(0, null, null); // a tombstone without a key
    topic.append(0, "{\"name\": \"x\"}", null); // a key without the key column
    topic.append(0, "3", change(3, "fine", 1, "c"));
    run(pipeline, topic);
    assertThat(table(pipeline)).containsExactly(Map.entry(3L, "fine@1"));
    assertThat(pipeline.quarantineRows().stream().map(r -> r[2] + ": " + r[6]))
        .containsExactly(
            "0: key column 'id' is null; a row without its whole key cannot be upserted",
            "1: sequence-by column 'version' is null; the change cannot be ordered against the"
                + " other changes of its key",
            "2: record value is null (a tombstone) and so is its key: there is no key to delete",
            "3: record value is null (a tombstone) but its key gives no value for key column 'id';"
                + " the record key must hold every key column to delete it");
  }

  @Test
  void aReplayedBatchIsSkippedAndTheCommitRecordsAMerge() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 1);
    topic.append(0, "1", change(1, "a", 1, "c"));
    run(pipeline, topic);
    run(pipeline, topic); // nothing new: no batch
    DeltaTable table = DeltaTable.open(pipeline.sinkStore, TableOptions.defaults());
    assertThat(table.snapshot().version()).isEqualTo(1); // create, then one merge
    assertThat(table(pipeline)).containsExactly(Map.entry(1L, "a@1"));
  }

  @Test
  void aCompactionBetweenTheMergesPlanAndItsCommitMakesItPlanAgain() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 1);
    for (long id = 1; id <= 12; id++) {
      topic.append(0, String.valueOf(id), change(id, "v1", 1, "c")); // three batches of four
    }
    run(pipeline, topic);
    DeltaTable table = DeltaTable.open(pipeline.sinkStore, TableOptions.defaults());
    assertThat(table.snapshot().fileCount()).isEqualTo(3);
    topic.append(0, "2", change(2, "v2", 2, "u"));
    AtomicInteger compactions = new AtomicInteger();
    CrashPoints.onThisThread(
        point -> {
          if (point.equals(CrashPoints.AFTER_DATA_FILES) && compactions.getAndIncrement() == 0) {
            try { // another process compacts the table while the merge is about to commit
              table.compact(new CompactionOptions(2, 1 << 20));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        },
        () -> {
          run(pipeline, topic);
          return null;
        });
    assertThat(compactions.get()).as("planned twice: before and after the compaction").isEqualTo(2);
    assertThat(table(pipeline)).hasSize(12).containsEntry(2L, "v2@2").containsEntry(1L, "v1@1");
  }

  @Test
  void validateNamesAKeyOrSequenceColumnOrPredicateThatDoesNotFitTheOutput() {
    String derived =
        YAML.replace(
                "checkpoint: /memory/checkpoint",
                "checkpoint: /memory/checkpoint\ntransform: [ { derive: { ratio: \"version / 2.0\" } } ]")
            .replace("sequence-by: version", "sequence-by: ratio");
    assertThatThrownBy(
            () -> PipelineFactory.compile(PipelineParser.parse(derived, "c.yaml", Map.of())))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining(
            "sink.delta.sequence-by: sequence-by column 'ratio' is a double, which cannot order"
                + " the changes of a key");
    String badPredicate = YAML.replace("op = 'd'", "opp = 'd'");
    assertThatThrownBy(
            () -> PipelineFactory.compile(PipelineParser.parse(badPredicate, "c.yaml", Map.of())))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("sink.delta.delete-when:")
        .hasMessageContaining("opp");
  }
}
