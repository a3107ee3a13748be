package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at every step of a stateful group-mode pipeline's batches: the seed query with {@code
 * assignment: group} runs in a child JVM that halts (exit 137, as kill -9) at each crash point of
 * stage 1 (between two source records, after the quarantine commit, after the Kafka transaction)
 * and of the sub-pipelines of stage 2 (the exclusive engine's seven points), is restarted each time,
 * then drained with available-now. Fresh events are produced before each run, enough for its crash
 * point to be reached. The sink must hold exactly the windows a direct computation gives (every
 * event once after de-duplication, no window twice, none missing) and the quarantine table every
 * malformed record exactly once, whatever the transactions, the state stores and the logs went through.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GroupStatefulCrashIT {
  private static final String[] POINTS = {
    CrashPoints.EXCHANGE_MID_BATCH, CrashPoints.EXCHANGE_AFTER_QUARANTINE_COMMIT,
    CrashPoints.EXCHANGE_AFTER_KAFKA_COMMIT, CrashPoints.AFTER_OFFSETS_LOG, CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES, CrashPoints.AFTER_QUARANTINE_COMMIT, CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_STATE_COMMIT, CrashPoints.AFTER_COMMITS_LOG
  };
  private static final int PARTITIONS = 4;
  private static final int PER_RUN = 200;
  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
  private static final String[] TYPES = {"view", "click", "cart", "buy", "search"};

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Random random = new Random(20261201L);
  private final Map<String, long[]> windows = new TreeMap<>();
  private final Set<String> distinct = new HashSet<>();
  private final List<String> malformed = new ArrayList<>();
  private final int[] nextOffset = new int[PARTITIONS];
  private Instant maxEventTime = T0;
  private int produced;
  @TempDir Path dir;

  @Test
  void seedQueryIsExactAfterAHaltAtEveryStepOfBothStages() throws Exception {
    String topic = broker.createTopic("group-crash", PARTITIONS);
    Path pipeline = dir.resolve("pipeline.yaml");
    Files.writeString(pipeline, """
        pipeline: group-crash
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: group
            max-offsets-per-trigger: 40
            properties:
              session.timeout.ms: "2000"
              heartbeat.interval.ms: "500"
              transaction.timeout.ms: "2000"
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
        trigger: { processing-time: 100ms }
        """.formatted(broker.bootstrapServers(), topic, dir, dir, dir));
    List<String> jvm = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Dtributary.state.dir=" + dir.resolve("state"));
    for (String point : POINTS) {
      produce(topic, PER_RUN);
      boolean perRecord = point.equals(CrashPoints.EXCHANGE_MID_BATCH) || point.equals(CrashPoints.MID_BATCH);
      String crashAt = point + ":" + (perRecord ? 1 + random.nextInt(100) : 1 + random.nextInt(3));
      List<String> options = new ArrayList<>(jvm);
      options.add("-Dtributary.test.crash-at=" + crashAt);
      Path log = dir.resolve("run-" + point + ".log");
      Process child = ChildJvm.start(options, "dev.tributary.service.cli.Main",
          List.of("run", "--pipeline", pipeline.toString()), log, dir);
      boolean exited = child.waitFor(90, TimeUnit.SECONDS);
      if (!exited) {
        child.destroyForcibly().waitFor();
      }
      assertThat(exited).as("crash point %s reached; log:%n%s", crashAt, Files.readString(log)).isTrue();
      assertThat(child.exitValue()).as("halted at %s; log:%n%s", crashAt, Files.readString(log)).isEqualTo(137);
      assertThat(Files.readString(log)).contains("crash point " + crashAt + " reached");
    }
    produce(topic, PER_RUN);
    Path log = dir.resolve("drain.log");
    Process drain = ChildJvm.start(jvm, "dev.tributary.service.cli.Main",
        List.of("run", "--pipeline", pipeline.toString(), "--available-now"), log, dir);
    assertThat(drain.waitFor(120, TimeUnit.SECONDS)).as("drain finished; log:%n%s", Files.readString(log)).isTrue();
    assertThat(drain.exitValue()).as("drain exit code; log:%n%s", Files.readString(log)).isZero();

    assertThat(render(sinkWindows())).isEqualTo(render(expectedWindows()));
    List<String> quarantined = quarantined();
    assertThat(quarantined).doesNotHaveDuplicates();
    assertThat(quarantined).containsExactlyInAnyOrderElementsOf(malformed);
  }

  /**
   * {@code count} events round-robin over the partitions, in rising event time with jitter well
   * below the delay (no row is ever late, whatever the batch cuts), every 6th re-sent at once,
   * every 25th malformed.
   */
  private void produce(String topic, int count) {
    List<List<String>> byPartition = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      byPartition.add(new ArrayList<>());
    }
    for (int k = 0; k < count; k++) {
      int i = produced++;
      int partition = i % PARTITIONS;
      List<String> values = byPartition.get(partition);
      if (i % 25 == 24) {
        values.add("{\"event_id\": \"broken-" + i);
        malformed.add(partition + "@" + nextOffset[partition]++);
        continue;
      }
      Instant ts = T0.plusSeconds(i * 6L + random.nextInt(90));
      String type = TYPES[random.nextInt(TYPES.length)];
      BigDecimal amount = BigDecimal.valueOf(random.nextInt(10_000), 2);
      String json = "{\"event_id\":\"e" + i + "\",\"event_type\":\"" + type + "\",\"event_ts\":\"" + ts
          + "\",\"amount\":" + amount + "}";
      values.add(json);
      nextOffset[partition]++;
      if (i % 6 == 0) {
        values.add(json);
        nextOffset[partition]++;
      }
      if (distinct.add("e" + i)) {
        long start = ts.getEpochSecond() / 300 * 300;
        long[] w = windows.computeIfAbsent(Instant.ofEpochSecond(start) + "|" + type, key -> new long[2]);
        w[0]++;
        w[1] += amount.unscaledValue().longValue();
      }
      maxEventTime = ts.isAfter(maxEventTime) ? ts : maxEventTime;
    }
    for (int p = 0; p < PARTITIONS; p++) {
      broker.send(topic, p, byPartition.get(p));
    }
  }

  /** The windows that end at or before max(event time) - 10 minutes: what an available-now drain emits. */
  private Map<String, long[]> expectedWindows() {
    long watermark = maxEventTime.getEpochSecond() - 600;
    Map<String, long[]> out = new TreeMap<>(windows);
    out.keySet().removeIf(k -> Instant.parse(k.substring(0, k.indexOf('|'))).getEpochSecond() + 300 > watermark);
    return out;
  }

  private Map<String, long[]> sinkWindows() throws Exception {
    Map<String, long[]> out = new TreeMap<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("sink").toString(), null)) {
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

  private List<String> quarantined() throws Exception {
    List<String> out = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      KernelReader reader = new KernelReader(store);
      List<String> columns = reader.columnNames();
      for (Object[] row : reader.rows()) {
        out.add(row[columns.indexOf("partition")] + "@" + row[columns.indexOf("offset")]);
      }
    }
    return out;
  }

  private static String render(Map<String, long[]> windows) {
    StringBuilder b = new StringBuilder();
    windows.forEach((k, v) -> b.append(k).append('=').append(v[0]).append('/').append(v[1]).append('\n'));
    return b.toString();
  }
}
