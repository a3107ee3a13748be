package dev.tributary.service.bench;

import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.service.testing.SeedEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code source.kafka.keyed-by} against the repartition topic, on the same data in one run
 * (docs/DESIGN.md, "Keyed-by sources: no exchange"): a broker process, N JSON events on 12
 * partitions keyed by {@code user_id} (the producer's default partitioner), and a windowed count
 * per user, deduplicated, run available-now by one exclusive instance (the baseline), then by two
 * group instances through the repartition topic, then by two group instances with {@code keyed-by:
 * [user_id]}, each into fresh tables. Per run it prints the wall time and the CPU time of the
 * instance processes (this JVM's reaped children, {@code /proc/self/stat} cutime + cstime; the
 * broker is not among them until the end) and the load average; then the keyed run's ratios to the
 * exchange run. Never part of the suite: {@code mvn -pl ingest-service -am verify
 * -Dit.test=KeyedByScaleBench -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dbench.events=100000}. Timings are printed, not asserted.
 */
class KeyedByScaleBench {
  @TempDir Path dir;

  /**
   * What a run wrote: the windows as {@code window_start|user=events/amount}, the events they
   * count, the late and quarantined rows.
   */
  private record Tables(Set<String> windows, long events, int late, int quarantined) {
    String describe() {
      return "windows=%d events=%d late=%d quarantined=%d"
          .formatted(windows.size(), events, late, quarantined);
    }

    /** The windows of {@code this} not in {@code other}: count and first few. */
    String missingFrom(Tables other) {
      List<String> missing = new ArrayList<>(new TreeSet<>(windows));
      missing.removeAll(other.windows);
      return missing.size() + " " + missing.subList(0, Math.min(8, missing.size()));
    }
  }

  private record Cost(double wallSeconds, double cpuSeconds, Tables tables) {}

  @Test
  void measureKeyedByAgainstTheExchange() throws Exception {
    int events = Integer.getInteger("bench.events", 100_000);
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      broker.createTopic("clicks", 12);
      produce(broker, events);
      Cost exclusive = run(broker, "exclusive", "assignment: exclusive", 1, events);
      Cost exchange = run(broker, "exchange", "assignment: group", 2, events);
      Cost keyed = run(broker, "keyed", "assignment: group\n    keyed-by: [user_id]", 2, events);
      System.out.printf(
          "KEYED-BY-BENCH events=%d keyed/exchange: wall=%.2f cpu=%.2f; exchange/exclusive:"
              + " wall=%.2f cpu=%.2f; keyed/exclusive: wall=%.2f cpu=%.2f%n",
          events,
          keyed.wallSeconds() / exchange.wallSeconds(),
          keyed.cpuSeconds() / exchange.cpuSeconds(),
          exchange.wallSeconds() / exclusive.wallSeconds(),
          exchange.cpuSeconds() / exclusive.cpuSeconds(),
          keyed.wallSeconds() / exclusive.wallSeconds(),
          keyed.cpuSeconds() / exclusive.cpuSeconds());
      // like with like: the three runs end at the same watermark (max(event time) - delay), so
      // they must write the same windows and drop the same late rows
      for (var run : Map.of("exchange", exchange, "keyed", keyed).entrySet()) {
        System.out.printf(
            "KEYED-BY-BENCH %s vs exclusive: windows only in exclusive %s; only in %s %s%n",
            run.getKey(),
            exclusive.tables().missingFrom(run.getValue().tables()),
            run.getKey(),
            run.getValue().tables().missingFrom(exclusive.tables()));
      }
    }
  }

  private Cost run(
      KafkaBrokerProcess broker, String name, String assignment, int instances, int events)
      throws Exception {
    String id = "clicks-" + name;
    Path base =
        System.getProperty("bench.dir") == null ? dir : Path.of(System.getProperty("bench.dir"));
    Path work = Files.createDirectories(base.resolve(id));
    Path pipeline = work.resolve("pipeline.yaml");
    Files.writeString(
        pipeline,
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [clicks]
            %s
            max-offsets-per-trigger: 60000
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
          delta: { path: %s }
        quarantine:
          delta: { path: %s }
        late-events:
          delta: { path: %s }
        checkpoint: %s
        trigger: { available-now: true }
        """
            .formatted(
                id,
                broker.bootstrapServers(),
                assignment,
                work.resolve("sink"),
                work.resolve("quarantine"),
                work.resolve("late"),
                work.resolve("checkpoint")));
    String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();
    long cpuBefore = childrenCpuTicks();
    Instant start = Instant.now();
    List<Process> running = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      running.add(
          ChildJvm.start(
              List.of("-Xmx512m", "-XX:+UseParallelGC", "-DTRIBUTARY_LOG_LEVEL=INFO"),
              "dev.tributary.service.cli.Main",
              List.of("run", "--pipeline", pipeline.toString()),
              work.resolve("instance-" + i + ".log"),
              work));
    }
    for (Process p : running) {
      if (!p.waitFor(900, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(id + " did not end; see " + work);
      }
      if (p.exitValue() != 0) {
        throw new AssertionError(id + " exited with " + p.exitValue() + "; see " + work);
      }
    }
    double wall = Duration.between(start, Instant.now()).toMillis() / 1000.0;
    double cpu = (childrenCpuTicks() - cpuBefore) / 100.0;
    Tables tables = tables(work);
    System.out.printf(
        "KEYED-BY-BENCH %s instances=%d events=%d wall=%.1fs cpu=%.1fs load before [%s] after [%s]"
            + " %s%n",
        name,
        instances,
        events,
        wall,
        cpu,
        loadBefore,
        Files.readString(Path.of("/proc/loadavg")).strip(),
        tables.describe());
    return new Cost(wall, cpu, tables);
  }

  private static Tables tables(Path work) throws Exception {
    Set<String> windows = new TreeSet<>();
    long events = 0;
    for (Map<String, Object> row : SeedEvents.rows(work.resolve("sink"))) {
      windows.add(
          row.get("window_start")
              + "|"
              + row.get("user_id")
              + "="
              + row.get("events")
              + "/"
              + row.get("amount"));
      events += ((Number) row.get("events")).longValue();
    }
    return new Tables(
        windows,
        events,
        SeedEvents.rows(work.resolve("late")).size(),
        SeedEvents.rows(work.resolve("quarantine")).size());
  }

  /**
   * The CPU time of this JVM's children that ended and were waited for (cutime + cstime of {@code
   * /proc/self/stat}, in clock ticks of 1/100 s).
   */
  private static long childrenCpuTicks() throws Exception {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // after "pid (comm) ": state is field 3, so field n is fields[n - 3]; cutime 16, cstime 17
    return Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
  }

  /**
   * Events over 24 hours of event time in rising order, 400 users, keyed by user, 1 in 50 re-sent.
   */
  private static void produce(KafkaBrokerProcess broker, int events) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    Random random = new Random(7);
    Instant t0 = Instant.parse("2026-11-30T00:00:00Z");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < events; i++) {
        long ms = (long) i * 86_400_000L / events + random.nextInt(60_000);
        String user = "u" + random.nextInt(400);
        String json =
            "{\"event_id\":\"e"
                + i
                + "\",\"user_id\":\""
                + user
                + "\",\"event_ts\":\""
                + t0.plusMillis(ms)
                + "\",\"amount\":"
                + (i % 997)
                + "}";
        byte[] key = user.getBytes(StandardCharsets.UTF_8);
        byte[] value = json.getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>("clicks", key, value));
        if (i % 50 == 0) {
          producer.send(new ProducerRecord<>("clicks", key, value));
        }
      }
      producer.flush();
    }
  }
}
