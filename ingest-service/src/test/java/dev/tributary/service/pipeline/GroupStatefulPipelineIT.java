package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed query (watermark, dedup, 5-minute tumbling windows per type, append) with {@code
 * assignment: group}, wired end to end in one JVM: two instances run available-now at once over a
 * topic of 4 partitions, through the repartition topic and the per-partition sub-pipelines; both end
 * by themselves once every partition is settled, and the tables equal one exclusive instance's and a
 * direct computation. (GroupStatefulScaleOutIT does the same with instance processes, kills and freezes.)
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class GroupStatefulPipelineIT {
  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
  private static final String[] TYPES = {"view", "click", "cart", "buy", "search"};

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void twoInstancesLandTheSeedQueryAsOneInstanceDoes() throws Exception {
    String topic = broker.createTopic("seed-group", 4);
    Map<String, long[]> expected = produce(topic, 600);

    PipelineSpec group = spec("seed-group", topic, "group");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        runs.add(pool.submit(() -> {
          run(group);
          return null;
        }));
      }
      for (Future<?> f : runs) {
        f.get(180, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    run(spec("seed-single", topic, "exclusive"));

    Map<String, long[]> grouped = windows(dir.resolve("seed-group/sink"));
    Map<String, long[]> single = windows(dir.resolve("seed-single/sink"));
    assertThat(render(grouped)).isEqualTo(render(single)).isEqualTo(render(expected));
    assertThat(quarantined(dir.resolve("seed-group/quarantine")))
        .isEqualTo(quarantined(dir.resolve("seed-single/quarantine"))).hasSize(600 / 40);
    // the sink was written by the sub-pipelines of the 4 repartition partitions, each with its own batch key
    try (ObjectStore store = ObjectStores.open(dir.resolve("seed-group/sink").toString(), null)) {
      var txns = dev.tributary.table.DeltaTable.open(store, dev.tributary.table.TableOptions.defaults()).snapshot()
          .state().transactions().keySet();
      for (int n = 0; n < 4; n++) {
        String key = "seed-group." + n + "@";
        assertThat(txns).as("batch key of partition %s", n).anyMatch(t -> t.startsWith(key));
      }
    }
  }

  private PipelineSpec spec(String id, String topic, String assignment) {
    Path base = dir.resolve(id);
    return PipelineParser.parse("""
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: %s
            properties: { session.timeout.ms: "6000", heartbeat.interval.ms: "1000" }
        format:
          json:
            schema: { event_id: string, event_type: string, event_ts: timestamp, amount: "decimal(10,2)" }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, event_ts] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures: { events: count(), amount: sum(amount) }
        output-mode: append
        sink:
          delta: { path: %s/sink }
        quarantine:
          delta: { path: %s/quarantine }
        checkpoint: %s/checkpoint
        """.formatted(id, broker.bootstrapServers(), topic, assignment, base, base, base), id + ".yaml", Map.of());
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run = PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(),
        new ProgressLog(100))) {
      run.run();
    }
  }

  /**
   * Events in rising event time with jitter well below the delay, every 7th re-sent at once, every
   * 40th malformed. Returns the windows the seed query emits: (window start, type) -> (count, cents)
   * of the distinct events, for windows that end at or before max(event time) - 10 minutes.
   */
  private Map<String, long[]> produce(String topic, int events) {
    Random random = new Random(11);
    Map<Integer, List<String>> byPartition = new HashMap<>();
    Map<String, long[]> windows = new TreeMap<>();
    Set<String> seen = new HashSet<>();
    Instant max = T0;
    for (int i = 0; i < events; i++) {
      int partition = i % 4;
      List<String> values = byPartition.computeIfAbsent(partition, p -> new ArrayList<>());
      if (i % 40 == 39) {
        values.add("{\"event_id\": \"broken" + i);
        continue;
      }
      Instant ts = T0.plusSeconds(i * 12L + random.nextInt(120));
      String type = TYPES[random.nextInt(TYPES.length)];
      BigDecimal amount = BigDecimal.valueOf(random.nextInt(10_000), 2);
      String json = "{\"event_id\":\"e" + i + "\",\"event_type\":\"" + type + "\",\"event_ts\":\"" + ts
          + "\",\"amount\":" + amount + "}";
      values.add(json);
      if (i % 7 == 0) {
        values.add(json);
      }
      if (seen.add("e" + i + "@" + ts)) {
        long start = ts.getEpochSecond() / 300 * 300;
        long[] w = windows.computeIfAbsent(Instant.ofEpochSecond(start) + "|" + type, k -> new long[2]);
        w[0]++;
        w[1] += amount.unscaledValue().longValue();
      }
      max = ts.isAfter(max) ? ts : max;
    }
    byPartition.forEach((p, values) -> broker.send(topic, p, values));
    long watermark = max.getEpochSecond() - 600;
    windows.keySet().removeIf(k -> Instant.parse(k.substring(0, k.indexOf('|'))).getEpochSecond() + 300 > watermark);
    return windows;
  }

  private static Map<String, long[]> windows(Path table) throws Exception {
    Map<String, long[]> out = new TreeMap<>();
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      KernelReader reader = new KernelReader(store);
      List<String> columns = reader.columnNames();
      for (Object[] row : reader.rows()) {
        String key = row[columns.indexOf("window_start")] + "|" + row[columns.indexOf("event_type")];
        long[] previous = out.put(key, new long[] {((Number) row[columns.indexOf("events")]).longValue(),
            ((BigDecimal) row[columns.indexOf("amount")]).unscaledValue().longValue()});
        assertThat(previous).as("window %s written twice", key).isNull();
      }
    }
    return out;
  }

  private static String render(Map<String, long[]> windows) {
    StringBuilder b = new StringBuilder();
    windows.forEach((k, v) -> b.append(k).append('=').append(v[0]).append('/').append(v[1]).append('\n'));
    return b.toString();
  }

  private static List<String> quarantined(Path table) throws Exception {
    List<String> out = new ArrayList<>();
    if (!Files.exists(table.resolve("_delta_log"))) {
      return out;
    }
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      KernelReader reader = new KernelReader(store);
      List<String> columns = reader.columnNames();
      for (Object[] row : reader.rows()) {
        out.add(row[columns.indexOf("partition")] + "@" + row[columns.indexOf("offset")]);
      }
    }
    out.sort(null);
    return out;
  }
}
