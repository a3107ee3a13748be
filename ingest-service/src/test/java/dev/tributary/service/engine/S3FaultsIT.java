package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import dev.tributary.storage.testing.FaultInjectingS3Proxy;
import dev.tributary.storage.testing.FaultInjectingS3Proxy.Counts;
import dev.tributary.storage.testing.FaultInjectingS3Proxy.Faults;
import dev.tributary.storage.testing.S3TestServer;
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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * S3 misbehaving under running pipelines: their tables and checkpoints are on the real S3 API
 * server, reached through {@link FaultInjectingS3Proxy}, which answers some requests with {@code
 * 503 SlowDown}, drops the connection of others after the server has acted on them (every few
 * conditional PUTs among them, so commits of unknown outcome certainly happen), and delays some;
 * and once, in the middle of the first run, it makes the server unreachable (an outage no retry
 * outlasts) until that run has failed. Each pipeline runs {@code --available-now} in a child JVM,
 * started again after every failed run until one finishes; then its tables, read straight from the
 * server, must hold exactly what the records say: the bronze table every valid record once and the
 * quarantine every malformed one once, the stateful tables exactly what a run without faults wrote.
 */
class S3FaultsIT {
  private static final Faults FAULTS = new Faults(0.03, 0.03, 0.05, Duration.ofMillis(200), 7);
  private static final int MAX_RUNS = 25;

  /** Requests of the first run before the outage that makes it fail (each pipeline makes 200+). */
  private static final long REQUESTS_BEFORE_OUTAGE = 80;

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;
  static S3TestServer s3;
  static FaultInjectingS3Proxy proxy;

  @BeforeAll
  static void start() throws Exception {
    broker = KafkaBrokerProcess.shared();
    s3 = S3TestServer.shared();
    proxy = FaultInjectingS3Proxy.start(s3.endpoint(), FAULTS, 20261201L);
  }

  @AfterAll
  static void stop() throws Exception {
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void bronzeAndQuarantineTablesHoldEveryRecordOnceDespiteS3Faults() throws Exception {
    String bucket = s3.createBucket();
    String topic = broker.newTopic("bronze", 3);
    Set<String> valid = new HashSet<>();
    Set<String> malformed = new HashSet<>();
    Random random = new Random(42);
    List<byte[]> values = new ArrayList<>();
    List<Boolean> bad = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      boolean isBad = random.nextInt(20) == 0;
      values.add(
          (isBad ? "{\"id\": " + i + ", \"name\": " : "{\"id\":" + i + ",\"name\":\"n" + i + "\"}")
              .getBytes(StandardCharsets.UTF_8));
      bad.add(isBad);
    }
    List<RecordMetadata> sent = produce(topic, values, random, 3);
    for (int i = 0; i < sent.size(); i++) {
      (bad.get(i) ? malformed : valid).add(sent.get(i).partition() + "/" + sent.get(i).offset());
    }
    Path work = Files.createDirectories(dir.resolve("bronze"));
    Path pipeline = work.resolve("pipeline.yaml");
    Files.writeString(
        pipeline,
        """
        pipeline: bronze-faults
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 250
        format:
          json:
            schema:
              id: long
              name: string
        sink:
          delta: { path: "s3://%s/tables/bronze" }
        quarantine:
          delta: { path: "s3://%s/tables/bronze-quarantine" }
        checkpoint: "s3://%s/checkpoints/bronze"
        trigger: { available-now: true }
        %s"""
            .formatted(
                broker.bootstrapServers(),
                topic,
                bucket,
                bucket,
                bucket,
                storage(proxy.endpoint().toString())));

    Counts before = proxy.counts();
    runUntilFinished(pipeline, work, List.of());
    assertFaultsHappened(before, proxy.counts());

    Map<String, Integer> sinkCounts = new HashMap<>();
    Map<String, Integer> quarantineCounts = new HashMap<>();
    try (ObjectStore sink = direct("s3://" + bucket + "/tables/bronze");
        ObjectStore quarantine = direct("s3://" + bucket + "/tables/bronze-quarantine")) {
      for (Object[] row : TableContents.rows(sink)) {
        // columns: id, name, _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp
        assertThat(row[1]).isEqualTo("n" + row[0]);
        sinkCounts.merge(row[3] + "/" + row[4], 1, Integer::sum);
      }
      for (Object[] row : TableContents.rows(quarantine)) {
        quarantineCounts.merge(row[1] + "/" + row[2], 1, Integer::sum);
      }
    }
    assertThat(sinkCounts.values()).as("no record twice in the sink").allMatch(c -> c == 1);
    assertThat(quarantineCounts.values()).as("no record twice in quarantine").allMatch(c -> c == 1);
    assertThat(sinkCounts.keySet()).as("every valid record in the sink").isEqualTo(valid);
    assertThat(quarantineCounts.keySet())
        .as("every malformed record in quarantine")
        .isEqualTo(malformed);
  }

  @Test
  void statefulTablesEqualAFaultFreeRunDespiteS3Faults() throws Exception {
    String bucket = s3.createBucket();
    String topic = broker.newTopic("events", 2);
    produce(topic, events(1500, new Random(7)), new Random(8), 2);

    Path clean = Files.createDirectories(dir.resolve("stateful-clean"));
    Path cleanPipeline = clean.resolve("pipeline.yaml");
    Files.writeString(
        cleanPipeline,
        statefulPipeline(
            topic,
            clean.resolve("tables/agg").toString(),
            clean.resolve("tables/late").toString(),
            clean.resolve("checkpoint").toString(),
            ""));
    assertThat(
            runOnce(
                cleanPipeline,
                clean,
                List.of("-Dtributary.state.dir=" + clean.resolve("state")),
                clean.resolve("run.log")))
        .as("the fault-free run; log:%n%s", Files.readString(clean.resolve("run.log")))
        .isZero();

    Path work = Files.createDirectories(dir.resolve("stateful"));
    Path pipeline = work.resolve("pipeline.yaml");
    Files.writeString(
        pipeline,
        statefulPipeline(
            topic,
            "s3://" + bucket + "/tables/agg",
            "s3://" + bucket + "/tables/late",
            "s3://" + bucket + "/checkpoints/agg",
            storage(proxy.endpoint().toString())));
    Counts before = proxy.counts();
    runUntilFinished(pipeline, work, List.of("-Dtributary.state.dir=" + work.resolve("state")));
    assertFaultsHappened(before, proxy.counts());

    List<List<Object>> expectedAgg;
    List<List<Object>> expectedLate;
    try (ObjectStore agg = ObjectStores.open(clean.resolve("tables/agg").toString(), null);
        ObjectStore late = ObjectStores.open(clean.resolve("tables/late").toString(), null)) {
      expectedAgg = rows(agg);
      expectedLate = rows(late);
    }
    assertThat(expectedAgg).as("closed windows in the fault-free run").hasSizeGreaterThan(20);
    assertThat(expectedLate).as("late events in the fault-free run").isNotEmpty();
    try (ObjectStore agg = direct("s3://" + bucket + "/tables/agg");
        ObjectStore late = direct("s3://" + bucket + "/tables/late")) {
      assertThat(rows(agg))
          .as("windows: none missing, none twice, no value off")
          .containsExactlyInAnyOrderElementsOf(expectedAgg);
      assertThat(rows(late))
          .as("late events: each once")
          .containsExactlyInAnyOrderElementsOf(expectedLate);
    }
  }

  /** Dedup on (id, time), 5-minute tumbling windows per type, append mode, late events kept. */
  private static String statefulPipeline(
      String topic, String agg, String late, String checkpoint, String storage) {
    return """
        pipeline: stateful-faults
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 100
        format:
          json:
            schema:
              event_id: string
              event_type: string
              event_ts: timestamp
              amount: decimal(10,2)
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, event_ts] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures:
            events: count()
            amount: sum(amount)
        output-mode: append
        late-events:
          delta: { path: "%s" }
        sink:
          delta: { path: "%s" }
        checkpoint: "%s"
        trigger: { available-now: true }
        %s"""
        .formatted(broker.bootstrapServers(), topic, late, agg, checkpoint, storage);
  }

  /**
   * Events mostly in order with jitter, one in seven re-sent later (same id and time: a duplicate),
   * one in ten far behind the others (late once the watermark has passed it).
   */
  private static List<byte[]> events(int count, Random random) {
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    String[] types = {"click", "view", "buy"};
    List<String> sent = new ArrayList<>();
    List<byte[]> out = new ArrayList<>();
    long clock = 0;
    for (int i = 0; i < count; i++) {
      String json;
      if (!sent.isEmpty() && random.nextInt(7) == 0) {
        json = sent.get(Math.max(0, sent.size() - 1 - random.nextInt(Math.min(sent.size(), 50))));
      } else {
        clock += random.nextInt(20);
        long seconds =
            random.nextInt(10) == 0
                ? clock - 900 - random.nextInt(1800)
                : clock - random.nextInt(120);
        json =
            "{\"event_id\":\"e"
                + i
                + "\",\"event_type\":\""
                + types[random.nextInt(types.length)]
                + "\",\"event_ts\":\""
                + t0.plusSeconds(seconds)
                + "\",\"amount\":"
                + BigDecimal.valueOf(random.nextInt(100_000), 2).toPlainString()
                + "}";
        sent.add(json);
      }
      out.add(json.getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  private static String storage(String endpoint) {
    return "storage:\n  s3: { endpoint: \""
        + endpoint
        + "\", region: us-east-1, path-style: true,"
        + " access-key: \""
        + S3TestServer.ACCESS_KEY
        + "\", secret-key: \""
        + S3TestServer.SECRET_KEY
        + "\" }\n";
  }

  /** A store straight on the S3 server, not through the proxy. */
  private static ObjectStore direct(String path) throws Exception {
    S3Settings settings = s3.settings();
    return ObjectStores.open(path, settings);
  }

  private static List<List<Object>> rows(ObjectStore table) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] row : TableContents.rows(table)) {
      out.add(Arrays.asList(row));
    }
    return out;
  }

  /**
   * Runs the pipeline with {@code --available-now} until a run exits 0; a run that fails (exit 1, a
   * fault it could not absorb) is simply started again, as an operator or a scheduler would. The
   * first run meets an S3 outage (the server unreachable) once it has made {@link
   * #REQUESTS_BEFORE_OUTAGE} requests (most likely inside a batch, which takes some 20): it must
   * fail, and the next runs go on from the checkpoint, replaying the batch in progress if any.
   */
  private static void runUntilFinished(Path pipeline, Path work, List<String> jvmOptions)
      throws Exception {
    Counts before = proxy.counts();
    Path firstLog = work.resolve("run-1.log");
    Process first = start(pipeline, work, jvmOptions, firstLog);
    try {
      await("the first run's requests before the outage")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(20))
          .failFast(
              "the first run ended before the outage; log:\n" + firstLog, () -> !first.isAlive())
          .until(() -> proxy.counts().requests() - before.requests() >= REQUESTS_BEFORE_OUTAGE);
      proxy.unreachable(true);
      assertThat(exitOf(first, firstLog))
          .as("the run during the outage fails; log:%n%s", Files.readString(firstLog))
          .isEqualTo(1);
    } finally {
      proxy.unreachable(false);
      first.destroyForcibly().waitFor();
    }
    StringBuilder failures = new StringBuilder("run 1: " + lastLines(firstLog, 1) + "\n");
    for (int run = 2; run <= MAX_RUNS; run++) {
      Path log = work.resolve("run-" + run + ".log");
      int exit = exitOf(start(pipeline, work, jvmOptions, log), log);
      if (exit == 0) {
        System.out.printf(
            "%s finished in run %d; proxy before %s, after %s; failed runs:%n%s",
            pipeline, run, before, proxy.counts(), failures);
        return;
      }
      assertThat(exit).as("a failed run exits 1; log:%n%s", Files.readString(log)).isEqualTo(1);
      failures.append("run ").append(run).append(": ").append(lastLines(log, 1)).append('\n');
    }
    throw new AssertionError(
        "no run of " + pipeline + " finished in " + MAX_RUNS + " attempts:\n" + failures);
  }

  private static Process start(Path pipeline, Path work, List<String> jvmOptions, Path log)
      throws Exception {
    List<String> jvm =
        new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    jvm.addAll(jvmOptions);
    return ChildJvm.start(
        jvm,
        "dev.tributary.service.cli.Main",
        // --max-outage 0s: a run fails at the first transient failure, as this test's restarts
        // by hand expect (riding out an outage is RunRidesOutBrokerOutageIT's)
        List.of("run", "--pipeline", pipeline.toString(), "--available-now", "--max-outage", "0s"),
        log,
        work);
  }

  private static int exitOf(Process child, Path log) throws Exception {
    if (!child.waitFor(240, TimeUnit.SECONDS)) {
      child.destroyForcibly().waitFor();
      throw new AssertionError("the run did not end within 240 s; log:\n" + Files.readString(log));
    }
    return child.exitValue();
  }

  private static int runOnce(Path pipeline, Path work, List<String> jvmOptions, Path log)
      throws Exception {
    return exitOf(start(pipeline, work, jvmOptions, log), log);
  }

  private static String lastLines(Path log, int n) throws Exception {
    List<String> lines = Files.readAllLines(log);
    return String.join(" | ", lines.subList(Math.max(0, lines.size() - n), lines.size()));
  }

  /** The test is only worth something if every kind of fault met the pipeline. */
  private static void assertFaultsHappened(Counts before, Counts after) {
    assertThat(after.slowDowns()).as("503 SlowDown answers").isGreaterThan(before.slowDowns());
    assertThat(after.drops())
        .as("connections dropped after the request")
        .isGreaterThan(before.drops());
    assertThat(after.droppedConditionalPuts())
        .as("conditional PUTs (commits) of unknown outcome")
        .isGreaterThan(before.droppedConditionalPuts());
    assertThat(after.delays()).as("delayed requests").isGreaterThan(before.delays());
  }

  private static List<RecordMetadata> produce(
      String topic, List<byte[]> values, Random random, int partitions) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    List<RecordMetadata> out = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> futures = new ArrayList<>();
      for (byte[] value : values) {
        futures.add(
            producer.send(new ProducerRecord<>(topic, random.nextInt(partitions), null, value)));
      }
      for (Future<RecordMetadata> f : futures) {
        out.add(f.get());
      }
    }
    return out;
  }
}
