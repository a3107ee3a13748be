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
 * For {@link SparkInteropIT} (one Spark start for every Spark read): Spark 4 + Delta 4 read a sink
 * table that Avro schema evolution changed: a writer schema v2 brings a new field (added as a
 * column in the commit of its first rows) and one of a record type (added as a string column of its
 * JSON text), and v3 an incompatible type for a declared column (kept in {@code _rescued_data});
 * the v1 rows read null in the added columns.
 */
final class AvroEvolvedTableForSpark {
  private static final String V1 =
      """
      {"type": "record", "name": "Order", "fields": [
        {"name": "id", "type": "string"}, {"name": "amount", "type": "long"}]}""";
  private static final String V2 =
      """
      {"type": "record", "name": "Order", "fields": [
        {"name": "id", "type": "string"}, {"name": "amount", "type": "long"}, {"name": "tier", "type": "string"},
        {"name": "meta", "type": {"type": "record", "name": "Meta", "fields": [{"name": "a", "type": "int"}]}}]}""";
  private static final String V3 =
      V2.replace(
          "{\"name\": \"amount\", \"type\": \"long\"}",
          "{\"name\": \"amount\", \"type\": \"string\"}");

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path out;

  AvroEvolvedTableForSpark(Path dir) {
    this.dir = dir;
  }

  /** Writes the table; returns the Spark read of it. */
  Map<String, String> prepare() throws Exception {
    String topic = broker.createTopic("avro-evolved-spark", 1);
    try (TestSchemaRegistry registry = TestSchemaRegistry.start(dir.resolve("registry"))) {
      var spec =
          PipelineParser.parse(
              """
          pipeline: avro-evolved-spark
          source:
            kafka: { bootstrap-servers: %s, topics: [%s] }
          format:
            avro:
              registry: { url: "%s" }
              schema: { id: string, amount: long }
          schema-evolution: { mode: add-columns, rescue: true }
          sink:
            delta: { path: %s/table }
          checkpoint: %s/checkpoint
          """
                  .formatted(broker.bootstrapServers(), topic, registry.url(), dir, dir),
              "avro-evolved-spark.yaml",
              Map.of());
      send(registry, topic, V1, "o1", 10L);
      run(spec);
      send(registry, topic, V2, "o2", 20L);
      send(registry, topic, V3, "o3", "30 EUR");
      run(spec);
    }

    Path work = Files.createDirectories(dir.resolve("spark"));
    out = work.resolve("rows.jsonl");
    return Map.of("path", dir.resolve("table").toString(), "out", out.toString());
  }

  /** What Spark read: the columns added from Avro writer schemas, the rescued data. */
  void check() throws Exception {
    assertThat(Files.readString(out.resolveSibling("rows.jsonl.columns")))
        .isEqualTo(
            "id,amount,_kafka_topic,"
                + "_kafka_partition,_kafka_offset,_kafka_timestamp,_rescued_data,tier,meta");
    List<String> rows = Files.readAllLines(out);
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0))
        .startsWith("{\"id\":\"o1\",\"amount\":10,")
        .doesNotContain("tier", "_rescued_data");
    assertThat(rows.get(1))
        .startsWith("{\"id\":\"o2\",\"amount\":20,")
        .doesNotContain("_rescued_data")
        .endsWith("\"tier\":\"gold\",\"meta\":\"{\\\"a\\\":1}\"}");
    assertThat(rows.get(2))
        .startsWith("{\"id\":\"o3\",")
        .doesNotContain("\"amount\":")
        .contains("\"_rescued_data\":\"{\\\"amount\\\":\\\"30 EUR\\\"}\"")
        .endsWith("\"tier\":\"gold\",\"meta\":\"{\\\"a\\\":1}\"}");
  }

  private void send(
      TestSchemaRegistry registry, String topic, String schemaText, String id, Object amount)
      throws Exception {
    int schemaId = registry.registerAvro(topic + "-value", schemaText);
    Schema schema = new Schema.Parser().parse(schemaText);
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", id);
    r.put("amount", amount);
    if (schema.getField("tier") != null) {
      r.put("tier", "gold");
      GenericRecord meta = new GenericData.Record(schema.getField("meta").schema());
      meta.put("a", 1);
      r.put("meta", meta);
    }
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      producer
          .send(new ProducerRecord<>(topic, 0, null, AvroWire.encode(schemaId, schema, r)))
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
