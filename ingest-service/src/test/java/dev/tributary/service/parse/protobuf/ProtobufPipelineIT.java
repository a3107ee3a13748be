package dev.tributary.service.parse.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code format.protobuf} pipeline from YAML against the real broker and the registry child
 * process: .proto schemas registered through the registry's API (one importing another subject's
 * file and a well-known type), records produced as DynamicMessages in the Confluent wire format.
 * The rows equal what was produced (value and key columns); bad records, including one whose schema
 * id is an Avro schema, are quarantined with their reasons.
 */
class ProtobufPipelineIT {
  private static final String CUSTOMER_PROTO =
      """
      syntax = "proto3";
      package shop.common;
      message Customer {
        string name = 1;
        string email = 2;
      }
      """;
  private static final String ORDER_PROTO =
      """
      syntax = "proto3";
      package shop;
      import "google/protobuf/timestamp.proto";
      import "shop/common/customer.proto";
      message Order {
        string order_id = 1;
        int32 quantity = 2;
        string amount = 3;
        google.protobuf.Timestamp event_time = 4;
        shop.common.Customer customer = 5;
        string channel = 6;
      }
      message Refund {
        string order_id = 1;
      }
      """;
  private static final String KEY_PROTO =
      """
      syntax = "proto3";
      package shop;
      message OrderKey { string customer_id = 1; }
      """;

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
        pipeline: protobuf-orders
        source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
        format:
          protobuf:
            message: shop.Order
            registry: { url: "%s", bearer-token: "${SR_TOKEN}", timeout: 5s }
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
    return PipelineParser.parse(yaml, "protobuf-orders.yaml", Map.of("SR_TOKEN", "proto-secret"));
  }

  private List<Object[]> table(String name) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(name).toString(), null)) {
      return TableContents.rows(store);
    }
  }

  private static byte[] wire(int id, ProtobufSchema schema, DynamicMessage m) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(ConfluentWireFormat.header(id));
    out.writeBytes(schema.indexesOf(m.getDescriptorForType()).toBytes());
    out.writeBytes(m.toByteArray());
    return out.toByteArray();
  }

  private static DynamicMessage order(ProtobufSchema schema, int i, String amount) {
    Descriptor d = schema.message("shop.Order").orElseThrow();
    Descriptor customer = d.findFieldByName("customer").getMessageType();
    return DynamicMessage.newBuilder(d)
        .setField(d.findFieldByName("order_id"), "o-" + i)
        .setField(d.findFieldByName("quantity"), i)
        .setField(d.findFieldByName("amount"), amount)
        .setField(
            d.findFieldByName("event_time"),
            Timestamp.newBuilder().setSeconds(1_767_225_600L + i).setNanos(i * 1000).build())
        .setField(
            d.findFieldByName("customer"),
            DynamicMessage.newBuilder(customer)
                .setField(customer.findFieldByName("name"), "customer " + i)
                .setField(customer.findFieldByName("email"), "c" + i + "@example.com")
                .build())
        .setField(d.findFieldByName("channel"), "web")
        .build();
  }

  private static DynamicMessage key(ProtobufSchema schema, int i) {
    Descriptor d = schema.message("shop.OrderKey").orElseThrow();
    return DynamicMessage.newBuilder(d)
        .setField(d.findFieldByName("customer_id"), "c-" + i)
        .build();
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, byte[] key, byte[] value)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, 0, key, value)).get();
  }

  @Test
  void landsTheProducedRowsAndQuarantinesBadRecordsAndSchemasOfAnotherType() throws Exception {
    registry =
        TestSchemaRegistry.startWith(dir.resolve("registry"), List.of("bearer=proto-secret"));
    String topic = broker.createTopic("protobuf-orders", 1);
    registry.register("shop-common-customer", "PROTOBUF", CUSTOMER_PROTO, Map.of());
    int orderId =
        registry.register(
            topic + "-value",
            "PROTOBUF",
            ORDER_PROTO,
            Map.of("shop/common/customer.proto", Map.entry("shop-common-customer", 1)));
    int keyId = registry.register(topic + "-key", "PROTOBUF", KEY_PROTO, Map.of());
    int avroId = registry.registerAvro(topic + "-avro-value", "\"string\"");
    ProtobufSchema orders =
        ProtobufSchema.compile(ORDER_PROTO, Map.of("shop/common/customer.proto", CUSTOMER_PROTO));
    ProtobufSchema keys = ProtobufSchema.compile(KEY_PROTO, Map.of());
    Descriptor refund = orders.message("shop.Refund").orElseThrow();

    Map<Long, String> expectedReasons = new TreeMap<>();
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < 20; i++) {
        send(
            producer,
            topic,
            wire(keyId, keys, key(keys, i)),
            wire(orderId, orders, order(orders, i, i + ".25")));
      }
      send(producer, topic, null, "{\"order_id\": \"json\"}".getBytes(StandardCharsets.UTF_8));
      expectedReasons.put(20L, topic + "/0 offset 20: value: bad magic byte 0x7b");
      send(producer, topic, null, wire(4242, orders, order(orders, 21, "1")));
      expectedReasons.put(
          21L,
          topic
              + "/0 offset 21: value: schema id 4242 is not in the schema registry at "
              + registry.url()
              + " (404)");
      byte[] good = wire(orderId, orders, order(orders, 22, "1"));
      send(producer, topic, null, Arrays.copyOf(good, good.length - 3));
      expectedReasons.put(
          22L,
          topic
              + "/0 offset 22: value: schema id "
              + orderId
              + ": could not decode the Protobuf payload as shop.Order");
      byte[] avroValue = new byte[] {0, 0, 0, 0, 0, 2, 'a'};
      System.arraycopy(ConfluentWireFormat.header(avroId), 0, avroValue, 0, 5);
      send(producer, topic, null, avroValue);
      expectedReasons.put(
          23L,
          topic + "/0 offset 23: value: schema id " + avroId + " is a AVRO schema, not Protobuf");
      send(
          producer,
          topic,
          null,
          wire(
              orderId,
              orders,
              DynamicMessage.newBuilder(refund)
                  .setField(refund.findFieldByName("order_id"), "r")
                  .build()));
      expectedReasons.put(
          24L,
          topic
              + "/0 offset 24: value: schema id "
              + orderId
              + ": the record is a shop.Refund"
              + " message, but format.protobuf.message is shop.Order");
      send(producer, topic, null, wire(orderId, orders, order(orders, 25, "lots")));
      expectedReasons.put(25L, topic + "/0 offset 25: value: schema id " + orderId + ": ");
      send(
          producer,
          topic,
          new byte[] {1, 0, 0, 0, 1, 0},
          wire(orderId, orders, order(orders, 26, "1")));
      expectedReasons.put(26L, topic + "/0 offset 26: key: bad magic byte 0x01");
    }

    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec(topic)),
            new TriggerSpec.AvailableNow(),
            new ProgressLog(100))) {
      run.run();
    }

    List<Object[]> rows = table("table");
    rows.sort((a, b) -> Long.compare((Long) a[8], (Long) b[8]));
    assertThat(rows).hasSize(20);
    for (int i = 0; i < 20; i++) {
      Object[] row = rows.get(i);
      assertThat(Arrays.copyOf(row, 7))
          .as("row %d", i)
          .containsExactly(
              "o-" + i,
              (long) i,
              new BigDecimal(i + ".25"),
              Instant.ofEpochSecond(1_767_225_600L + i, i * 1000L),
              new Object[] {"customer " + i},
              "c-" + i,
              topic);
      assertThat(row[8]).isEqualTo((long) i);
    }
    Map<Long, String> reasons = new TreeMap<>();
    for (Object[] q : table("table-quarantine")) {
      assertThat(reasons.put((Long) q[2], (String) q[6]))
          .as("offset %s quarantined once", q[2])
          .isNull();
    }
    assertThat(reasons.keySet()).isEqualTo(expectedReasons.keySet());
    expectedReasons.forEach(
        (offset, reason) ->
            assertThat(reasons.get(offset)).as("offset %d", offset).startsWith(reason));
    assertThat(reasons.get(25L)).contains("amount");
  }
}
