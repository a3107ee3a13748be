package dev.tributary.service.parse.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.QuarantineLimitExceededException;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Avro producer that changes its writer schema mid-stream, against the real broker and the test
 * registry (a child process speaking the Confluent API), run from YAML into local-disk tables: v1
 * as declared, v2 with two new fields, v3 without a declared field, v4 with an incompatible type
 * for a declared column; three records each, one batch each ({@code max-offsets-per-trigger: 3}).
 * With rescue, add-columns, both, and neither with quarantine.max-fraction.
 */
class AvroSchemaEvolutionIT {
  private static final String V1 =
      """
      {"type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "id", "type": "string"}, {"name": "amount", "type": "long"},
        {"name": "note", "type": ["null", "string"], "default": null}]}""";
  private static final String V2 =
      """
      {"type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "id", "type": "string"}, {"name": "amount", "type": "long"},
        {"name": "note", "type": ["null", "string"], "default": null},
        {"name": "channel", "type": "string", "default": "web"},
        {"name": "score", "type": ["null", "double"], "default": null}]}""";
  private static final String V3 =
      V2.replace(
          """
      {"name": "note", "type": ["null", "string"], "default": null},
      """,
          "");
  private static final String V4 =
      V3.replace(
          "{\"name\": \"amount\", \"type\": \"long\"}",
          "{\"name\": \"amount\", \"type\": \"string\"}");

  private static final KafkaTestBroker BROKER = KafkaTestBroker.shared();
  @TempDir static Path shared;
  private static TestSchemaRegistry registry;
  private static int v4Id;
  @TempDir Path dir;
  private String topic;

  @BeforeAll
  static void startRegistry() throws Exception {
    registry = TestSchemaRegistry.start(shared.resolve("registry"));
  }

  @AfterAll
  static void stopRegistry() throws Exception {
    registry.close();
  }

  /** Twelve records: o01-o03 with v1, o04-o06 with v2, o07-o09 with v3, o10-o12 with v4. */
  @BeforeEach
  void produce() throws Exception {
    topic = BROKER.createTopic("avro-evolution", 1);
    String[] versions = {V1, V2, V3, V4};
    int n = 1;
    try (KafkaProducer<byte[], byte[]> producer = BROKER.producer()) {
      for (String text : versions) {
        int id = registry.registerAvro(topic + "-value", text);
        v4Id = id;
        Schema schema = new Schema.Parser().parse(text);
        for (int i = 0; i < 3; i++, n++) {
          GenericRecord r = new GenericData.Record(schema);
          r.put("id", String.format("o%02d", n));
          r.put(
              "amount",
              schema.getField("amount").schema().getType() == Schema.Type.STRING
                  ? n + "0 EUR"
                  : n * 10L);
          if (schema.getField("note") != null) {
            r.put("note", "n" + n);
          }
          if (schema.getField("channel") != null) {
            r.put("channel", "web");
            r.put("score", i == 2 ? null : n + 0.5);
          }
          producer.send(new ProducerRecord<>(topic, 0, null, AvroWire.encode(id, schema, r))).get();
        }
      }
    }
  }

  private PipelineSpec spec(String extra) {
    String yaml =
        """
        pipeline: avro-evolution
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 3
        format:
          avro:
            registry: { url: "%s" }
            schema: { id: string, amount: long, note: string }
        sink:
          delta: { path: %s }
        checkpoint: %s
        trigger: { available-now: true }
        %s"""
            .formatted(
                BROKER.bootstrapServers(),
                topic,
                registry.url(),
                dir.resolve("table"),
                dir.resolve("checkpoint"),
                extra);
    return PipelineParser.parse(yaml, "avro-evolution.yaml", Map.of());
  }

  private void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private StructType schema(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
    }
  }

  /** The named columns of every row, sorted by the first. */
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

  private static final String R1 = "{\"channel\":\"web\",\"score\":%s.5}";

  @Test
  void rescueKeepsTheNewFieldsAndTheIncompatibleValuesAndQuarantinesNothing() throws Exception {
    run(spec("schema-evolution: { rescue: true }\n"));

    assertThat(schema("table").fieldNames())
        .containsExactly(
            "id",
            "amount",
            "note",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp",
            "_rescued_data");
    assertThat(rows("table", "id", "amount", "note", "_rescued_data"))
        .containsExactly(
            Arrays.asList("o01", 10L, "n1", null),
            Arrays.asList("o02", 20L, "n2", null),
            Arrays.asList("o03", 30L, "n3", null),
            Arrays.asList("o04", 40L, "n4", R1.formatted(4)),
            Arrays.asList("o05", 50L, "n5", R1.formatted(5)),
            Arrays.asList("o06", 60L, "n6", "{\"channel\":\"web\"}"), // a null score is not rescued
            Arrays.asList("o07", 70L, null, R1.formatted(7)),
            Arrays.asList("o08", 80L, null, R1.formatted(8)),
            Arrays.asList("o09", 90L, null, "{\"channel\":\"web\"}"),
            Arrays.asList(
                "o10", null, null, "{\"amount\":\"100 EUR\",\"channel\":\"web\",\"score\":10.5}"),
            Arrays.asList(
                "o11", null, null, "{\"amount\":\"110 EUR\",\"channel\":\"web\",\"score\":11.5}"),
            Arrays.asList("o12", null, null, "{\"amount\":\"120 EUR\",\"channel\":\"web\"}"));
    assertThat(rows("table-quarantine", "topic")).isEmpty();
  }

  @Test
  void addColumnsAddsTheNewFieldsInTheCommitOfTheirFirstRowsAndQuarantinesTheIncompatibleType()
      throws Exception {
    run(spec("schema-evolution: { mode: add-columns }\n"));

    StructType schema = schema("table");
    assertThat(schema.fieldNames())
        .containsExactly(
            "id",
            "amount",
            "note",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp",
            "channel",
            "score");
    assertThat(schema.fields().get(7).type()).isEqualTo(PrimitiveType.STRING);
    assertThat(schema.fields().get(8).type()).isEqualTo(PrimitiveType.DOUBLE);
    assertThat(rows("table", "id", "amount", "note", "channel", "score"))
        .containsExactly(
            Arrays.asList("o01", 10L, "n1", null, null),
            Arrays.asList("o02", 20L, "n2", null, null),
            Arrays.asList("o03", 30L, "n3", null, null),
            Arrays.asList("o04", 40L, "n4", "web", 4.5),
            Arrays.asList("o05", 50L, "n5", "web", 5.5),
            Arrays.asList("o06", 60L, "n6", "web", null),
            Arrays.asList("o07", 70L, null, "web", 7.5),
            Arrays.asList("o08", 80L, null, "web", 8.5),
            Arrays.asList("o09", 90L, null, "web", null));
    String reason =
        "value: field 'amount': writer schema id "
            + v4Id
            + " has a string, which does not fit the"
            + " declared long";
    assertThat(rows("table-quarantine", "offset", "error"))
        .extracting(l -> l.get(0))
        .containsExactlyInAnyOrder(9L, 10L, 11L);
    assertThat(rows("table-quarantine", "offset", "error"))
        .allSatisfy(l -> assertThat((String) l.get(1)).contains(reason));

    // The columns came with the v2 batch's rows: one commit holds the wider metaData and its add
    // actions.
    try (ObjectStore store = ObjectStores.open(dir.resolve("table").toString(), null)) {
      DeltaLog log = new DeltaLog(store);
      long latest = DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
      List<Long> adding = new ArrayList<>();
      for (long v = 0; v <= latest; v++) {
        List<Action> actions = log.readCommit(v);
        boolean widens =
            actions.stream()
                .anyMatch(a -> a instanceof Metadata m && m.schemaString().contains("\"channel\""));
        if (widens && adding.isEmpty()) {
          adding.add(v);
          assertThat(actions)
              .as("commit %d", v)
              .anySatisfy(a -> assertThat(a).isInstanceOf(AddFile.class));
        } else if (widens) {
          adding.add(v);
        }
      }
      assertThat(adding).as("commits with a metaData action holding channel").hasSize(1);
      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.columnNames()).isEqualTo(schema.fieldNames());
      assertThat(kernel.rows()).hasSize(9);
    }
  }

  @Test
  void addColumnsWithRescueKeepsTheIncompatibleValuesBesideTheNewColumns() throws Exception {
    run(spec("schema-evolution: { mode: add-columns, rescue: true }\n"));

    assertThat(schema("table").fieldNames())
        .containsExactly(
            "id",
            "amount",
            "note",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp",
            "_rescued_data",
            "channel",
            "score");
    assertThat(rows("table", "id", "amount", "channel", "score", "_rescued_data"))
        .containsExactly(
            Arrays.asList("o01", 10L, null, null, null),
            Arrays.asList("o02", 20L, null, null, null),
            Arrays.asList("o03", 30L, null, null, null),
            Arrays.asList("o04", 40L, "web", 4.5, null),
            Arrays.asList("o05", 50L, "web", 5.5, null),
            Arrays.asList("o06", 60L, "web", null, null),
            Arrays.asList("o07", 70L, "web", 7.5, null),
            Arrays.asList("o08", 80L, "web", 8.5, null),
            Arrays.asList("o09", 90L, "web", null, null),
            Arrays.asList("o10", null, "web", 10.5, "{\"amount\":\"100 EUR\"}"),
            Arrays.asList("o11", null, "web", 11.5, "{\"amount\":\"110 EUR\"}"),
            Arrays.asList("o12", null, "web", null, "{\"amount\":\"120 EUR\"}"));
    assertThat(rows("table-quarantine", "topic")).isEmpty();
  }

  @Test
  void modeNoneSkipsNewFieldsAndMaxFractionStopsTheIncompatibleBatch() throws Exception {
    assertThatThrownBy(() -> run(spec("quarantine: { max-fraction: 0.5 }\n")))
        .isInstanceOf(QuarantineLimitExceededException.class)
        .hasMessageStartingWith(
            "Pipeline avro-evolution: batch 3 ("
                + topic
                + "/0 offsets [9, 12)) quarantined 3 of"
                + " 3 records (fraction 1.0000), more than quarantine.max-fraction 0.5 allows; nothing of the batch was"
                + " committed. First error: "
                + topic
                + "/0 offset 9: value: field 'amount': writer schema id "
                + v4Id);

    assertThat(schema("table").fieldNames())
        .containsExactly(
            "id",
            "amount",
            "note",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp");
    assertThat(rows("table", "id", "amount", "note"))
        .containsExactly(
            Arrays.asList("o01", 10L, "n1"),
            Arrays.asList("o02", 20L, "n2"),
            Arrays.asList("o03", 30L, "n3"),
            Arrays.asList("o04", 40L, "n4"),
            Arrays.asList("o05", 50L, "n5"),
            Arrays.asList("o06", 60L, "n6"),
            Arrays.asList("o07", 70L, null),
            Arrays.asList("o08", 80L, null),
            Arrays.asList("o09", 90L, null));

    // Without the limit the same batch goes to the quarantine table, and the table's schema stays.
    run(spec(""));
    assertThat(rows("table-quarantine", "offset"))
        .extracting(l -> l.get(0))
        .containsExactlyInAnyOrder(9L, 10L, 11L);
    assertThat(rows("table", "id")).hasSize(9);
  }
}
