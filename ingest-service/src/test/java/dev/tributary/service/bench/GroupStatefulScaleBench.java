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
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stateful seed query in consumer-group mode on this machine (docs/OPERATIONS.md, "Capacity"):
 * a broker process, N JSON events on 12 partitions, then the seed query (watermark, dedup, 5-minute
 * tumbling windows per event type, append) run available-now by one exclusive instance (the
 * baseline, measured in the same run) and by 1, 2 and 3 group-mode instances at once, each into
 * fresh tables and a fresh repartition topic. The time is the wall time from starting the processes
 * to the last one's exit (JVM start and group joins included: that is what an available-now
 * backfill costs). Never part of the suite: run it with {@code mvn -pl ingest-service -am verify
 * -Dit.test=GroupStatefulScaleBench -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dbench.events=300000}. Timings are printed, not asserted.
 */
class GroupStatefulScaleBench {
  @TempDir Path dir;

  @Test
  void measureTheSeedQueryOnOneTwoAndThreeInstances() throws Exception {
    int events = Integer.getInteger("bench.events", 300_000);
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      broker.createTopic("events", 12);
      produce(broker, events);
      double baseline = run(broker, "exclusive", 1, events);
      for (int instances = 1; instances <= 3; instances++) {
        double seconds = run(broker, "group", instances, events);
        System.out.printf(
            "STATEFUL-GROUP-BENCH instances=%d wall=%.1fs ratio-to-exclusive=%.2f%n",
            instances, seconds, baseline / seconds);
      }
    }
  }

  private double run(KafkaBrokerProcess broker, String assignment, int instances, int events)
      throws Exception {
    String id = "seed-" + assignment + "-" + instances;
    // -Dbench.dir keeps the instances' logs and tables for a look afterwards
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
            topics: [events]
            assignment: %s
            max-offsets-per-trigger: 60000
        format:
          json:
            schema: { event_id: string, event_type: string, event_ts: timestamp, amount: double }
        %s
        sink:
          delta: { path: %s }
        quarantine:
          delta: { path: %s }
        checkpoint: %s
        trigger: { available-now: true }
        """
            .formatted(
                id,
                broker.bootstrapServers(),
                assignment,
                SeedEvents.QUERY.strip(),
                work.resolve("sink"),
                work.resolve("quarantine"),
                work.resolve("checkpoint")));
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
    double seconds = Duration.between(start, Instant.now()).toMillis() / 1000.0;
    System.out.printf(
        "STATEFUL-GROUP-BENCH %s instances=%d events=%d wall=%.1fs rate=%.0f records/s%n",
        assignment, instances, events, seconds, events / seconds);
    return seconds;
  }

  /**
   * Events over 24 hours of event time in rising order with a little jitter, 6 types, one in 50
   * re-sent.
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
    String[] types = {"view", "click", "cart", "buy", "search", "share"};
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < events; i++) {
        long ms = (long) i * 86_400_000L / events + random.nextInt(60_000);
        String json =
            "{\"event_id\":\"e"
                + i
                + "\",\"event_type\":\""
                + types[random.nextInt(types.length)]
                + "\",\"event_ts\":\""
                + t0.plusMillis(ms)
                + "\",\"amount\":"
                + (i % 997)
                + ".25}";
        byte[] value = json.getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>("events", i % 12, null, value));
        if (i % 50 == 0) {
          producer.send(new ProducerRecord<>("events", i % 12, null, value));
        }
      }
      producer.flush();
    }
  }
}
