package dev.tributary.service.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code write: upsert} with {@code history: scd2} through the real batch body, processor and sink,
 * in memory: versions chained, closed by deletes and tombstones, late changes inserted, replays and
 * crashes at every point adding no version.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HistoryPipelineTest {
  @TempDir Path dir;

  static final String YAML =
      """
      pipeline: customers
      source: { kafka: { bootstrap-servers: "localhost:1", topics: [customers] } }
      format: { json: { schema: { id: long, name: string, changed_at: timestamp, op: string } } }
      sink:
        delta:
          path: /memory/sink
          write: upsert
          key: [id]
          sequence-by: changed_at
          delete-when: "op = 'd'"
          history: scd2
      quarantine: { delta: { path: /memory/quarantine } }
      checkpoint: /memory/checkpoint
      """;

  static String change(long id, String name, long second, String op) {
    return "{\"id\":%d,\"name\":\"%s\",\"changed_at\":\"%s\",\"op\":\"%s\"}"
        .formatted(id, name, Instant.ofEpochSecond(second), op);
  }

  private static void run(MemoryPipeline pipeline, InMemorySource.Log topic, long perPartition)
      throws Exception {
    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, perPartition), Model.WRITE_AHEAD_LOG);
    process.loop().run(new TriggerSpec.AvailableNow());
    process.processor().close();
  }

  /** Every row as "id name [from, to) current", times as seconds since the epoch, sorted. */
  static TreeSet<String> history(MemoryPipeline pipeline) throws Exception {
    StructType schema =
        DeltaTable.open(pipeline.sinkStore, TableOptions.defaults()).snapshot().schema();
    int from = schema.indexOf("_valid_from");
    int to = schema.indexOf("_valid_to");
    int current = schema.indexOf("_is_current");
    TreeSet<String> out = new TreeSet<>();
    for (Object[] r : pipeline.sinkRows()) {
      assertThat(r[current])
          .as("_is_current is true exactly when _valid_to is null")
          .isEqualTo(r[to] == null);
      out.add(
          r[0]
              + " "
              + r[1]
              + " ["
              + seconds(r[from])
              + ", "
              + seconds(r[to])
              + ")"
              + (Boolean.TRUE.equals(r[current]) ? " current" : ""));
    }
    return out;
  }

  private static String seconds(Object instant) {
    if (instant == null) {
      return "-";
    }
    Instant t = (Instant) instant;
    return t.getNano() == 0 ? Long.toString(t.getEpochSecond()) : t.toString();
  }

  @Test
  void everyVersionIsKeptClosedAndOpenedInOrderOfTheSequence() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 2);
    topic.append(1, "1", change(1, "a", 10, "c"));
    topic.append(0, "2", change(2, "x", 10, "c"));
    topic.append(1, "3", change(3, "p", 10, "c"));
    run(pipeline, topic, 100);
    assertThat(history(pipeline))
        .containsExactly("1 a [10, -) current", "2 x [10, -) current", "3 p [10, -) current");

    topic.append(1, "1", change(1, "b", 20, "u"));
    topic.append(1, "1", change(1, "c", 30, "u")); // a chain in one batch
    topic.append(1, "1", change(1, "late", 15, "u")); // late within the batch
    topic.append(0, "2", change(2, "x", 25, "d")); // delete-when: closes, opens nothing
    topic.append(1, "3", change(3, "p", 10, "c")); // re-emitted: a duplicate
    topic.append(0, "4", change(4, "new", 5, "c"));
    run(pipeline, topic, 100);
    assertThat(history(pipeline))
        .containsExactly(
            "1 a [10, 15)",
            "1 b [20, 30)",
            "1 c [30, -) current",
            "1 late [15, 20)",
            "2 x [10, 25)",
            "3 p [10, -) current",
            "4 new [5, -) current");

    topic.append(1, "1", change(1, "later", 12, "u")); // older than the table's current row
    topic.append(0, "2", change(2, "back", 40, "c")); // a deleted key comes back
    topic.append(1, "3", null); // a tombstone, stamped before its key's version: closes it
    run(pipeline, topic, 100);
    assertThat(history(pipeline))
        .containsExactly(
            "1 a [10, 12)",
            "1 b [20, 30)",
            "1 c [30, -) current",
            "1 late [15, 20)",
            "1 later [12, 15)",
            "2 back [40, -) current",
            "2 x [10, 25)",
            "3 p [10, 1970-01-01T00:00:10.000001Z)",
            "4 new [5, -) current");
    assertThat(pipeline.quarantineRows()).isEmpty();
  }

  /** A stream with chains, late changes, deletes, tombstones and duplicates, over 3 partitions. */
  static InMemorySource.Log stream(int from, int to) {
    InMemorySource.Log topic = new InMemorySource.Log("customers", 3);
    append(topic, from, to);
    return topic;
  }

  static void append(InMemorySource.Log topic, int from, int to) {
    for (int i = from; i < to; i++) {
      long id = i % 7;
      int partition = (int) (id % 3);
      long second = 100 + (i * 37L) % 50; // not in stream order: late changes
      if (i % 11 == 5) {
        topic.append(partition, Long.toString(id), change(id, "gone" + i, second, "d"));
      } else if (i % 13 == 7) {
        topic.append(partition, Long.toString(id), null);
      } else if (i % 9 == 4) {
        topic.append(partition, Long.toString(id), change(id, "dup", 100, "u"));
      } else {
        topic.append(partition, Long.toString(id), change(id, "v" + i, second, "u"));
      }
    }
  }

  static Stream<CrashAt> crashPoints() {
    List<CrashAt> out = new ArrayList<>();
    for (String point :
        List.of(
            CrashPoints.AFTER_PLAN,
            CrashPoints.AFTER_OFFSETS_LOG,
            CrashPoints.AFTER_DATA_FILES,
            CrashPoints.AFTER_QUARANTINE_COMMIT,
            CrashPoints.AFTER_SINK_COMMIT,
            CrashPoints.AFTER_COMMITS_LOG)) {
      for (int n = 1; n <= 3; n++) {
        out.add(new CrashAt(point, n));
      }
    }
    for (int n : List.of(1, 17, 40)) {
      out.add(new CrashAt(CrashPoints.MID_BATCH, n));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crashPoints")
  void aCrashAtAnyPointLeavesTheHistoryOfARunWithoutCrash(CrashAt crash) throws Exception {
    MemoryPipeline clean = MemoryPipeline.declared(YAML, dir.resolve("clean"));
    InMemorySource.Log all = stream(0, 60);
    run(clean, all, 4);
    TreeSet<String> expected = history(clean);
    assertThat(expected)
        .as("the stream makes chains, closed and current versions")
        .hasSizeGreaterThan(30)
        .anyMatch(v -> v.endsWith("current"))
        .anyMatch(v -> !v.endsWith("current") && !v.endsWith("-)"));

    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir.resolve("crashed"));
    InMemorySource.Log topic = stream(0, 40);
    MemoryPipeline.Process first =
        pipeline.open(InMemorySource.of(topic, 4), Model.WRITE_AHEAD_LOG);
    assertThat(
            crash.runCrashing(
                () -> {
                  first.loop().run(new TriggerSpec.AvailableNow());
                  return null;
                }))
        .as("crashed at " + crash)
        .isTrue();
    first.processor().close();
    append(topic, 40, 60);
    run(pipeline, topic, 4);
    assertThat(history(pipeline)).isEqualTo(expected);
  }

  @Test
  void validateRefusesAHistoryWhoseSequenceIsNotATimestamp() {
    String derived =
        YAML.replace(
                "checkpoint: /memory/checkpoint",
                "checkpoint: /memory/checkpoint\n"
                    + "transform: [ { derive: { version: \"CAST(id AS long)\" } } ]")
            .replace("sequence-by: changed_at", "sequence-by: version");
    assertThatThrownBy(
            () -> PipelineFactory.compile(PipelineParser.parse(derived, "c.yaml", Map.of())))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining(
            "sink.delta.sequence-by: sequence-by column 'version' is a long, but history: scd2"
                + " takes each version's _valid_from and _valid_to from it");
  }
}
