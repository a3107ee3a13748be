package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.QuarantineLimitExceededException;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer that changes its JSON mid-stream (a new field, a removed field, an incompatible type),
 * against a real broker and local-disk tables, run from YAML: with rescue, with add-columns, and
 * with quarantine.max-fraction.
 */
class SchemaEvolutionIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String topic;

  /** v1: {id, amount}. */
  private static final List<String> V1 =
      List.of("{\"id\":\"o1\",\"amount\":10}", "{\"id\":\"o2\",\"amount\":20}");

  /** v2: a new field, tier. */
  private static final List<String> V2 =
      List.of(
          "{\"id\":\"o3\",\"amount\":30,\"tier\":\"gold\"}",
          "{\"id\":\"o4\",\"amount\":40,\"tier\":\"silver\"}");

  /** v3: amount removed; then amount as a string (incompatible). */
  private static final List<String> V3 =
      List.of(
          "{\"id\":\"o5\",\"tier\":\"gold\"}",
          "{\"id\":\"o6\",\"amount\":\"60 EUR\",\"tier\":\"gold\"}");

  @BeforeEach
  void topic() {
    topic = broker.createTopic("evolution", 1);
  }

  private PipelineSpec spec(String extra) {
    String yaml =
        """
        pipeline: evolution-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema:
              id: string
              amount: long
        sink:
          delta: { path: %s }
        checkpoint: %s
        trigger: { available-now: true }
        %s"""
            .formatted(
                broker.bootstrapServers(),
                topic,
                dir.resolve("table"),
                dir.resolve("checkpoint"),
                extra);
    return PipelineParser.parse(yaml, "evolution-it.yaml", Map.of());
  }

  private List<BatchProgress> run(PipelineSpec spec) throws Exception {
    ProgressLog progress = new ProgressLog(100);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress.last(100);
  }

  private StructType schema(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
    }
  }

  /** The table's rows, the columns named (null where a row's file predates a column), by id. */
  private List<List<Object>> rows(String table, String... columns) throws Exception {
    StructType schema = schema(table);
    List<List<Object>> out = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      for (Object[] r : TableContents.rows(store)) {
        List<Object> picked = new ArrayList<>();
        for (String c : columns) {
          picked.add(r[schema.indexOf(c)]);
        }
        out.add(picked);
      }
    }
    out.sort(Comparator.comparing(l -> String.valueOf(l.get(0))));
    return out;
  }

  @Test
  void rescueKeepsTheNewFieldAndTheIncompatibleValueAndQuarantinesNothing() throws Exception {
    PipelineSpec spec = spec("schema-evolution: { rescue: true }\n");
    broker.send(topic, 0, V1);
    run(spec);
    broker.send(topic, 0, V2);
    broker.send(topic, 0, V3);
    List<BatchProgress> batches = run(spec);

    assertThat(schema("table").fieldNames()).endsWith("_rescued_data").doesNotContain("tier");
    assertThat(rows("table", "id", "amount", "_rescued_data"))
        .containsExactly(
            Arrays.asList("o1", 10L, null),
            Arrays.asList("o2", 20L, null),
            Arrays.asList("o3", 30L, "{\"tier\":\"gold\"}"),
            Arrays.asList("o4", 40L, "{\"tier\":\"silver\"}"),
            Arrays.asList("o5", null, "{\"tier\":\"gold\"}"),
            Arrays.asList("o6", null, "{\"amount\":\"60 EUR\",\"tier\":\"gold\"}"));
    assertThat(rows("table-quarantine", "topic")).isEmpty();
    assertThat(batches).allSatisfy(b -> assertThat(b.quarantinedFraction()).isZero());
  }

  @Test
  void addColumnsAddsTheNewFieldOnceAndQuarantinesTheIncompatibleValue() throws Exception {
    PipelineSpec spec = spec("schema-evolution: { mode: add-columns }\n");
    broker.send(topic, 0, V1);
    run(spec);
    broker.send(topic, 0, V2);
    run(spec);
    broker.send(topic, 0, V3);
    List<BatchProgress> last = run(spec); // a restart: tier is known from the table

    assertThat(schema("table").fieldNames()).endsWith("tier").doesNotContain("_rescued_data");
    assertThat(rows("table", "id", "amount", "tier"))
        .containsExactly(
            Arrays.asList("o1", 10L, null),
            Arrays.asList("o2", 20L, null),
            Arrays.asList("o3", 30L, "gold"),
            Arrays.asList("o4", 40L, "silver"),
            Arrays.asList("o5", null, "gold"));
    List<List<Object>> quarantined = rows("table-quarantine", "offset", "error");
    assertThat(quarantined)
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.get(0)).isEqualTo(5L);
              assertThat((String) q.get(1)).contains("amount");
            });
    assertThat(last).last().satisfies(b -> assertThat(b.quarantinedFraction()).isEqualTo(0.5));
    assertThat(ProgressLog.toJson(last.get(last.size() - 1)))
        .contains("\"quarantinedFraction\":0.5");
  }

  @Test
  void modeNoneLeavesTheTableAsDeclared() throws Exception {
    PipelineSpec spec = spec("");
    broker.send(topic, 0, V1);
    broker.send(topic, 0, V2);
    run(spec);
    assertThat(schema("table").fieldNames())
        .containsExactly(
            "id",
            "amount",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp");
  }

  @Test
  void aBatchAboveMaxFractionFailsBeforeCommittingAnythingAndFailsTheSameWayOnReplay()
      throws Exception {
    PipelineSpec spec = spec("quarantine: { max-fraction: 0.25 }\n");
    broker.send(topic, 0, V1);
    run(spec);
    long sinkVersion = version("table");
    long quarantineVersion = version("table-quarantine");
    broker.send(
        topic,
        0,
        List.of(
            "{\"id\":\"o3\",\"amount\":\"x\"}",
            "{\"id\":\"o4\",\"amount\":\"y\"}",
            "{\"id\":\"o5\",\"amount\":5}"));

    for (int attempt = 0; attempt < 2; attempt++) {
      assertThatThrownBy(() -> run(spec))
          .isInstanceOf(QuarantineLimitExceededException.class)
          .hasMessageStartingWith(
              "Pipeline evolution-it: batch 1 ("
                  + topic
                  + "/0 offsets [2, 5)) quarantined 2 of"
                  + " 3 records (fraction 0.6667), more than quarantine.max-fraction 0.25 allows; nothing of the batch"
                  + " was committed. First error: field 'amount'");
      assertThat(version("table")).isEqualTo(sinkVersion);
      assertThat(version("table-quarantine")).isEqualTo(quarantineVersion);
    }
    // raising the threshold lets the same batch through, once
    run(spec("quarantine: { max-fraction: 1 }\n"));
    assertThat(rows("table", "id")).extracting(l -> l.get(0)).containsExactly("o1", "o2", "o5");
    assertThat(rows("table-quarantine", "offset"))
        .extracting(l -> l.get(0))
        .containsExactly(2L, 3L);
  }

  private long version(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
    }
  }
}
