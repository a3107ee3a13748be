package dev.tributary.service.sink.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.parse.avro.AvroWire;
import dev.tributary.service.parse.protobuf.ProtobufSchema;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code columns: all} against a real broker and a real schema registry: two Debezium topics of a
 * database (customers and orders, other columns, other keys) land through one pipeline in one Delta
 * table per topic ({@code route: _kafka_topic}, {@code write: upsert} without {@code key}: each
 * table's key is its record key's fields), with snapshot reads, updates, deletes with and without
 * tombstones, and a writer schema v2 of customers adding {@code email}, which becomes a column of
 * that table only, null in older rows. A record whose key is not Avro is quarantined with the
 * reason.
 */
class ColumnsAllIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final S3TestServer s3 = S3TestServer.shared();
  private final String bucket = s3.createBucket();
  @TempDir Path dir;

  private final Map<String, Map<Long, String>> expected = new TreeMap<>();
  private long clock = 1_767_225_600_000L;

  private record Sent(String topic, byte[] key, byte[] value) {}

  private static String envelope(String table, String value) {
    return """
        {"type": "record", "name": "Envelope", "namespace": "db.public.%s", "fields": [
          {"name": "before", "type": ["null", %s], "default": null},
          {"name": "after", "type": ["null", "Value"], "default": null},
          {"name": "source", "type": {"type": "record", "name": "Source",
            "namespace": "io.debezium.connector.postgresql", "fields": [
            {"name": "connector", "type": "string"}, {"name": "ts_ms", "type": "long"}]}},
          {"name": "op", "type": "string"},
          {"name": "ts_ms", "type": ["null", "long"], "default": null}]}"""
        .formatted(table, value);
  }

  private static final String CUSTOMER_V1 =
      """
      {"type": "record", "name": "Value", "fields": [
        {"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"], "default": null}]}""";

  private static final String CUSTOMER_V2 =
      """
      {"type": "record", "name": "Value", "fields": [
        {"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"], "default": null},
        {"name": "email", "type": ["null", "string"], "default": null}]}""";

  private static final String ORDER =
      """
      {"type": "record", "name": "Value", "fields": [
        {"name": "order_id", "type": "long"}, {"name": "customer_id", "type": "long"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "placed_at", "type": {"type": "long", "connect.name": "io.debezium.time.MicroTimestamp"}}]}""";

  private static final String ORDER_V2 =
      """
      {"type": "record", "name": "Value", "fields": [
        {"name": "order_id", "type": "long"}, {"name": "customer_id", "type": "string"}]}""";

  private static String key(String table, String field) {
    return """
        {"type": "record", "name": "Key", "namespace": "db.public.%s", "fields": [
          {"name": "%s", "type": "long"}]}"""
        .formatted(table, field);
  }

  @Test
  void aDebeziumDatabaseLandsInOneTablePerTopicWithItsOwnColumnsKeyAndSchemaChange()
      throws Exception {
    String customers = broker.createTopic("cols-customers", 2);
    String orders = broker.createTopic("cols-orders", 2);
    try (TestSchemaRegistry registry = TestSchemaRegistry.start(dir.resolve("registry"))) {
      Schema c1 = new Schema.Parser().parse(envelope("customers", CUSTOMER_V1));
      Schema c2 = new Schema.Parser().parse(envelope("customers", CUSTOMER_V2));
      Schema o1 = new Schema.Parser().parse(envelope("orders", ORDER));
      Schema ck = new Schema.Parser().parse(key("customers", "id"));
      Schema ok = new Schema.Parser().parse(key("orders", "order_id"));
      int c1Id = registry.registerAvro(customers + "-value", envelope("customers", CUSTOMER_V1));
      int o1Id = registry.registerAvro(orders + "-value", envelope("orders", ORDER));
      int ckId = registry.registerAvro(customers + "-key", key("customers", "id"));
      int okId = registry.registerAvro(orders + "-key", key("orders", "order_id"));

      List<Sent> stream = new ArrayList<>();
      for (long id = 0; id < 6; id++) {
        stream.add(customer(customers, c1, c1Id, ck, ckId, id, "r", "snap" + id, null));
      }
      for (long id = 100; id < 106; id++) {
        stream.add(order(orders, o1, o1Id, ok, okId, id, "c", id % 6, id * 10 + 0.25));
      }
      stream.add(customer(customers, c1, c1Id, ck, ckId, 1, "u", "one", null));
      stream.add(customer(customers, c1, c1Id, ck, ckId, 2, "d", null, null));
      stream.add(new Sent(customers, avroKey(ck, ckId, "id", 2), null)); // its tombstone
      stream.add(order(orders, o1, o1Id, ok, okId, 101, "u", 1, 99.5));
      stream.add(order(orders, o1, o1Id, ok, okId, 102, "d", 2, 0));
      stream.add(new Sent(orders, "not-avro".getBytes(), null)); // a tombstone without Avro key
      send(stream);
      String yaml =
          """
          pipeline: cols
          source: { kafka: { bootstrap-servers: "%s", topics: [%s, %s] } }
          format:
            avro:
              registry: { url: "%s" }
              envelope: debezium
              columns: all
          sink:
            delta: { path: "s3://%s/lake/{route}", route: _kafka_topic, write: upsert }
          quarantine: { delta: { path: "s3://%s/quarantine" } }
          checkpoint: "s3://%s/checkpoint"
          storage:
            s3: { endpoint: "%s", region: us-east-1, path-style: true, access-key: "%s", secret-key: "%s" }
          """
              .formatted(
                  broker.bootstrapServers(),
                  customers,
                  orders,
                  registry.url(),
                  bucket,
                  bucket,
                  bucket,
                  s3.endpoint(),
                  S3TestServer.ACCESS_KEY,
                  S3TestServer.SECRET_KEY);
      PipelineSpec spec = PipelineParser.parse(yaml, "cols.yaml", Map.of());
      run(spec);
      assertThat(rows(customers, "id", "name")).isEqualTo(expected.get(customers).toString());
      assertThat(rows(orders, "order_id", "amount")).isEqualTo(expected.get(orders).toString());
      assertThat(columns(customers))
          .containsExactly(
              "id",
              "name",
              "_op",
              "_source_ts",
              "_kafka_topic",
              "_kafka_partition",
              "_kafka_offset",
              "_kafka_timestamp");
      assertThat(columns(orders)).startsWith("order_id", "customer_id", "amount", "placed_at");
      assertThat(typeOf(orders, "amount")).isEqualTo("decimal(10,2)");
      assertThat(typeOf(orders, "placed_at")).isEqualTo("timestamp");
      List<Object[]> quarantined = quarantine();
      assertThat(quarantined).hasSize(1);
      assertThat((String) quarantined.get(0)[6]).contains("key: ");

      // v2 of customers adds email: the customers table gains it, orders does not
      int c2Id = registry.registerAvro(customers + "-value", envelope("customers", CUSTOMER_V2));
      List<Sent> more = new ArrayList<>();
      more.add(customer(customers, c2, c2Id, ck, ckId, 3, "u", "three", "t@example.com"));
      more.add(customer(customers, c2, c2Id, ck, ckId, 7, "c", "seven", "s@example.com"));
      more.add(customer(customers, c1, c1Id, ck, ckId, 4, "u", "four", null)); // an old writer
      more.add(order(orders, o1, o1Id, ok, okId, 106, "c", 3, 1.5));
      // a writer schema that turns customer_id into a string: its record waits in the quarantine
      Schema o2 = new Schema.Parser().parse(envelope("orders", ORDER_V2));
      int o2Id = registry.registerAvro(orders + "-value", envelope("orders", ORDER_V2));
      GenericRecord changed =
          new GenericData.Record(o2.getField("after").schema().getTypes().get(1));
      changed.put("order_id", 107L);
      changed.put("customer_id", "c-3");
      more.add(
          new Sent(
              orders, avroKey(ok, okId, "order_id", 107), event(o2, o2Id, "c", changed, changed)));
      send(more);
      run(spec);
      assertThat(columns(customers)).endsWith("_kafka_timestamp", "email");
      assertThat(columns(orders)).doesNotContain("email");
      assertThat(rows(customers, "id", "name")).isEqualTo(expected.get(customers).toString());
      assertThat(rows(customers, "id", "email"))
          .isEqualTo("{0=null, 1=null, 3=t@example.com, 4=null, 5=null, 7=s@example.com}");
      assertThat(rows(orders, "order_id", "amount")).isEqualTo(expected.get(orders).toString());
      List<Object[]> reasons = quarantine();
      assertThat(reasons).hasSize(2);
      assertThat(reasons.stream().map(r -> (String) r[6]))
          .anyMatch(
              e ->
                  e.contains(
                          "field 'customer_id' of writer schema id "
                              + o2Id
                              + " is string, but column"
                              + " customer_id of the table at")
                      && e.contains("is long"));
    }
  }

  private static final String PROTO_V1 =
      """
      syntax = "proto3";
      package shop;
      import "google/protobuf/timestamp.proto";
      message Account {
        int64 id = 1;
        string owner = 2;
        google.protobuf.Timestamp opened = 3;
        repeated string tags = 4;
      }
      """;

  private static final String PROTO_V2 =
      PROTO_V1.replace(
          "repeated string tags = 4;", "repeated string tags = 4;\n  string email = 5;");

  private static final String PROTO_KEY =
      """
      syntax = "proto3";
      package shop;
      message AccountKey { int64 id = 1; }
      """;

  /**
   * Protobuf: a topic of {@code Account} messages keyed by {@code AccountKey} lands upserted by the
   * key's fields, with every singular field a column ({@code opened} a timestamp, {@code tags}
   * repeated: none); a v2 message adds {@code email}; a tombstone deletes its key.
   */
  @Test
  void aProtobufTopicLandsWithEveryMessageFieldItsRecordKeyAndANewField() throws Exception {
    String accounts = broker.createTopic("cols-accounts", 2);
    try (TestSchemaRegistry registry = TestSchemaRegistry.start(dir.resolve("registry"))) {
      int v1Id = registry.register(accounts + "-value", "PROTOBUF", PROTO_V1, Map.of());
      int keyId = registry.register(accounts + "-key", "PROTOBUF", PROTO_KEY, Map.of());
      ProtobufSchema v1 = ProtobufSchema.compile(PROTO_V1, Map.of());
      ProtobufSchema v2 = ProtobufSchema.compile(PROTO_V2, Map.of());
      ProtobufSchema key = ProtobufSchema.compile(PROTO_KEY, Map.of());
      List<Sent> stream = new ArrayList<>();
      for (long id = 1; id <= 4; id++) {
        stream.add(account(accounts, v1, v1Id, key, keyId, id, "o" + id, null));
      }
      stream.add(account(accounts, v1, v1Id, key, keyId, 2, "two", null));
      stream.add(new Sent(accounts, protoKey(key, keyId, 3), null)); // deletes 3
      send(stream);
      String yaml =
          """
          pipeline: cols-pb
          source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
          format:
            protobuf:
              registry: { url: "%s" }
              columns: all
          sink:
            delta: { path: "s3://%s/lake/{route}", route: _kafka_topic, write: upsert }
          quarantine: { delta: { path: "s3://%s/quarantine" } }
          checkpoint: "s3://%s/checkpoint-pb"
          storage:
            s3: { endpoint: "%s", region: us-east-1, path-style: true, access-key: "%s", secret-key: "%s" }
          """
              .formatted(
                  broker.bootstrapServers(),
                  accounts,
                  registry.url(),
                  bucket,
                  bucket,
                  bucket,
                  s3.endpoint(),
                  S3TestServer.ACCESS_KEY,
                  S3TestServer.SECRET_KEY);
      PipelineSpec spec = PipelineParser.parse(yaml, "cols-pb.yaml", Map.of());
      run(spec);
      assertThat(rows(accounts, "id", "owner")).isEqualTo("{1=o1, 2=two, 4=o4}");
      assertThat(columns(accounts)).startsWith("id", "owner", "opened", "_kafka_topic");
      assertThat(typeOf(accounts, "opened")).isEqualTo("timestamp");

      int v2Id = registry.register(accounts + "-value", "PROTOBUF", PROTO_V2, Map.of());
      send(
          List.of(
              account(accounts, v2, v2Id, key, keyId, 5, "o5", "five@example.com"),
              account(accounts, v1, v1Id, key, keyId, 1, "one", null)));
      run(spec);
      assertThat(columns(accounts)).endsWith("_kafka_timestamp", "email");
      assertThat(rows(accounts, "id", "owner")).isEqualTo("{1=one, 2=two, 4=o4, 5=o5}");
      assertThat(rows(accounts, "id", "email"))
          .isEqualTo("{1=null, 2=null, 4=null, 5=five@example.com}");
      assertThat(quarantine()).isEmpty();
    }
  }

  private Sent account(
      String topic,
      ProtobufSchema schema,
      int id,
      ProtobufSchema key,
      int keyId,
      long row,
      String owner,
      String email) {
    Descriptor d = schema.message("shop.Account").orElseThrow();
    DynamicMessage.Builder b =
        DynamicMessage.newBuilder(d)
            .setField(d.findFieldByName("id"), row)
            .setField(d.findFieldByName("owner"), owner)
            .setField(
                d.findFieldByName("opened"),
                Timestamp.newBuilder().setSeconds(clock / 1000).build())
            .addRepeatedField(d.findFieldByName("tags"), "t");
    if (email != null) {
      b.setField(d.findFieldByName("email"), email);
    }
    return new Sent(topic, protoKey(key, keyId, row), protoWire(id, b.build()));
  }

  private static byte[] protoKey(ProtobufSchema key, int keyId, long row) {
    Descriptor d = key.message("shop.AccountKey").orElseThrow();
    return protoWire(
        keyId, DynamicMessage.newBuilder(d).setField(d.findFieldByName("id"), row).build());
  }

  /** The Confluent framing of the first message of its schema: header, index list [0], message. */
  private static byte[] protoWire(int id, DynamicMessage message) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(ConfluentWireFormat.header(id));
    out.write(0);
    out.writeBytes(message.toByteArray());
    return out.toByteArray();
  }

  private Sent customer(
      String topic,
      Schema envelope,
      int id,
      Schema key,
      int keyId,
      long row,
      String op,
      String name,
      String email) {
    Schema value = envelope.getField("after").schema().getTypes().get(1);
    GenericRecord now = new GenericData.Record(value);
    now.put("id", row);
    now.put("name", name);
    if (value.getField("email") != null) {
      now.put("email", email);
    }
    GenericRecord old = new GenericData.Record(value);
    old.put("id", row);
    old.put("name", "old");
    Map<Long, String> table = expected.computeIfAbsent(topic, t -> new TreeMap<>());
    if (op.equals("d")) {
      table.remove(row);
    } else {
      table.put(row, name);
    }
    return new Sent(topic, avroKey(key, keyId, "id", row), event(envelope, id, op, old, now));
  }

  private Sent order(
      String topic,
      Schema envelope,
      int id,
      Schema key,
      int keyId,
      long row,
      String op,
      long customer,
      double amount) {
    Schema value = envelope.getField("after").schema().getTypes().get(1);
    GenericRecord now = new GenericData.Record(value);
    now.put("order_id", row);
    now.put("customer_id", customer);
    java.math.BigDecimal decimal = java.math.BigDecimal.valueOf(amount).setScale(2);
    now.put("amount", java.nio.ByteBuffer.wrap(decimal.unscaledValue().toByteArray()));
    now.put("placed_at", clock * 1000);
    Map<Long, String> table = expected.computeIfAbsent(topic, t -> new TreeMap<>());
    if (op.equals("d")) {
      table.remove(row);
    } else {
      table.put(row, decimal.toPlainString());
    }
    return new Sent(topic, avroKey(key, keyId, "order_id", row), event(envelope, id, op, now, now));
  }

  private byte[] event(
      Schema envelope, int id, String op, GenericRecord before, GenericRecord after) {
    clock += 1000;
    GenericRecord e = new GenericData.Record(envelope);
    e.put("before", op.equals("c") || op.equals("r") ? null : before);
    e.put("after", op.equals("d") ? null : after);
    GenericRecord source = new GenericData.Record(envelope.getField("source").schema());
    source.put("connector", "postgresql");
    source.put("ts_ms", clock);
    e.put("source", source);
    e.put("op", op);
    e.put("ts_ms", clock + 7);
    return AvroWire.encode(id, envelope, e);
  }

  private static byte[] avroKey(Schema key, int keyId, String field, long id) {
    GenericRecord k = new GenericData.Record(key);
    k.put(field, id);
    return AvroWire.encode(keyId, key, k);
  }

  private void send(List<Sent> records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<?>> sent = new ArrayList<>();
      for (Sent r : records) {
        // Debezium keys by the primary key: one key, one partition
        int partition = Math.floorMod(java.util.Arrays.hashCode(r.key()), 2);
        sent.add(producer.send(new ProducerRecord<>(r.topic(), partition, r.key(), r.value())));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    }
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private ObjectStore table(String topic) throws Exception {
    return ObjectStores.open("s3://" + bucket + "/lake/" + topic, s3.settings());
  }

  /** The table's rows as {key=column}, keys once each. */
  private String rows(String topic, String key, String column) throws Exception {
    try (ObjectStore store = table(topic)) {
      List<String> names = columns(topic);
      int k = names.indexOf(key);
      int c = names.indexOf(column);
      Map<Long, String> rows = new TreeMap<>();
      for (Object[] r : TableContents.rows(store)) {
        Object v = r[c];
        String was =
            rows.put(
                (Long) r[k],
                v instanceof java.math.BigDecimal d ? d.toPlainString() : String.valueOf(v));
        assertThat(was).as("key %s once", r[k]).isNull();
      }
      return rows.toString();
    }
  }

  private List<String> columns(String topic) throws Exception {
    try (ObjectStore store = table(topic)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().schema().fieldNames();
    }
  }

  private String typeOf(String topic, String column) throws Exception {
    try (ObjectStore store = table(topic)) {
      return DeltaTable.open(store, TableOptions.defaults())
          .snapshot()
          .schema()
          .field(column)
          .orElseThrow()
          .type()
          .deltaName();
    }
  }

  private List<Object[]> quarantine() throws Exception {
    try (ObjectStore q = ObjectStores.open("s3://" + bucket + "/quarantine", s3.settings())) {
      return q.list("_delta_log/").isEmpty() ? List.of() : TableContents.rows(q);
    }
  }
}
