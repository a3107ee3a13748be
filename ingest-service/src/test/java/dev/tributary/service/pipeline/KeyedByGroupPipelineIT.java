package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.source.KeyedByCheck;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.SeedEvents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code source.kafka.keyed-by} end to end against a real broker (docs/DESIGN.md, "Keyed-by
 * sources: no exchange"): a windowed count per user, deduplicated, over a topic whose producer
 * keyed every record by {@code user_id}. Two group instances at once land exactly one exclusive
 * instance's table and the direct computation, with each source partition a sub-pipeline of its own
 * and no repartition topic; then, on a topic with two mis-keyed records (one in the wrong
 * partition, one whose key is another user's), exactly those two are quarantined with the keyed-by
 * reason and the table is the clean one.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class KeyedByGroupPipelineIT {
  private static final int PARTITIONS = 4;
  private static final int EVENTS = 500;
  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void twoKeyedInstancesLandOneExclusiveInstancesTableWithoutTheExchange() throws Exception {
    String topic = broker.createTopic("keyed", PARTITIONS);
    String expected = produce(topic, false);

    runTogether(spec("keyed-group", topic, true), 2);
    run(spec("keyed-single", topic, false));

    List<String> group = windows(dir.resolve("keyed-group/sink"));
    assertThat(group)
        .isEqualTo(windows(dir.resolve("keyed-single/sink")))
        .isEqualTo(sorted(expected));
    assertThat(SeedEvents.rows(dir.resolve("keyed-group/quarantine"))).isEmpty();
    // each source partition was a sub-pipeline with its own batch key, and nothing was exchanged
    assertThat(txns(dir.resolve("keyed-group/sink")))
        .allMatch(t -> t.startsWith("keyed-group."))
        .anyMatch(t -> t.startsWith("keyed-group.0@"))
        .anyMatch(t -> t.startsWith("keyed-group.3@"));
    assertThat(broker.admin().listTopics().names().get(30, TimeUnit.SECONDS))
        .doesNotContain(ExchangeRecords.topic("keyed-group"))
        .contains(topic);
  }

  @Test
  void misKeyedRecordsAreQuarantinedWithTheReasonAndNothingElseChanges() throws Exception {
    String clean = broker.createTopic("keyed-clean", PARTITIONS);
    String expected = produce(clean, false);
    String topic = broker.createTopic("keyed-bad", PARTITIONS);
    assertThat(produce(topic, true)).isEqualTo(expected);

    runTogether(spec("keyed-bad", topic, true), 2);

    assertThat(windows(dir.resolve("keyed-bad/sink"))).isEqualTo(sorted(expected));
    List<Map<String, Object>> quarantined = SeedEvents.rows(dir.resolve("keyed-bad/quarantine"));
    assertThat(quarantined).hasSize(2);
    assertThat(quarantined)
        .extracting(r -> (String) r.get("error"))
        .allMatch(e -> e.startsWith("keyed-by [user_id]: record " + topic + "/"))
        .anyMatch(e -> e.contains("with Kafka's default partitioner (murmur2 of the key bytes)"))
        .anyMatch(e -> e.contains("its key 'u5' is not its keyed-by values [u6]"));
  }

  /**
   * Produces the events keyed by user (the producer's default partitioner), rising in event time
   * with a jitter below the delay, one in 25 re-sent; with {@code misKeyed} also two bad records
   * (event ids that never occur otherwise) in the middle of the stream.
   *
   * @return the windows the query emits for the good events, one per line
   */
  private String produce(String topic, boolean misKeyed) throws Exception {
    Random random = new Random(5);
    Map<String, long[]> windows = new TreeMap<>();
    Instant max = T0;
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < EVENTS; i++) {
        String user = "u" + random.nextInt(20);
        Instant ts = T0.plusSeconds(i * 6L + random.nextInt(60));
        long amount = random.nextInt(1000);
        byte[] value = json("e" + i, user, ts, amount);
        int copies = i % 25 == 0 ? 2 : 1;
        for (int c = 0; c < copies; c++) {
          producer.send(new ProducerRecord<>(topic, bytes(user), value)).get();
        }
        long[] w =
            windows.computeIfAbsent(
                Instant.ofEpochSecond(ts.getEpochSecond() / 300 * 300) + "|" + user,
                k -> new long[2]);
        w[0]++;
        w[1] += amount;
        max = ts.isAfter(max) ? ts : max;
        if (misKeyed && i == EVENTS / 2) {
          int right = KeyedByCheck.partitionOf(bytes("u3"), PARTITIONS);
          producer
              .send(
                  new ProducerRecord<>(
                      topic,
                      (right + 1) % PARTITIONS,
                      bytes("u3"),
                      json("bad-1", "u3", ts, 1_000_000)))
              .get();
          producer
              .send(new ProducerRecord<>(topic, bytes("u5"), json("bad-2", "u6", ts, 1_000_000)))
              .get();
        }
      }
    }
    long watermark = max.getEpochSecond() - 600;
    StringBuilder b = new StringBuilder();
    windows.forEach(
        (k, v) -> {
          if (Instant.parse(k.substring(0, k.indexOf('|'))).getEpochSecond() + 300 <= watermark) {
            b.append(k).append('=').append(v[0]).append('/').append(v[1]).append('\n');
          }
        });
    return b.toString();
  }

  private static List<String> sorted(String lines) {
    List<String> out = new ArrayList<>(List.of(lines.split("\n")));
    out.sort(null);
    return out;
  }

  private static byte[] json(String id, String user, Instant ts, long amount) {
    return bytes(
        "{\"event_id\":\""
            + id
            + "\",\"user_id\":\""
            + user
            + "\",\"event_ts\":\""
            + ts
            + "\",\"amount\":"
            + amount
            + "}");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private PipelineSpec spec(String id, String topic, boolean keyed) {
    Path base = dir.resolve(id);
    return PipelineParser.parse(
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            %s
            max-offsets-per-trigger: 200
            properties: { session.timeout.ms: "6000", heartbeat.interval.ms: "1000" }
        format:
          json:
            schema: { event_id: string, user_id: string, event_ts: timestamp, amount: long }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, user_id, event_ts] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [user_id]
          measures: { events: count(), amount: sum(amount) }
        output-mode: append
        sink:
          delta: { path: %s/sink }
        quarantine:
          delta: { path: %s/quarantine }
        checkpoint: %s/checkpoint
        """
            .formatted(
                id,
                broker.bootstrapServers(),
                topic,
                keyed ? "assignment: group\n    keyed-by: [user_id]" : "assignment: exclusive",
                base,
                base,
                base),
        id + ".yaml",
        Map.of());
  }

  private static void runTogether(PipelineSpec spec, int instances) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(instances);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < instances; i++) {
        runs.add(
            pool.submit(
                () -> {
                  run(spec);
                  return null;
                }));
      }
      for (Future<?> f : runs) {
        f.get(180, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  /** The sink's rows as {@code window_start|user=events/amount}, sorted, duplicates kept. */
  private static List<String> windows(Path table) throws Exception {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : SeedEvents.rows(table)) {
      out.add(
          row.get("window_start")
              + "|"
              + row.get("user_id")
              + "="
              + row.get("events")
              + "/"
              + row.get("amount"));
    }
    out.sort(null);
    return out;
  }

  private static java.util.Set<String> txns(Path table) throws Exception {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults())
          .snapshot()
          .state()
          .transactions()
          .keySet();
    }
  }
}
