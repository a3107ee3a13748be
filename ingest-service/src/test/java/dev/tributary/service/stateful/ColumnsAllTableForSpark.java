package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.parse.avro.AvroWire;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * For {@link SparkInteropIT}: Spark 4 + Delta 4 read a routed table of a {@code columns: all}
 * pipeline: Debezium Avro events upserted by their record key, with a decimal and a Debezium
 * MicroTimestamp column, a delete, and a writer schema v2 adding {@code note} (its own commit
 * before the batch's); v1 rows read null in it.
 */
final class ColumnsAllTableForSpark {
  private static final String VALUE_V1 =
      """
      {"type": "record", "name": "Value", "fields": [
        {"name": "id", "type": "long"},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 8, "scale": 2}},
        {"name": "at", "type": {"type": "long", "connect.name": "io.debezium.time.MicroTimestamp"}}]}""";
  private static final String VALUE_V2 =
      VALUE_V1.replace(
          "\"io.debezium.time.MicroTimestamp\"}}]}",
          "\"io.debezium.time.MicroTimestamp\"}},"
              + " {\"name\": \"note\", \"type\": [\"null\", \"string\"], \"default\": null}]}");
  private static final String KEY =
      """
      {"type": "record", "name": "Key", "namespace": "db.items", "fields": [{"name": "id", "type": "long"}]}""";

  private static String envelope(String value) {
    return """
        {"type": "record", "name": "Envelope", "namespace": "db.items", "fields": [
          {"name": "before", "type": ["null", %s], "default": null},
          {"name": "after", "type": ["null", "Value"], "default": null},
          {"name": "source", "type": {"type": "record", "name": "Source", "fields": [
            {"name": "ts_ms", "type": "long"}]}},
          {"name": "op", "type": "string"}]}"""
        .formatted(value);
  }

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path out;
  private String topic;

  ColumnsAllTableForSpark(Path dir) {
    this.dir = dir;
  }

  /** Writes the table; returns the Spark read of it. */
  Map<String, String> prepare() throws Exception {
    topic = broker.createTopic("cols-spark", 1);
    try (TestSchemaRegistry registry = TestSchemaRegistry.start(dir.resolve("registry"))) {
      PipelineSpec spec =
          PipelineParser.parse(
              """
              pipeline: cols-spark
              source:
                kafka: { bootstrap-servers: %s, topics: [%s] }
              format:
                avro: { registry: { url: "%s" }, envelope: debezium, columns: all }
              sink:
                delta: { path: "%s/lake/{route}", route: _kafka_topic, write: upsert }
              checkpoint: %s/checkpoint
              """
                  .formatted(broker.bootstrapServers(), topic, registry.url(), dir, dir),
              "cols-spark.yaml",
              Map.of());
      int keyId = registry.registerAvro(topic + "-key", KEY);
      send(registry, keyId, VALUE_V1, 1, "c", "1.50", null);
      send(registry, keyId, VALUE_V1, 2, "c", "2.00", null);
      send(registry, keyId, VALUE_V1, 3, "c", "3.00", null);
      run(spec);
      send(registry, keyId, VALUE_V2, 2, "u", "2.25", "cheaper");
      send(registry, keyId, VALUE_V1, 3, "d", "3.00", null);
      run(spec);
    }
    Path work = Files.createDirectories(dir.resolve("spark"));
    out = work.resolve("rows.jsonl");
    return Map.of("path", dir.resolve("lake").resolve(topic).toString(), "out", out.toString());
  }

  /** What Spark read: the writer's columns, the fixed ones, then the column v2 added. */
  void check() throws Exception {
    assertThat(Files.readString(out.resolveSibling("rows.jsonl.columns")))
        .isEqualTo(
            "id,price,at,_op,_source_ts,_kafka_topic,_kafka_partition,_kafka_offset,"
                + "_kafka_timestamp,note");
    List<String> rows = Files.readAllLines(out);
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0))
        .startsWith("{\"id\":1,\"price\":1.50,\"at\":\"2026-01-01T00:00:01.000")
        .contains("\"_op\":\"c\"")
        .doesNotContain("note");
    assertThat(rows.get(1))
        .startsWith("{\"id\":2,\"price\":2.25,")
        .contains("\"_op\":\"u\"")
        .endsWith("\"note\":\"cheaper\"}");
  }

  private void send(
      TestSchemaRegistry registry,
      int keyId,
      String value,
      long id,
      String op,
      String price,
      String note)
      throws Exception {
    String text = envelope(value);
    int schemaId = registry.registerAvro(topic + "-value", text);
    Schema envelope = new Schema.Parser().parse(text);
    Schema row = envelope.getField("after").schema().getTypes().get(1);
    GenericRecord r = new GenericData.Record(row);
    r.put("id", id);
    r.put("price", ByteBuffer.wrap(new BigDecimal(price).unscaledValue().toByteArray()));
    r.put("at", 1_767_225_600_000_000L + id * 1_000_000L);
    if (row.getField("note") != null) {
      r.put("note", note);
    }
    GenericRecord e = new GenericData.Record(envelope);
    e.put("before", op.equals("c") ? null : r);
    e.put("after", op.equals("d") ? null : r);
    GenericRecord source = new GenericData.Record(envelope.getField("source").schema());
    source.put("ts_ms", 1_767_225_600_000L + id);
    e.put("source", source);
    e.put("op", op);
    Schema keySchema = new Schema.Parser().parse(KEY);
    GenericRecord key = new GenericData.Record(keySchema);
    key.put("id", id);
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      producer
          .send(
              new ProducerRecord<>(
                  topic,
                  0,
                  AvroWire.encode(keyId, keySchema, key),
                  AvroWire.encode(schemaId, envelope, e)))
          .get();
    }
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
  }
}
