package dev.tributary.service.parse.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.parse.avro.AvroWire;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * A Debezium-style change stream from a real broker into {@code write: upsert}: a snapshot ({@code
 * op r}), then creates, updates and deletes (with or without their tombstone), with transaction
 * boundaries and a heartbeat on the same topic; the table equals the last value of every key with
 * its operation and source time, the control events are counted as filtered, nothing is
 * quarantined. JSON with the converter's schema wrapper (value and key), and Avro through a
 * registry. A truncate fails the run naming the record until {@code on-truncate: skip}.
 */
class DebeziumUpsertIT {
  private static final int PARTITIONS = 3;
  private static final long TS = 1_767_225_600_000L;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  /** The expected table: id to "name/op/source ms". */
  private final Map<Long, String> expected = new TreeMap<>();

  private long clock = TS;
  private final long[] sentTo = new long[PARTITIONS];

  /** One record to send; a null value is a tombstone. */
  private record Sent(int partition, byte[] key, byte[] value) {}

  @Test
  void aJsonChangeStreamLandsAsTheLastValuePerKeyAndATruncateStopsIt() throws Exception {
    String topic = broker.createTopic("dbz-json", PARTITIONS);
    List<Sent> stream = new ArrayList<>();
    stream.add(new Sent(0, null, bytes(wrapped("{\"status\":\"BEGIN\",\"id\":\"571\"}"))));
    stream.add(new Sent(1, null, bytes(wrapped("{\"ts_ms\":" + TS + "}"))));
    for (long id = 0; id < 30; id++) {
      stream.add(jsonChange(id, "r", "snap" + id));
    }
    Random random = new Random(22);
    for (int i = 0; i < 400; i++) {
      long id = random.nextInt(45);
      int dice = random.nextInt(10);
      if (!expected.containsKey(id)) {
        stream.add(jsonChange(id, "c", "new" + i));
      } else if (dice == 0) {
        stream.add(jsonChange(id, "d", null));
        stream.add(new Sent(partition(id), jsonKey(id), null)); // the delete's tombstone
      } else if (dice == 1) {
        stream.add(jsonChange(id, "d", null)); // tombstones.on.delete=false: _op = 'd' deletes
      } else {
        stream.add(jsonChange(id, "u", "v" + i));
      }
    }
    stream.add(
        new Sent(
            2,
            null,
            bytes(
                wrapped(
                    "{\"status\":\"END\",\"id\":\"571\",\"event_count\":430,\"data_collections\":"
                        + "[{\"data_collection\":\"public.customers\",\"event_count\":430}]}"))));
    send(topic, stream);
    ProgressLog progress = new ProgressLog(1000);
    run(jsonSpec(topic, "fail"), progress);
    assertTable();
    assertThat(progress.last(1000).stream().mapToLong(BatchProgress::filteredRows).sum())
        .as("BEGIN, END and the heartbeat are counted, not written")
        .isEqualTo(3);

    // A truncate on partition 2 stops the pipeline, naming it; the update after it waits.
    List<Long> before = List.copyOf(expected.keySet());
    long kept = before.get(0);
    List<Sent> more = new ArrayList<>();
    more.add(new Sent(2, null, bytes(wrapped(event("t", null, null)))));
    more.add(jsonChange(kept, "u", "after-truncate"));
    String beforeTruncate = table();
    long truncateOffset = sentTo[2]; // the topic is new: offsets count what was sent
    send(topic, more);
    assertThatThrownBy(() -> run(jsonSpec(topic, "fail"), new ProgressLog(10)))
        .hasStackTraceContaining(
            "Pipeline dbz-json: "
                + topic
                + "/2 offset "
                + truncateOffset
                + " is a Debezium truncate event (op t)")
        .hasStackTraceContaining("set format.json.on-truncate: skip");
    assertThat(table()).as("nothing of the failed batch was written").isEqualTo(beforeTruncate);

    ProgressLog skipping = new ProgressLog(1000);
    run(jsonSpec(topic, "skip"), skipping);
    assertTable();
    assertThat(skipping.last(1000).stream().mapToLong(BatchProgress::filteredRows).sum())
        .as("the skipped truncate is counted")
        .isEqualTo(1);
  }

  @Test
  void anAvroChangeStreamFromTheRegistryLandsAsTheLastValuePerKey() throws Exception {
    String topic = broker.createTopic("dbz-avro", PARTITIONS);
    try (TestSchemaRegistry registry = TestSchemaRegistry.start(dir.resolve("registry"))) {
      Schema envelope = new Schema.Parser().parse(AVRO_ENVELOPE);
      Schema key = new Schema.Parser().parse(AVRO_KEY);
      int envelopeId = registry.registerAvro(topic + "-value", AVRO_ENVELOPE);
      int keyId = registry.registerAvro(topic + "-key", AVRO_KEY);
      List<Sent> stream = new ArrayList<>();
      Random random = new Random(7);
      for (long id = 0; id < 20; id++) {
        stream.add(avroChange(envelope, envelopeId, key, keyId, id, "r", "snap" + id));
      }
      for (int i = 0; i < 200; i++) {
        long id = random.nextInt(30);
        if (!expected.containsKey(id)) {
          stream.add(avroChange(envelope, envelopeId, key, keyId, id, "c", "new" + i));
        } else if (random.nextInt(8) == 0) {
          stream.add(avroChange(envelope, envelopeId, key, keyId, id, "d", null));
          stream.add(new Sent(partition(id), avroKey(key, keyId, id), null));
        } else {
          stream.add(avroChange(envelope, envelopeId, key, keyId, id, "u", "v" + i));
        }
      }
      send(topic, stream);
      String yaml =
          """
          pipeline: dbz-avro
          source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
          format:
            avro:
              registry: { url: "%s" }
              envelope: debezium
              schema: { id: long, name: string }
          sink: { delta: { path: %s/table, write: upsert, key: [id] } }
          quarantine: { delta: { path: %s/quarantine } }
          checkpoint: %s/checkpoint
          """
              .formatted(broker.bootstrapServers(), topic, registry.url(), dir, dir, dir);
      run(PipelineParser.parse(yaml, "dbz-avro.yaml", Map.of()), new ProgressLog(100));
      assertTable();
    }
  }

  // ---- JSON events, as the JSON converter with schemas.enable=true writes them ----

  private Sent jsonChange(long id, String op, String name) {
    String row = name == null ? null : "{\"id\":" + id + ",\"name\":\"" + name + "\"}";
    String old = "{\"id\":" + id + ",\"name\":\"old\"}";
    String value =
        switch (op) {
          case "d" -> event(op, old, null);
          case "u" -> event(op, old, row);
          default -> event(op, null, row);
        };
    return new Sent(partition(id), jsonKey(id), bytes(wrapped(value)));
  }

  private String event(String op, String before, String after) {
    clock += 1000;
    record(op, before, after);
    return "{\"before\":%s,\"after\":%s,\"source\":{\"version\":\"2.5.0\",\"connector\":\"postgresql\",\"ts_ms\":%d,\"lsn\":%d},\"op\":\"%s\",\"ts_ms\":%d,\"transaction\":{\"id\":\"571\",\"total_order\":1,\"data_collection_order\":1}}"
        .formatted(before, after, clock, clock, op, clock + 7);
  }

  /** What a change does to the expected table (JSON rows are parsed back from their text). */
  private void record(String op, String before, String after) {
    if (op.equals("t")) {
      return;
    }
    String row = op.equals("d") ? before : after;
    long id = Long.parseLong(row.replaceAll(".*\"id\":(\\d+).*", "$1"));
    if (op.equals("d")) {
      expected.remove(id);
    } else {
      String name = row.replaceAll(".*\"name\":\"([^\"]*)\".*", "$1");
      expected.put(id, name + "/" + op + "/" + clock);
    }
  }

  private static String wrapped(String payload) {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":false,"
        + "\"name\":\"dbserver1.public.customers.Envelope\"},\"payload\":"
        + payload
        + "}";
  }

  private static byte[] jsonKey(long id) {
    return bytes(
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"optional\":false,"
            + "\"field\":\"id\"}],\"optional\":false,\"name\":\"dbserver1.public.customers.Key\"},"
            + "\"payload\":{\"id\":"
            + id
            + "}}");
  }

  private PipelineSpec jsonSpec(String topic, String onTruncate) {
    String yaml =
        """
        pipeline: dbz-json
        source:
          kafka:
            bootstrap-servers: "%s"
            topics: [%s]
            max-offsets-per-trigger: 150
        format:
          json:
            envelope: debezium
            on-truncate: %s
            schema: { id: long, name: string }
        sink: { delta: { path: %s/table, write: upsert, key: [id] } }
        quarantine: { delta: { path: %s/quarantine } }
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, onTruncate, dir, dir, dir);
    return PipelineParser.parse(yaml, "dbz-json.yaml", Map.of());
  }

  // ---- Avro events: the Envelope record with before/after unions of the Value record ----

  private static final String AVRO_VALUE =
      """
      {"type": "record", "name": "Value", "namespace": "dbserver1.public.customers", "fields": [
        {"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"], "default": null}]}""";

  private static final String AVRO_ENVELOPE =
      """
      {"type": "record", "name": "Envelope", "namespace": "dbserver1.public.customers",
       "connect.name": "dbserver1.public.customers.Envelope", "fields": [
        {"name": "before", "type": ["null", %s], "default": null},
        {"name": "after", "type": ["null", "Value"], "default": null},
        {"name": "source", "type": {"type": "record", "name": "Source",
          "namespace": "io.debezium.connector.postgresql", "fields": [
          {"name": "version", "type": "string"}, {"name": "connector", "type": "string"},
          {"name": "ts_ms", "type": "long"}, {"name": "lsn", "type": ["null", "long"], "default": null}]}},
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": null},
        {"name": "transaction", "type": ["null", {"type": "record", "name": "block",
          "namespace": "event", "fields": [{"name": "id", "type": "string"},
          {"name": "total_order", "type": "long"}, {"name": "data_collection_order", "type": "long"}]}],
         "default": null}]}"""
          .formatted(AVRO_VALUE);

  private static final String AVRO_KEY =
      """
      {"type": "record", "name": "Key", "namespace": "dbserver1.public.customers", "fields": [
        {"name": "id", "type": "long"}]}""";

  private Sent avroChange(
      Schema envelope, int envelopeId, Schema key, int keyId, long id, String op, String name) {
    clock += 1000;
    Schema value = envelope.getField("after").schema().getTypes().get(1);
    GenericRecord e = new GenericData.Record(envelope);
    GenericRecord old = new GenericData.Record(value);
    old.put("id", id);
    old.put("name", "old");
    GenericRecord now = new GenericData.Record(value);
    now.put("id", id);
    now.put("name", name);
    e.put("before", op.equals("c") || op.equals("r") ? null : old);
    e.put("after", op.equals("d") ? null : now);
    GenericRecord source = new GenericData.Record(envelope.getField("source").schema());
    source.put("version", "2.5.0");
    source.put("connector", "postgresql");
    source.put("ts_ms", clock);
    e.put("source", source);
    e.put("op", op);
    e.put("ts_ms", clock + 7);
    if (op.equals("d")) {
      expected.remove(id);
    } else {
      expected.put(id, name + "/" + op + "/" + clock);
    }
    return new Sent(
        partition(id), avroKey(key, keyId, id), AvroWire.encode(envelopeId, envelope, e));
  }

  private static byte[] avroKey(Schema key, int keyId, long id) {
    GenericRecord k = new GenericData.Record(key);
    k.put("id", id);
    return AvroWire.encode(keyId, key, k);
  }

  // ---- the broker, the run and the table ----

  /** Debezium's records of one row share a key, so one partition (as the default partitioner). */
  private static int partition(long id) {
    return (int) (id % PARTITIONS);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private void send(String topic, List<Sent> records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<?>> sent = new ArrayList<>();
      for (Sent r : records) {
        sentTo[r.partition()]++;
        sent.add(producer.send(new ProducerRecord<>(topic, r.partition(), r.key(), r.value())));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    }
  }

  private static void run(PipelineSpec spec, ProgressLog progress) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
  }

  private String table() throws Exception {
    try (ObjectStore table = ObjectStores.open(dir.resolve("table").toString(), null)) {
      Map<Long, String> rows = new TreeMap<>();
      for (Object[] r : TableContents.rows(table)) {
        String was =
            rows.put((Long) r[0], r[1] + "/" + r[2] + "/" + ((Instant) r[3]).toEpochMilli());
        assertThat(was).as("id %s once", r[0]).isNull();
      }
      return rows.toString();
    }
  }

  private void assertTable() throws Exception {
    assertThat(table()).isEqualTo(expected.toString());
    try (ObjectStore quarantine = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      assertThat(
              quarantine.list("_delta_log/").isEmpty() ? List.of() : TableContents.rows(quarantine))
          .as("nothing quarantined")
          .isEmpty();
    }
  }
}
