package dev.tributary.service.parse.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchFailedException;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.registry.SchemaRegistryUnavailableException;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code format.avro} pipeline from YAML, against the real broker and a registry speaking the
 * Confluent API in a child process, into local-disk Delta tables: the rows equal what was produced
 * (value and key columns, logical types, nested records), bad records are quarantined with their
 * reasons, and a registry outage fails the run without quarantining or losing anything: the next
 * run, with the registry back, lands every record.
 */
class AvroPipelineIT {
  private static final String ORDER_V1 =
      """
      {"type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "order_id", "type": "string"},
        {"name": "quantity", "type": "int"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
        {"name": "event_time", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
          {"name": "name", "type": "string"}, {"name": "email", "type": ["null", "string"], "default": null}]}}]}""";

  /** v2 adds a field and widens quantity to long: still fits the declared columns. */
  private static final String ORDER_V2 =
      ORDER_V1
          .replace("\"type\": \"int\"", "\"type\": \"long\"")
          .replace(
              "{\"name\": \"order_id\", \"type\": \"string\"},",
              "{\"name\": \"order_id\", \"type\": \"string\"}, {\"name\": \"channel\", \"type\": \"string\"},");

  /** A producer bug: quantity as text. */
  private static final String ORDER_BAD =
      ORDER_V1.replace("\"type\": \"int\"", "\"type\": \"string\"");

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private TestSchemaRegistry registry;

  @AfterEach
  void stopRegistry() throws Exception {
    if (registry != null) {
      registry.close();
    }
  }

  private PipelineSpec spec(String topic) {
    String yaml =
        """
        pipeline: avro-orders
        source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
        format:
          avro:
            registry: { url: "%s", basic-auth: "${SR_AUTH}", timeout: 5s }
            schema:
              order_id: string
              quantity: long
              amount: decimal(12,2)
              event_time: timestamp
              customer.name: string
            key: { customer_id: string }
        sink: { delta: { path: %s/table } }
        checkpoint: %s/checkpoint
        trigger: { available-now: true }
        """
            .formatted(broker.bootstrapServers(), topic, registry.url(), dir, dir);
    return PipelineParser.parse(
        yaml, "avro-orders.yaml", Map.of("SR_AUTH", "tributary:reg-secret"));
  }

  private void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private List<Object[]> table(String name) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(name).toString(), null)) {
      return TableContents.rows(store);
    }
  }

  private static GenericRecord order(Schema schema, int i) {
    GenericRecord customer = new GenericData.Record(schema.getField("customer").schema());
    customer.put("name", "customer " + i);
    customer.put("email", i % 2 == 0 ? null : "c" + i + "@example.com");
    GenericRecord r = new GenericData.Record(schema);
    r.put("order_id", "o-" + i);
    r.put("customer", customer);
    r.put(
        "quantity",
        schema.getField("quantity").schema().getType() == Schema.Type.LONG
            ? (Object) (long) i
            : schema.getField("quantity").schema().getType() == Schema.Type.STRING
                ? "many"
                : (Object) i);
    Schema amount = schema.getField("amount").schema();
    r.put(
        "amount",
        new Conversions.DecimalConversion()
            .toBytes(new BigDecimal(i + ".25"), amount, amount.getLogicalType()));
    r.put("event_time", 1_767_225_600_000_000L + i * 1_000_001L);
    if (schema.getField("channel") != null) {
      r.put("channel", "web");
    }
    return r;
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, byte[] key, byte[] value)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, 0, key, value)).get();
  }

  @Test
  void landsTheProducedRowsQuarantinesBadRecordsAndSurvivesARegistryOutage() throws Exception {
    registry =
        TestSchemaRegistry.startWith(
            dir.resolve("registry"), List.of("basic=tributary:reg-secret"));
    String topic = broker.createTopic("avro-orders", 1);
    Schema v1 = new Schema.Parser().parse(ORDER_V1);
    Schema v2 = new Schema.Parser().parse(ORDER_V2);
    Schema bad = new Schema.Parser().parse(ORDER_BAD);
    Schema key = new Schema.Parser().parse("\"string\"");
    int v1Id = registry.registerAvro(topic + "-value", ORDER_V1);
    int badId = registry.registerAvro(topic + "-bad-value", ORDER_BAD);
    int keyId = registry.registerAvro(topic + "-key", "\"string\"");
    Map<Long, String> expectedReasons = new TreeMap<>();
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < 20; i++) {
        send(
            producer,
            topic,
            AvroWire.encode(keyId, key, "c-" + i),
            AvroWire.encode(v1Id, v1, order(v1, i)));
      }
      send(producer, topic, null, "{\"order_id\": \"json\"}".getBytes(StandardCharsets.UTF_8));
      expectedReasons.put(20L, topic + "/0 offset 20: value: bad magic byte 0x7b");
      send(producer, topic, null, AvroWire.encode(4242, v1, order(v1, 21)));
      expectedReasons.put(
          21L,
          "value: schema id 4242 is not in the schema registry at " + registry.url() + " (404)");
      byte[] truncated = AvroWire.encode(v1Id, v1, order(v1, 22));
      send(producer, topic, null, Arrays.copyOf(truncated, truncated.length - 3));
      expectedReasons.put(22L, "value: the bytes do not decode with writer schema id " + v1Id);
      send(producer, topic, null, AvroWire.encode(badId, bad, order(bad, 23)));
      expectedReasons.put(
          23L,
          "value: field 'quantity': writer schema id "
              + badId
              + " has a string, which does not"
              + " fit the declared long");
    }

    run(spec(topic));

    List<Object[]> rows = table("table");
    rows.sort((a, b) -> Long.compare((Long) a[8], (Long) b[8]));
    assertThat(rows).hasSize(20);
    for (int i = 0; i < 20; i++) {
      Object[] row = rows.get(i);
      assertThat(Arrays.copyOf(row, 6))
          .as("row %d", i)
          .containsExactly(
              "o-" + i,
              (long) i,
              new BigDecimal(i + ".25"),
              Instant.ofEpochSecond(1_767_225_600L).plusNanos(i * 1_000_001_000L),
              new Object[] {"customer " + i},
              "c-" + i);
      assertThat(row[6]).isEqualTo(topic);
    }
    assertQuarantine(expectedReasons);

    // The next records carry a writer schema the pipeline has not seen, and the registry is down.
    int v2Id = registry.registerAvro(topic + "-value", ORDER_V2);
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 24; i < 34; i++) {
        send(
            producer,
            topic,
            AvroWire.encode(keyId, key, "c-" + i),
            AvroWire.encode(v2Id, v2, order(v2, i)));
      }
    }
    registry.stop();

    assertThatThrownBy(() -> run(spec(topic)))
        .isInstanceOf(BatchFailedException.class)
        .hasMessageContaining("Pipeline avro-orders: batch 1 (avro-orders")
        .satisfies(
            e ->
                assertThat(e.getCause())
                    .isInstanceOf(SchemaRegistryUnavailableException.class)
                    .hasMessageContaining(
                        "did not answer schema id "
                            + v2Id
                            + " after 5 attempts (last: ConnectException")
                    .hasMessageNotContaining("reg-secret"));
    assertThat(table("table")).as("nothing written while the registry is down").hasSize(20);
    assertQuarantine(expectedReasons);

    registry.start();
    run(spec(topic));

    List<Object[]> after = table("table");
    assertThat(after).hasSize(30);
    assertThat(after.stream().map(r -> (String) r[0]).toList())
        .containsAll(IntStream.range(24, 34).mapToObj(i -> "o-" + i).toList());
    assertQuarantine(expectedReasons);
  }

  private void assertQuarantine(Map<Long, String> expected) throws Exception {
    Map<Long, String> reasons = new TreeMap<>();
    for (Object[] q : table("table-quarantine")) {
      assertThat(reasons.put((Long) q[2], (String) q[6]))
          .as("offset %s quarantined once", q[2])
          .isNull();
    }
    assertThat(reasons.keySet()).isEqualTo(expected.keySet());
    expected.forEach((offset, reason) -> assertThat(reasons.get(offset)).contains(reason));
  }
}
