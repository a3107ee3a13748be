package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One record must never stop a pipeline: a corpus of poison records (values that parse but cannot
 * be written, or cannot enter state) mixed with good ones, against the real broker into local-disk
 * tables. The run must finish; every good record must be in the sink (or in its aggregate) and
 * every poison record in the quarantine table exactly once, with a reason naming the field. Before
 * this test, the first three kinds (an epoch in nanoseconds, a NUL or an over-long partition value)
 * failed the whole batch on every retry.
 */
class PoisonPillIT {
  private static final int PER_BATCH = 40;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  /**
   * A record to send: key, value (null = tombstone), Kafka timestamp (null = now), and the expected
   * reason.
   */
  private record Rec(byte[] key, byte[] value, Long kafkaTimestamp, String reason) {
    static Rec good(String json) {
      return new Rec(null, json.getBytes(StandardCharsets.UTF_8), null, null);
    }

    static Rec poison(String json, String reason) {
      return new Rec(
          "poison".getBytes(StandardCharsets.UTF_8),
          json.getBytes(StandardCharsets.UTF_8),
          null,
          reason);
    }

    Rec withKey(byte[] k) {
      return new Rec(k, value, kafkaTimestamp, reason);
    }
  }

  /**
   * Sends in order to partition 0 (so offsets are list positions) and returns the records by
   * offset.
   */
  private Map<Long, Rec> send(String topic, List<Rec> records) throws Exception {
    Map<Long, Rec> byOffset = new TreeMap<>();
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (Rec r : records) {
        sent.add(
            producer.send(new ProducerRecord<>(topic, 0, r.kafkaTimestamp(), r.key(), r.value())));
      }
      for (int i = 0; i < sent.size(); i++) {
        byOffset.put(sent.get(i).get().offset(), records.get(i));
      }
    }
    return byOffset;
  }

  /**
   * Kafka 4 refuses timestamps over an hour ahead by default; producers can still be configured to.
   */
  private void acceptAnyTimestamp(String topic) throws Exception {
    try (Admin admin = broker.admin()) {
      var resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      var op =
          new AlterConfigOp(
              new ConfigEntry("message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE)),
              AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get();
    }
  }

  private void runAvailableNow(PipelineSpec spec) throws Exception {
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

  /** Every poison offset is quarantined exactly once with its reason; nothing else is. */
  private void assertQuarantine(Map<Long, Rec> sent, String pipeline) throws Exception {
    Map<Long, List<Object[]>> quarantined = new HashMap<>();
    for (Object[] q : table("table-quarantine")) {
      quarantined.computeIfAbsent((Long) q[2], k -> new ArrayList<>()).add(q);
    }
    Set<Long> poison = new TreeSet<>();
    sent.forEach(
        (offset, r) -> {
          if (r.reason() != null) {
            poison.add(offset);
          }
        });
    assertThat(new TreeSet<>(quarantined.keySet())).as("quarantined offsets").isEqualTo(poison);
    for (long offset : poison) {
      Rec r = sent.get(offset);
      assertThat(quarantined.get(offset)).as("offset %d quarantined once", offset).hasSize(1);
      Object[] q = quarantined.get(offset).get(0);
      assertThat((String) q[6]).as("reason of offset %d", offset).contains(r.reason());
      assertThat((byte[]) q[4]).as("key of offset %d", offset).isEqualTo(r.key());
      assertThat((byte[]) q[5]).as("value of offset %d", offset).isEqualTo(r.value());
      assertThat(q[7]).isEqualTo(pipeline);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Stateless, partitioned

  private PipelineSpec statelessSpec(String name, String topic) {
    String yaml =
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
        format:
          json:
            schema:
              id: long
              region: string
              event_time: timestamp
              created: timestamp(nanos)
              price: decimal(6,2)
              day: date
              note: string
              score: double
        transform:
          - derive: { id_time: "CAST(id AS timestamp)" }
        sink:
          delta: { path: %s/table, partition-by: [region] }
        checkpoint: %s/checkpoint
        """
            .formatted(name, broker.bootstrapServers(), topic, PER_BATCH, dir, dir);
    return PipelineParser.parse(yaml, name + ".yaml", Map.of());
  }

  private static String goodStateless(int id) {
    String region = id % 5 == 0 ? "null" : id % 2 == 0 ? "\"eu\"" : "\"us west/1\"";
    return "{\"id\":"
        + id
        + ",\"region\":"
        + region
        + ",\"event_time\":\"2026-01-01T00:00:"
        + String.format("%02d", id % 60)
        + "Z\",\"created\":1767225600123456789,\"price\":\"12.50\",\"day\":\"2026-01-01\","
        + "\"note\":\"n-"
        + id
        + " \\ud83d\\ude00\",\"score\":"
        + (id / 4.0)
        + "}";
  }

  private static List<Rec> statelessPoison() {
    List<Rec> p = new ArrayList<>();
    // (a) epoch nanoseconds in a millisecond column: "long overflow", no offset named, before
    p.add(
        Rec.poison(
            "{\"id\":1001,\"region\":\"eu\",\"event_time\":1767225600123456789}",
            "field 'event_time'"));
    // (b) a NUL in a partition value
    p.add(Rec.poison("{\"id\":1002,\"region\":\"E\\u0000U\"}", "partition column 'region'"));
    // (c) a partition directory name over 255 bytes
    p.add(
        Rec.poison(
            "{\"id\":1003,\"region\":\"" + "x".repeat(300) + "\"}", "partition column 'region'"));
    p.add(
        Rec.poison(
            "{\"id\":1004,\"region\":\"eu\",\"event_time\":\"0000-06-01T00:00:00Z\"}",
            "field 'event_time'"));
    p.add(
        Rec.poison(
            "{\"id\":1005,\"region\":\"eu\",\"event_time\":253402300800000}",
            "field 'event_time'"));
    p.add(
        Rec.poison(
            "{\"id\":1006,\"region\":\"eu\",\"created\":99999999999999999999}", "field 'created'"));
    p.add(Rec.poison("{\"id\":1007,\"region\":\"eu\",\"price\":1.005}", "field 'price'"));
    p.add(Rec.poison("{\"id\":1008,\"region\":\"eu\",\"price\":\"12345.6\"}", "field 'price'"));
    p.add(Rec.poison("{\"id\":1e30}", "field 'id'"));
    p.add(
        Rec.poison(
            "{\"id\":1010,\"region\":\"eu\",\"note\":\"bad \\ud800 half\"}", "column 'note'"));
    p.add(Rec.poison("{\"id\":1011,\"region\":\"\\udc00\"}", "column 'region'"));
    p.add(Rec.poison("{\"id\":1012,\"day\":\"0000-01-01\"}", "field 'day'"));
    p.add(Rec.poison("{\"id\":1013,\"score\":1e400}", "field 'score'"));
    p.add(Rec.poison("{\"id\":1014,\"score\":NaN}", "malformed JSON"));
    p.add(
        Rec.poison(
            "{\"id\":1015,\"deep\":" + "[".repeat(3000) + "]".repeat(3000) + "}",
            "malformed JSON"));
    // a derived timestamp beyond the year 9999 (300000000000 epoch seconds)
    p.add(Rec.poison("{\"id\":300000000000,\"region\":\"eu\"}", "column 'id_time'"));
    // a producer-set Kafka timestamp in the year 10000
    p.add(
        new Rec(
            null,
            "{\"id\":1017,\"region\":\"eu\"}".getBytes(StandardCharsets.UTF_8),
            253402300800000L,
            "column '_kafka_timestamp'"));
    p.add(new Rec("tomb".getBytes(StandardCharsets.UTF_8), null, null, "record value is null"));
    p.add(
        new Rec(
            null,
            new byte[] {
              '{', '"', 'n', 'o', 't', 'e', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'
            },
            null,
            "malformed JSON"));
    return p;
  }

  @Test
  void aStatelessPartitionedPipelineQuarantinesEveryPoisonRecordAndWritesEveryGoodOne()
      throws Exception {
    String topic = broker.createTopic("poison-stateless", 1);
    acceptAnyTimestamp(topic);
    List<Rec> corpus = new ArrayList<>();
    List<Rec> poison = statelessPoison();
    Set<Long> goodIds = new HashSet<>();
    int p = 0;
    for (int id = 0; id < 120; id++) {
      Rec good = Rec.good(goodStateless(id));
      // empty and null keys are ordinary keys
      corpus.add(id % 3 == 0 ? good.withKey(new byte[0]) : good);
      goodIds.add((long) id);
      if (id % 6 == 5 && p < poison.size()) {
        corpus.add(poison.get(p++));
      }
    }
    while (p < poison.size()) {
      corpus.add(poison.get(p++));
    }
    Map<Long, Rec> sent = send(topic, corpus);

    runAvailableNow(statelessSpec("poison-stateless", topic));

    List<Object[]> rows = table("table");
    List<Long> ids = rows.stream().map(r -> (Long) r[0]).toList();
    assertThat(ids).doesNotHaveDuplicates();
    assertThat(new HashSet<>(ids)).isEqualTo(goodIds);
    for (Object[] r : rows) {
      long id = (Long) r[0];
      assertThat(r[1]).isEqualTo(id % 5 == 0 ? null : id % 2 == 0 ? "eu" : "us west/1");
      assertThat(r[3]).isEqualTo(Instant.parse("2026-01-01T00:00:00.123456Z"));
      assertThat(r[6]).isEqualTo("n-" + id + " \uD83D\uDE00");
    }
    assertQuarantine(sent, "poison-stateless");
    Object[] kafkaTimestampRow =
        table("table-quarantine").stream()
            .filter(q -> ((String) q[6]).contains("_kafka_timestamp"))
            .findFirst()
            .orElseThrow();
    assertThat(kafkaTimestampRow[3]).as("an unwritable Kafka timestamp is stored as null").isNull();
  }

  // ---------------------------------------------------------------------------------------------
  // Stateful: dedup + window aggregation

  private PipelineSpec statefulSpec(String topic) {
    String yaml =
        """
        pipeline: poison-stateful
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
        format:
          json:
            schema:
              event_id: string
              user_id: string
              region: string
              event_ts: timestamp
              amount: decimal(10,2)
              note: string
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, event_ts] }
        aggregate:
          window: { column: event_ts, size: 1 hour }
          group-by: [region]
          measures: { n: count(), total: sum(amount), users: count_distinct(user_id), first_user: min(user_id) }
        output-mode: complete
        sink:
          delta: { path: %s/table, partition-by: [region] }
        late-events:
          delta: { path: %s/late }
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, PER_BATCH, dir, dir, dir);
    return PipelineParser.parse(yaml, "poison-stateful.yaml", Map.of());
  }

  private record Event(String id, String user, String region, Instant ts, BigDecimal amount) {
    String json() {
      return "{\"event_id\":"
          + (id == null ? "null" : "\"" + id + "\"")
          + ",\"user_id\":\""
          + user
          + "\",\"region\":"
          + (region == null ? "null" : "\"" + region + "\"")
          + ",\"event_ts\":\""
          + ts
          + "\",\"amount\":"
          + amount.toPlainString()
          + "}";
    }
  }

  private static List<Rec> statefulPoison() {
    List<Rec> p = new ArrayList<>();
    p.add(
        Rec.poison(
            "{\"event_id\":\"p1\",\"region\":\"eu\",\"event_ts\":1767225600123456789}",
            "field 'event_ts'"));
    p.add(
        Rec.poison(
            "{\"event_id\":\"p2\",\"region\":\"E\\u0000U\",\"event_ts\":\"2026-01-01T00:10:00Z\"}",
            "partition column 'region'"));
    p.add(
        Rec.poison(
            "{\"event_id\":\"p3\",\"region\":\""
                + "x".repeat(300)
                + "\",\"event_ts\":\"2026-01-01T00:10:00Z\"}",
            "partition column 'region'"));
    p.add(
        Rec.poison(
            "{\"event_id\":\"p4\\ud800\",\"region\":\"eu\",\"event_ts\":\"2026-01-01T00:10:00Z\"}",
            "column 'event_id'"));
    p.add(
        Rec.poison(
            "{\"event_id\":\"p5\",\"user_id\":\"\\udc00\",\"region\":\"eu\",\"event_ts\":\"2026-01-01T00:10:00Z\"}",
            "column 'user_id'"));
    // a window ending in the year 10000; it must not move the watermark either
    p.add(
        Rec.poison(
            "{\"event_id\":\"p6\",\"region\":\"eu\",\"event_ts\":\"9999-12-31T23:30:00Z\"}",
            "window_end"));
    p.add(
        Rec.poison(
            "{\"event_id\":\"p7\",\"region\":\"eu\",\"event_ts\":\"2026-01-01T00:10:00Z\",\"amount\":123456789012.5}",
            "field 'amount'"));
    p.add(
        Rec.poison(
            "{\"event_id\":\"p8\",\"region\":\"eu\",\"event_ts\":\"0000-01-01T00:00:00Z\"}",
            "field 'event_ts'"));
    p.add(new Rec(null, null, null, "record value is null"));
    return p;
  }

  @Test
  void aStatefulPipelineQuarantinesPoisonBeforeItEntersStateAndAggregatesEveryGoodRecord()
      throws Exception {
    String topic = broker.createTopic("poison-stateful", 1);
    Instant base = Instant.parse("2026-01-01T00:00:00Z");
    List<Event> unique = new ArrayList<>();
    List<Rec> corpus = new ArrayList<>();
    List<Rec> poison = statefulPoison();
    int p = 0;
    for (int k = 0; k < 80; k++) {
      String region = k % 3 == 0 ? "eu" : k % 3 == 1 ? "us" : null;
      Event e =
          new Event(
              k == 17 ? null : "e" + k,
              "u" + (k % 7),
              region,
              base.plusSeconds(k * 90L),
              new BigDecimal(k + ".25"));
      unique.add(e);
      corpus.add(Rec.good(e.json()));
      if (k % 5 == 0) {
        corpus.add(Rec.good(e.json())); // a duplicate, dropped by dedup
      }
      if (k % 8 == 7 && p < poison.size()) {
        corpus.add(poison.get(p++));
      }
    }
    while (p < poison.size()) {
      corpus.add(poison.get(p++));
    }
    // Behind the watermark by now: a late row goes whole to the late-events table, so a column the
    // query does not use must be writable too.
    corpus.add(
        Rec.good(
            "{\"event_id\":\"late\",\"region\":\"eu\",\"event_ts\":\"2026-01-01T00:00:00Z\",\"note\":\"ok\"}"));
    corpus.add(
        Rec.poison(
            "{\"event_id\":\"late2\",\"region\":\"eu\",\"event_ts\":\"2026-01-01T00:00:00Z\","
                + "\"note\":\"\\ud800\"}",
            "column 'note'"));
    Map<Long, Rec> sent = send(topic, corpus);

    runAvailableNow(statefulSpec(topic));

    assertThat(table("late")).extracting(r -> r[0]).containsExactly("late");
    // window_start, window_end, region, n, total, users, first_user
    Map<List<Object>, List<Object>> expected = new LinkedHashMap<>();
    Map<List<Object>, Set<String>> users = new HashMap<>();
    for (Event e : unique) {
      Instant start =
          Instant.ofEpochSecond(
              e.ts().getEpochSecond() - Math.floorMod(e.ts().getEpochSecond(), 3600));
      List<Object> key = Arrays.asList(start, start.plus(Duration.ofHours(1)), e.region());
      List<Object> agg =
          expected.computeIfAbsent(
              key, k -> new ArrayList<>(Arrays.asList(0L, BigDecimal.ZERO, 0L, null)));
      agg.set(0, (Long) agg.get(0) + 1);
      agg.set(1, ((BigDecimal) agg.get(1)).add(e.amount()));
      users.computeIfAbsent(key, k -> new TreeSet<>()).add(e.user());
      agg.set(2, (long) users.get(key).size());
      agg.set(3, users.get(key).iterator().next());
    }
    Map<List<Object>, List<Object>> actual = new LinkedHashMap<>();
    for (Object[] r : table("table")) {
      actual.put(Arrays.asList(r[0], r[1], r[2]), Arrays.asList(r[3], r[4], r[5], r[6]));
    }
    assertThat(actual).isEqualTo(expected);
    assertQuarantine(sent, "poison-stateful");
  }

  // ---------------------------------------------------------------------------------------------
  // A failure that is not about one record names the batch

  @Test
  void aStorageFailureNamesThePipelineBatchAndOffsetsAndTheReplayWritesEverything()
      throws Exception {
    String topic = broker.createTopic("poison-storage", 1);
    List<Rec> corpus = new ArrayList<>();
    for (int id = 0; id < 10; id++) {
      corpus.add(
          Rec.good("{\"id\":" + id + ",\"region\":\"" + (id < 5 ? "eu" : "blocked") + "\"}"));
    }
    send(topic, corpus);
    PipelineSpec spec = statelessSpec("poison-storage", topic);
    // Opening the run creates the tables (a table is never created over files already there)...
    try (PipelineRun opened =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      // ...then a file where the partition directory must go: the data file cannot be created (an
      // I/O error).
    }
    Path blocked = dir.resolve("table").resolve("region=blocked");
    Files.writeString(blocked, "in the way");

    assertThatThrownBy(() -> runAvailableNow(spec))
        .isInstanceOf(BatchFailedException.class)
        .hasMessageStartingWith(
            "Pipeline poison-storage: batch 0 ("
                + topic
                + "/0 offsets [0, 10)) failed; it is"
                + " replayed with the same offsets at the next start")
        .hasCauseInstanceOf(IOException.class);

    Files.delete(blocked);
    runAvailableNow(spec);
    assertThat(table("table"))
        .extracting(r -> r[0])
        .containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(table("table-quarantine")).isEmpty();
  }
}
