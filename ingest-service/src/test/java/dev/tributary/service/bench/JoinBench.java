package dev.tributary.service.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.compare.CompareOptions;
import dev.tributary.service.compare.ComparedTable;
import dev.tributary.service.compare.ComparisonResult;
import dev.tributary.service.compare.Comparisons;
import dev.tributary.service.compare.TableRef;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.stateful.SparkProgram;
import dev.tributary.service.testing.KafkaBrokerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The stream-join benchmark (issue 25 item 6; run it with {@code bench/run-join-bench [clicks]
 * [purchases]}): a real broker in its own process, clicks on 4 partitions and purchases on 2 as
 * JSON ({@link JoinBenchEvents}: 4 hours of event time, each purchase 0–30 minutes after a click of
 * its user), then in the same run and one after the other (1) Tributary's seed query, an inner
 * stream-stream join on {@code user_id} with {@code p_event_ts BETWEEN event_ts AND event_ts +
 * INTERVAL 30 MINUTES}, both inputs watermarked 10 minutes, available-now from YAML (the entry
 * point of {@code tributary run}, in this process) into a local Delta table; (2) the same query in
 * Spark 4 + Delta 4 ({@code JoinBenchSpark.java}: {@code local[2]}, RocksDB state store, Spark's
 * Kafka source) in a child JVM with the same heap, into another table. Both read with the same
 * per-input limits per trigger, in the inputs' ratio.
 *
 * <p>Prints both wall times and rates, Tributary's rate over Spark's, the peak RSS of each, the
 * final join state per side ({@code join.left.rows}/{@code bytes}, {@code join.right.*} of the last
 * batch's progress, and bytes per row) and whether the two tables hold the same rows as multisets
 * ({@code tributary compare}'s code); exits 1 if they do not. Never part of the test suite: timings
 * are measured, not asserted.
 */
public final class JoinBench {
  private static final String CLICKS = "clicks";
  private static final String PURCHASES = "purchases";
  private static final int CLICK_PARTITIONS = 4;
  private static final int PURCHASE_PARTITIONS = 2;
  private static final String CLICK_SCHEMA =
      "click_id STRING, user_id STRING, event_ts TIMESTAMP, page STRING";
  private static final String PURCHASE_SCHEMA =
      "purchase_id STRING, user_id STRING, event_ts TIMESTAMP, amount BIGINT";
  private static final String CONDITION =
      "user_id = p_user_id AND p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES";

  private JoinBench() {}

  /**
   * @param args the number of clicks (default 2,000,000), then of purchases (default 200,000);
   *     {@code -Dbench.clickLimit} the clicks' limit per trigger (default a quarter of the clicks:
   *     4 batches), the purchases' in the same ratio; {@code -Dbench.oursOnly=true} Tributary's
   *     side alone (to profile it)
   */
  public static void main(String[] args) throws Exception {
    int clicks = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    int purchases = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    long clickLimit = Long.getLong("bench.clickLimit", Math.max(1, (clicks + 3) / 4));
    long purchaseLimit = JoinBenchEvents.purchaseLimit(clickLimit, clicks, purchases);
    Path dir = Files.createTempDirectory("tributary-join-bench");
    String heap = Runtime.getRuntime().maxMemory() / (1 << 20) + "m";
    System.out.printf(
        "Join benchmark: %,d clicks on %d partitions, %,d purchases on %d partitions, limits per"
            + " trigger %,d / %,d, heap %s each, load %s, work dir %s%n",
        clicks,
        CLICK_PARTITIONS,
        purchases,
        PURCHASE_PARTITIONS,
        clickLimit,
        purchaseLimit,
        heap,
        load(),
        dir);
    boolean equal = true;
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      broker.createTopic(CLICKS, CLICK_PARTITIONS);
      broker.createTopic(PURCHASES, PURCHASE_PARTITIONS);
      produce(broker.bootstrapServers(), JoinBenchEvents.generate(clicks, purchases, 1));
      long records = (long) clicks + purchases;

      resetPeaks();
      Ours ours = ours(broker.bootstrapServers(), dir, clickLimit, purchaseLimit, records);
      long oursRssMb = peakRssMb();
      System.out.printf(
          "Tributary: %,d ms, %,.0f records/s, %,d rows out, %d batches, peak heap %,d MB, peak"
              + " RSS %,d MB%n",
          ours.ms,
          records * 1000.0 / ours.ms,
          ours.outputRows,
          ours.batches,
          ours.peakHeapMb,
          oursRssMb);
      Map<String, Long> s = ours.state;
      System.out.printf(
          "Tributary join state after the last batch: clicks (left) %,d rows, %,d bytes (%s"
              + " B/row); purchases (right) %,d rows, %,d bytes (%s B/row)%n",
          s.getOrDefault("join.left.rows", 0L),
          s.getOrDefault("join.left.bytes", 0L),
          perRow(s.get("join.left.bytes"), s.get("join.left.rows")),
          s.getOrDefault("join.right.rows", 0L),
          s.getOrDefault("join.right.bytes", 0L),
          perRow(s.get("join.right.bytes"), s.get("join.right.rows")));
      System.out.printf("  state: %s%n", s);
      if (Boolean.getBoolean("bench.oursOnly")) {
        return; // -Dbench.oursOnly=true: Tributary alone, to profile it (no Spark, no comparison)
      }

      System.out.printf("Spark 4 + Delta 4 (local[2], RocksDB state store), load %s ...%n", load());
      JsonNode spark = spark(broker.bootstrapServers(), dir, clickLimit, purchaseLimit, heap);
      long sparkMs = spark.get("ms").asLong();
      spark.get("batchLines").forEach(l -> System.out.println("  " + l.asText()));
      System.out.printf(
          "Spark:     %,d ms (query; %,d ms with the JVM's start), %,.0f records/s, %,d rows out,"
              + " %d batches, peak RSS %,d MB%n",
          sparkMs,
          spark.get("processMs").asLong(),
          records * 1000.0 / sparkMs,
          spark.get("outputRows").asLong(),
          spark.get("batches").asInt(),
          spark.get("peakRssKb").asLong() >> 10);
      if (spark.get("inputRows").asLong() != records) {
        throw new IllegalStateException(
            "Spark read " + spark.get("inputRows") + " records, expected " + records);
      }
      System.out.printf(
          "Spark join state at the end: %,d rows (both sides; Tributary's: %,d), %,d bytes in"
              + " memory, %s%n",
          spark.path("stateRows").asLong(),
          s.getOrDefault("rows", 0L),
          spark.path("stateMemoryBytes").asLong(),
          spark.path("stateCustomMetrics"));
      System.out.printf(
          "ratio Tributary/Spark (records/s): %.2f; peak RSS Tributary %,d MB, Spark %,d MB; load"
              + " %s%n",
          (double) sparkMs / ours.ms, oursRssMb, spark.get("peakRssKb").asLong() >> 10, load());
      equal = compare(dir.resolve("tables/ours"), dir.resolve("tables/spark"));
    } finally {
      deleteRecursively(dir);
    }
    if (!equal) {
      System.exit(1);
    }
  }

  private static String perRow(Long bytes, Long rows) {
    return bytes == null || rows == null || rows == 0
        ? "-"
        : String.format("%.0f", (double) bytes / rows);
  }

  /** The one-, five- and fifteen-minute load averages of the machine. */
  private static String load() {
    try {
      String[] avg = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return avg[0] + " " + avg[1] + " " + avg[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static void produce(String bootstrap, JoinBenchEvents events) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L * 1024 * 1024);
    long start = System.nanoTime();
    long bytes = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      // record i on partition i mod n: a limit spread evenly over the partitions takes a
      // contiguous run of each input's event time (JoinBenchEvents)
      for (int i = 0; i < events.clicks(); i++) {
        byte[] value = events.clickJson(i).getBytes(StandardCharsets.UTF_8);
        bytes += value.length;
        producer.send(new ProducerRecord<>(CLICKS, i % CLICK_PARTITIONS, null, value));
      }
      for (int j = 0; j < events.purchases(); j++) {
        byte[] value = events.purchaseJson(j).getBytes(StandardCharsets.UTF_8);
        bytes += value.length;
        producer.send(new ProducerRecord<>(PURCHASES, j % PURCHASE_PARTITIONS, null, value));
      }
      producer.flush();
    }
    System.out.printf(
        "produced %,d records (%,d bytes) in %.1f s%n",
        (long) events.clicks() + events.purchases(), bytes, (System.nanoTime() - start) / 1e9);
  }

  /** Tributary's side: what it took and the last batch's state counters. */
  private record Ours(
      long ms, long outputRows, int batches, long peakHeapMb, Map<String, Long> state) {}

  private static final String PIPELINE =
      """
      pipeline: bench-join
      source:
        kafka:
          bootstrap-servers: %s
          topics: [%s]
          max-offsets-per-trigger: %d
      format:
        json:
          schema: { click_id: string, user_id: string, event_ts: timestamp, page: string }
      join:
        - stream:
            source: { kafka: { topics: [%s], max-offsets-per-trigger: %d } }
            format:
              json:
                schema: { purchase_id: string, user_id: string, event_ts: timestamp, amount: long }
            watermark: { column: event_ts, delay: 10 minutes }
            prefix: p_
          on: [user_id]
          time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
          type: inner
      watermark: { column: event_ts, delay: 10 minutes }
      sink: { delta: { path: "%s/tables/ours" } }
      checkpoint: "%s/checkpoints/ours"
      """;

  private static Ours ours(
      String bootstrap, Path dir, long clickLimit, long purchaseLimit, long records)
      throws Exception {
    String yaml =
        PIPELINE.formatted(bootstrap, CLICKS, clickLimit, PURCHASES, purchaseLimit, dir, dir);
    Files.writeString(dir.resolve("bench-join.yaml"), yaml);
    PipelineSpec spec = PipelineParser.parse(yaml, "bench-join.yaml", Map.of());
    ProgressLog progress = new ProgressLog(10_000);
    long start = System.nanoTime();
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    long peakHeapMb = peakHeapMb();
    List<BatchProgress> batches = progress.last(10_000);
    long read = batches.stream().mapToLong(BatchProgress::inputRows).sum();
    if (read != records) {
      throw new IllegalStateException("Tributary read " + read + " records, expected " + records);
    }
    for (BatchProgress b : batches) {
      System.out.printf(
          "  batch %d: %,d rows in, %,d out, %,d late, %,d ms %s, watermark %s%n",
          b.batchId(),
          b.inputRows(),
          b.outputRows(),
          b.lateRows(),
          b.durationMs(),
          b.phasesMs(),
          b.watermark());
    }
    return new Ours(
        ms,
        batches.stream().mapToLong(BatchProgress::outputRows).sum(),
        batches.size(),
        peakHeapMb,
        batches.get(batches.size() - 1).state());
  }

  /** Spark's side: runs JoinBenchSpark.java and returns its result, with the process's time. */
  private static JsonNode spark(
      String bootstrap, Path dir, long clickLimit, long purchaseLimit, String heap)
      throws Exception {
    Path result = dir.resolve("spark-result.json");
    Map<String, Object> job = new LinkedHashMap<>();
    job.put("bootstrap", bootstrap);
    job.put(
        "clicks",
        Map.of("topic", CLICKS, "schema", CLICK_SCHEMA, "maxOffsetsPerTrigger", clickLimit));
    job.put(
        "purchases",
        Map.of(
            "topic", PURCHASES, "schema", PURCHASE_SCHEMA, "maxOffsetsPerTrigger", purchaseLimit));
    job.put("delay", "10 minutes");
    job.put("prefix", "p_");
    job.put("condition", CONDITION);
    job.put("table", dir.resolve("tables/spark").toString());
    job.put("checkpoint", dir.resolve("checkpoints/spark").toString());
    job.put("shufflePartitions", 2);
    job.put("result", result.toString());
    long start = System.nanoTime();
    SparkProgram.run(
        "JoinBenchSpark.java", job, dir.resolve("spark-work"), heap, Duration.ofMinutes(60));
    long processMs = (System.nanoTime() - start) / 1_000_000;
    ObjectNode node = (ObjectNode) new ObjectMapper().readTree(result.toFile());
    node.put("processMs", processMs);
    return node;
  }

  /** Whether the two tables hold the same rows as multisets; prints the comparison. */
  private static boolean compare(Path ours, Path spark) throws IOException {
    long start = System.nanoTime();
    try (ComparedTable a = ComparedTable.open(TableRef.parse(ours.toString()), null);
        ComparedTable b = ComparedTable.open(TableRef.parse(spark.toString()), null)) {
      ComparisonResult r =
          Comparisons.compare(a, b, List.of(), Optional.empty(), CompareOptions.defaults());
      System.out.printf(
          "compare Tributary's table with Spark's (multisets, every column): %s; rows %,d and"
              + " %,d; only in Tributary's %,d, only in Spark's %,d (%,d ms)%n",
          r.equal() ? "EQUAL" : "DIFFERENT",
          r.rowsA(),
          r.rowsB(),
          r.onlyInA(),
          r.onlyInB(),
          (System.nanoTime() - start) / 1_000_000);
      r.samplesOnlyInA().forEach(row -> System.out.println("  only in Tributary's: " + row));
      r.samplesOnlyInB().forEach(row -> System.out.println("  only in Spark's: " + row));
      return r.equal();
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      pool.resetPeakUsage();
    }
    try {
      // Linux: writing 5 resets the peak RSS (VmHWM) of this process
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (Exception ignored) {
      // not Linux, or not permitted: the RSS peak then covers the whole run
    }
  }

  private static long peakHeapMb() {
    long heap = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heap += pool.getPeakUsage().getUsed();
      }
    }
    return heap >> 20;
  }

  private static long peakRssMb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) >> 10;
        }
      }
    } catch (Exception ignored) {
      // not Linux
    }
    return -1;
  }
}
