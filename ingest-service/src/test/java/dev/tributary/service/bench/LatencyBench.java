package dev.tributary.service.bench;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end latency of a Kafka → Kafka pipeline (issue 24 item 3; run it with {@code
 * bench/run-latency-bench [seconds] [warmup-seconds]}). Never part of the test suite: latencies are
 * measured and printed, never asserted.
 *
 * <p>A real broker in its own process ({@link KafkaBrokerProcess}). For each offered load ({@code
 * -Dbench.rates}, default 10,000 and 50,000 records/s) and each trigger below, in the same run:
 * fresh topics (4 partitions) and checkpoint; the pipeline (parse, filter, derive, {@code
 * sink.kafka} as JSON) runs in this JVM; a rate-limited producer sends JSON events of about 200
 * bytes, each carrying its send time ({@code sent_us}, epoch microseconds, taken right before
 * {@code send}; producer {@code linger.ms} 0); a consumer of the output topic ({@code
 * read_committed} for exactly-once, {@code read_uncommitted} for at-least-once, as a reader of each
 * would be configured) takes the time each poll returns and subtracts {@code sent_us}. The
 * producer, the pipeline and the consumer share one JVM, hence one clock. A first run, not
 * reported, warms the JVM up (JIT). The first {@code warmup} seconds of each run are not measured
 * (the first batches); then {@code seconds} are; the consumer then gets up to 30 s to receive what
 * was sent. Printed per run: p50, p99 and max of the measured records, how many were received, the
 * load actually offered and the batches' mean duration.
 *
 * <p>The triggers: {@code continuous: 1s} (the seed's interval) exactly-once and at-least-once,
 * {@code continuous: 100ms} exactly-once, and the micro-batch trigger {@code processing-time:
 * 100ms} exactly-once (see README "Benchmarks" for why 100 ms).
 */
public final class LatencyBench {
  private static final int PARTITIONS = 4;
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final byte[] SENT = "\"sent_us\":".getBytes(StandardCharsets.UTF_8);

  private LatencyBench() {}

  /**
   * One trigger, delivery and sink measured: {@code delta} runs measure freshness (the commit that
   * made each record visible in the table), {@code kafka} runs the output topic's receipt.
   */
  private record Mode(String name, TriggerSpec trigger, String delivery, boolean delta) {
    Mode(String name, TriggerSpec trigger, String delivery) {
      this(name, trigger, delivery, false);
    }

    boolean exactlyOnce() {
      return delivery.equals("exactly-once");
    }

    String reader() {
      if (delta) {
        return "commit file seen";
      }
      return exactlyOnce() ? "read_committed" : "read_uncommitted";
    }
  }

  private static final List<Mode> MODES =
      List.of(
          new Mode(
              "continuous 1s, exactly-once",
              new TriggerSpec.Continuous(Duration.ofSeconds(1)),
              "exactly-once"),
          new Mode(
              "continuous 100ms, exactly-once",
              new TriggerSpec.Continuous(Duration.ofMillis(100)),
              "exactly-once"),
          new Mode(
              "continuous 1s, at-least-once",
              new TriggerSpec.Continuous(Duration.ofSeconds(1)),
              "at-least-once"),
          new Mode(
              "processing-time 100ms, exactly-once",
              new TriggerSpec.ProcessingTime(Duration.ofMillis(100)),
              "exactly-once"));

  /**
   * Freshness into Delta (issue 27 item 4): the micro-batch triggers a Delta pipeline runs with.
   */
  private static final List<Mode> DELTA_MODES =
      List.of(
          new Mode(
              "processing-time 500ms, Delta",
              new TriggerSpec.ProcessingTime(Duration.ofMillis(500)),
              "exactly-once",
              true),
          new Mode(
              "processing-time 1s, Delta",
              new TriggerSpec.ProcessingTime(Duration.ofSeconds(1)),
              "exactly-once",
              true));

  /** What one run measured. */
  private record Result(
      Mode mode,
      int rate,
      double offered,
      long sent,
      long received,
      long p50Us,
      long p99Us,
      long maxUs,
      long batches,
      double meanBatchMs,
      long longestBatchMs,
      Map<String, Long> meanPhasesMs,
      List<String> longestBatches) {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    boolean delta = args.length > 2 && args[2].equals("delta");
    List<Mode> modes = delta ? DELTA_MODES : MODES;
    int[] rates =
        Arrays.stream(System.getProperty("bench.rates", delta ? "50000" : "10000,50000").split(","))
            .mapToInt(s -> Integer.parseInt(s.trim()))
            .toArray();
    Path dir = Files.createTempDirectory("tributary-latency-bench");
    System.out.printf(
        "Latency benchmark (%s): %s records/s offered, %d s measured after %d s of warm-up per run,"
            + " %d partitions, %d cores, work dir %s%n",
        delta ? "Kafka -> Delta freshness" : "Kafka -> Kafka",
        Arrays.toString(rates),
        seconds,
        warmup,
        PARTITIONS,
        Runtime.getRuntime().availableProcessors(),
        dir);
    List<Result> results = new ArrayList<>();
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      // a cold JVM's first run pays for the JIT compilation of the whole path: one run before the
      // measured ones. Kafka -> Kafka does not report it; Delta reports it from the first record
      // (what a service that just started gives), apart from the warm runs.
      if (delta) {
        Mode first = modes.get(0);
        Mode cold =
            new Mode(
                first.name() + ", cold JVM from the first record",
                first.trigger(),
                first.delivery(),
                true);
        Result r = measure(broker, dir.resolve("run-0"), 0, cold, rates[0], warmup + seconds, 0);
        System.out.printf(
            "%s%n  mean phases of a batch, ms: %s%n  longest batches: %s%n",
            row(r), r.meanPhasesMs(), r.longestBatches());
        results.add(r);
      } else {
        Result cold =
            measure(broker, dir.resolve("run-0"), 0, MODES.get(1), rates[0], warmup, warmup);
        System.out.printf("(warm-up run, not reported: %s)%n", row(cold));
      }
      int run = 0;
      for (int rate : rates) {
        for (Mode mode : modes) {
          run++;
          Result r = measure(broker, dir.resolve("run-" + run), run, mode, rate, seconds, warmup);
          System.out.printf(
              "%s%n  mean phases of a batch, ms: %s%n  longest batches: %s%n",
              row(r), r.meanPhasesMs(), r.longestBatches());
          results.add(r);
        }
      }
    } finally {
      deleteRecursively(dir);
    }
    System.out.printf("%n%s%n", header());
    results.forEach(r -> System.out.println(row(r)));
    System.exit(0); // the broker fixture's shutdown hook stops it
  }

  private static String header() {
    return "| offered load | trigger, delivery (seen by) | p50 | p99 | max | received / sent"
        + " | batches, mean duration, longest |\n|---|---|---|---|---|---|---|";
  }

  private static String row(Result r) {
    return String.format(
        "| %,d/s (%,.0f/s achieved) | %s (%s) | %s | %s | %s | %,d / %,d | %,d, %.0f ms, %,d ms |",
        r.rate(),
        r.offered(),
        r.mode().name(),
        r.mode().reader(),
        ms(r.p50Us()),
        ms(r.p99Us()),
        ms(r.maxUs()),
        r.received(),
        r.sent(),
        r.batches(),
        r.meanBatchMs(),
        r.longestBatchMs());
  }

  private static String ms(long micros) {
    return micros < 10_000
        ? String.format("%.1f ms", micros / 1000.0)
        : String.format("%,d ms", micros / 1000);
  }

  private static final String PIPELINE =
      """
        pipeline: latency-%d
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema:
              event_id: string
              event_type: string
              user_id: string
              amount: long
              page: string
              session: string
              sent_us: long
        transform:
          - filter: "amount >= 0"
          - derive: { amount_eur: "amount / 100.0" }
        sink:
        %s
        checkpoint: %s
        """;

  private static Result measure(
      KafkaBrokerProcess broker, Path dir, int run, Mode mode, int rate, int seconds, int warmup)
      throws Exception {
    String in = "latency-in-" + run;
    String out = "latency-out-" + run;
    broker.createTopic(in, PARTITIONS);
    Path table = dir.resolve("table");
    String sink;
    if (mode.delta()) {
      sink = "  delta:\n    path: " + table;
    } else {
      broker.createTopic(out, PARTITIONS);
      sink =
          "  kafka:\n    topic: %s\n    key: \"user_id\"\n    delivery: %s"
              .formatted(out, mode.delivery());
    }
    String yaml =
        PIPELINE.formatted(
            run, broker.bootstrapServers(), in, sink, dir.resolve("checkpoint").toString());
    PipelineSpec spec = PipelineParser.parse(yaml, "latency.yaml", Map.of());
    ProgressLog progress = new ProgressLog(100_000);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Receiver receiver = mode.delta() ? null : new Receiver(broker.bootstrapServers(), out, mode);
    CommitWatcher commits = mode.delta() ? new CommitWatcher(table.resolve("_delta_log")) : null;
    SendLog sends = new SendLog();
    try (PipelineRun pipeline =
        PipelineRun.open(PipelineFactory.compile(spec), mode.trigger(), progress)) {
      Thread runner =
          new Thread(
              () -> {
                try {
                  pipeline.run();
                } catch (Throwable t) {
                  failure.set(t);
                }
              },
              "latency-pipeline");
      runner.start();
      if (receiver != null) {
        receiver.start();
      } else {
        commits.start();
      }
      long measureFromUs = nowMicros() + warmup * 1_000_000L;
      if (receiver != null) {
        receiver.measureFrom(measureFromUs);
      }
      long measured =
          produce(broker.bootstrapServers(), in, rate, warmup, seconds, measureFromUs, sends);
      long deadline = System.nanoTime() + DRAIN.toNanos();
      while ((receiver != null ? receiver.received() < measured : !allCommitted(progress, sends))
          && System.nanoTime() < deadline
          && failure.get() == null) {
        LockSupport.parkNanos(20_000_000); // a benchmark's own pacing, no assertion waits on it
      }
      pipeline.stop();
      runner.join(60_000);
      if (receiver != null) {
        receiver.stop();
      } else {
        commits.stop();
      }
      if (failure.get() != null) {
        throw new IllegalStateException("the pipeline failed: " + mode.name(), failure.get());
      }
      List<BatchProgress> batches = progress.last(100_000);
      long[] latencies =
          receiver != null
              ? receiver.latencies()
              : freshness(batches, commits, sends, measureFromUs);
      Arrays.sort(latencies);
      double meanBatchMs =
          batches.stream().mapToLong(BatchProgress::durationMs).average().orElse(0);
      long longestBatchMs = batches.stream().mapToLong(BatchProgress::durationMs).max().orElse(0);
      double offered = measured / (double) seconds;
      return new Result(
          mode,
          rate,
          offered,
          measured,
          latencies.length,
          percentile(latencies, 0.50),
          percentile(latencies, 0.99),
          latencies.length == 0 ? -1 : latencies[latencies.length - 1],
          batches.size(),
          meanBatchMs,
          longestBatchMs,
          meanPhases(batches),
          batches.stream()
              .sorted(Comparator.comparingLong(BatchProgress::durationMs).reversed())
              .limit(3)
              .map(b -> "batch " + b.batchId() + " " + b.durationMs() + " ms " + b.phasesMs())
              .toList());
    }
  }

  /** Whether the batches committed so far cover every record sent. */
  private static boolean allCommitted(ProgressLog progress, SendLog sends) {
    long[] covered = new long[PARTITIONS];
    for (BatchProgress b : progress.last(100_000)) {
      for (BatchProgress.PartitionProgress p : b.partitions()) {
        covered[p.partition()] = Math.max(covered[p.partition()], p.endOffset());
      }
    }
    for (int p = 0; p < PARTITIONS; p++) {
      if (covered[p] < sends.count(p)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Each measured record's freshness: when the commit file of the Delta version its batch committed
   * was first seen, minus the record's send time. A record's batch is the one whose offset range
   * holds it; the send log knows each offset's send time (one producer, partition chosen by the
   * sender, a fresh topic: the n-th record sent to a partition has offset n).
   */
  private static long[] freshness(
      List<BatchProgress> batches, CommitWatcher commits, SendLog sends, long measureFromUs) {
    long[] out = new long[1 << 16];
    int n = 0;
    long[] covered = new long[PARTITIONS];
    for (BatchProgress b : batches) {
      if (b.inputRows() == 0) {
        continue;
      }
      Long seenUs = commits.seenAtUs(b.sinkVersion());
      if (seenUs == null) {
        throw new IllegalStateException(
            "batch " + b.batchId() + " committed version " + b.sinkVersion() + ", never seen");
      }
      for (BatchProgress.PartitionProgress p : b.partitions()) {
        if (p.startOffset() != covered[p.partition()]) {
          throw new IllegalStateException(
              "batch "
                  + b.batchId()
                  + " starts partition "
                  + p.partition()
                  + " at "
                  + p.startOffset()
                  + ", the previous batch ended at "
                  + covered[p.partition()]);
        }
        covered[p.partition()] = p.endOffset();
        for (long offset = p.startOffset(); offset < p.endOffset(); offset++) {
          long sentUs = sends.sentUs(p.partition(), offset);
          if (sentUs >= measureFromUs) {
            if (n == out.length) {
              out = Arrays.copyOf(out, n * 2);
            }
            out[n++] = seenUs - sentUs;
          }
        }
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** Each phase's mean duration over the batches (where the time of a batch goes). */
  private static Map<String, Long> meanPhases(List<BatchProgress> batches) {
    Map<String, Long> sums = new LinkedHashMap<>();
    batches.forEach(b -> b.phasesMs().forEach((phase, ms) -> sums.merge(phase, ms, Long::sum)));
    sums.replaceAll((phase, sum) -> sum / Math.max(1, batches.size()));
    return sums;
  }

  private static long percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return -1;
    }
    int index = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /**
   * Sends {@code rate} records a second for {@code warmup + seconds} seconds, each record's send
   * time in it and in {@code sends}, spread evenly (what is due is sent every 100 µs or so), record
   * {@code i} to partition {@code i mod 4}.
   *
   * @return the number of records sent from {@code measureFromUs} on (those are measured)
   */
  private static long produce(
      String bootstrap,
      String topic,
      int rate,
      int warmup,
      int seconds,
      long measureFromUs,
      SendLog sends)
      throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    // the send log's offsets assume no record is written twice or out of order within a partition
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    AtomicReference<Exception> failed = new AtomicReference<>();
    String[] types = {"view", "click", "purchase", "refund"};
    long start = System.nanoTime();
    long end = start + (warmup + seconds) * 1_000_000_000L;
    long sent = 0;
    long measured = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (long now = start; now < end; now = System.nanoTime()) {
        long due = (now - start) * rate / 1_000_000_000L;
        for (; sent < due; sent++) {
          long sentUs = nowMicros();
          String json =
              "{\"event_id\":\"e-"
                  + sent
                  + "\",\"event_type\":\""
                  + types[(int) (sent % 4)]
                  + "\",\"user_id\":\"u-"
                  + (sent * 7919 % 100_000)
                  + "\",\"amount\":"
                  + (sent * 31 % 100_000)
                  + ",\"page\":\"/products/"
                  + (sent % 5000)
                  + "\",\"session\":\"s-"
                  + sent * 2654435761L
                  + "\",\"sent_us\":"
                  + sentUs
                  + "}";
          int partition = (int) (sent % PARTITIONS);
          sends.add(partition, sentUs);
          producer.send(
              new ProducerRecord<>(topic, partition, null, json.getBytes(StandardCharsets.UTF_8)),
              (m, e) -> {
                if (e != null) {
                  failed.compareAndSet(null, e);
                }
              });
          if (sentUs >= measureFromUs) {
            measured++;
          }
        }
        LockSupport.parkNanos(100_000);
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    return measured;
  }

  /** Each partition's send times by offset (the producer's thread writes, others read after). */
  private static final class SendLog {
    private final long[][] sentUs = new long[PARTITIONS][1 << 16];
    private final int[] counts = new int[PARTITIONS];

    synchronized void add(int partition, long us) {
      int n = counts[partition];
      if (n == sentUs[partition].length) {
        sentUs[partition] = Arrays.copyOf(sentUs[partition], n * 2);
      }
      sentUs[partition][n] = us;
      counts[partition] = n + 1;
    }

    synchronized long count(int partition) {
      return counts[partition];
    }

    synchronized long sentUs(int partition, long offset) {
      if (offset >= counts[partition]) {
        throw new IllegalStateException(
            "offset "
                + offset
                + " of partition "
                + partition
                + " was never sent ("
                + counts[partition]
                + " were)");
      }
      return sentUs[partition][(int) offset];
    }
  }

  /**
   * Watches a Delta table's log for the next version's commit file every millisecond and keeps when
   * each was first seen: the moment its rows became visible to a reader listing the log.
   */
  private static final class CommitWatcher {
    private final Path log;
    private final Map<Long, Long> seenAtUs = new java.util.concurrent.ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean stopped;

    CommitWatcher(Path log) {
      this.log = log;
      this.thread = new Thread(this::watch, "latency-commit-watcher");
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void watch() {
      long next = 0;
      while (!stopped) {
        if (Files.exists(log.resolve(String.format("%020d.json", next)))) {
          seenAtUs.put(next, nowMicros());
          next++;
        } else {
          LockSupport.parkNanos(1_000_000);
        }
      }
    }

    Long seenAtUs(long version) {
      return seenAtUs.get(version);
    }

    void stop() throws InterruptedException {
      stopped = true;
      thread.join(10_000);
    }
  }

  private static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
  }

  /**
   * The output topic's reader: the time each poll returns minus each measured record's {@code
   * sent_us}.
   */
  private static final class Receiver {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private volatile long measureFromUs = Long.MAX_VALUE;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stopped;
    private volatile long received;
    private long[] latencies = new long[1 << 16];

    Receiver(String bootstrap, String topic, Mode mode) {
      Map<String, Object> config = new HashMap<>();
      config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      config.put(
          ConsumerConfig.ISOLATION_LEVEL_CONFIG,
          mode.exactlyOnce() ? "read_committed" : "read_uncommitted");
      this.consumer = new KafkaConsumer<>(config);
      this.topic = topic;
      this.thread = new Thread(this::receive, "latency-receiver");
    }

    /** Records sent from {@code sentUs} on are measured (the warm-up before is not). */
    void measureFrom(long sentUs) {
      measureFromUs = sentUs;
    }

    void start() {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        partitions.add(new TopicPartition(topic, i));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      thread.start();
    }

    private void receive() {
      try {
        while (!stopped) {
          ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
          long atUs = nowMicros();
          for (ConsumerRecord<byte[], byte[]> r : records) {
            long sentUs = sentUs(r.value());
            if (sentUs >= measureFromUs) {
              add(atUs - sentUs);
            }
          }
        }
      } catch (Throwable t) {
        failure.set(t);
      } finally {
        consumer.close();
      }
    }

    private void add(long latencyUs) {
      int n = (int) received;
      if (n == latencies.length) {
        latencies = Arrays.copyOf(latencies, n * 2);
      }
      latencies[n] = latencyUs;
      received = n + 1;
    }

    long received() {
      return received;
    }

    void stop() throws InterruptedException {
      stopped = true;
      thread.join(30_000);
      if (failure.get() != null) {
        throw new IllegalStateException("the receiver failed", failure.get());
      }
    }

    /** After {@link #stop}: the measured latencies, microseconds. */
    long[] latencies() {
      return Arrays.copyOf(latencies, (int) received);
    }

    /** The {@code sent_us} field of the sink's JSON, found without a full parse. */
    private static long sentUs(byte[] json) {
      int at = indexOf(json, SENT);
      if (at < 0) {
        throw new IllegalStateException(
            "no sent_us in " + new String(json, StandardCharsets.UTF_8));
      }
      long value = 0;
      for (int i = at + SENT.length; i < json.length && json[i] >= '0' && json[i] <= '9'; i++) {
        value = value * 10 + (json[i] - '0');
      }
      return value;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
      outer:
      for (int i = 0; i <= haystack.length - needle.length; i++) {
        for (int j = 0; j < needle.length; j++) {
          if (haystack[i + j] != needle[j]) {
            continue outer;
          }
        }
        return i;
      }
      return -1;
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
