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

  /** One trigger and delivery measured. */
  private record Mode(String name, TriggerSpec trigger, String delivery) {
    boolean exactlyOnce() {
      return delivery.equals("exactly-once");
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
      Map<String, Long> meanPhasesMs) {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int[] rates =
        Arrays.stream(System.getProperty("bench.rates", "10000,50000").split(","))
            .mapToInt(s -> Integer.parseInt(s.trim()))
            .toArray();
    Path dir = Files.createTempDirectory("tributary-latency-bench");
    System.out.printf(
        "Latency benchmark: %s records/s offered, %d s measured after %d s of warm-up per run,"
            + " %d partitions, %d cores, work dir %s%n",
        Arrays.toString(rates),
        seconds,
        warmup,
        PARTITIONS,
        Runtime.getRuntime().availableProcessors(),
        dir);
    List<Result> results = new ArrayList<>();
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      // a cold JVM's first run pays for the JIT compilation of the whole path: one run before the
      // measured ones, not reported
      Result cold =
          measure(broker, dir.resolve("run-0"), 0, MODES.get(1), rates[0], warmup, warmup);
      System.out.printf("(warm-up run, not reported: %s)%n", row(cold));
      int run = 0;
      for (int rate : rates) {
        for (Mode mode : MODES) {
          run++;
          Result r = measure(broker, dir.resolve("run-" + run), run, mode, rate, seconds, warmup);
          System.out.printf("%s%n  mean phases of a batch, ms: %s%n", row(r), r.meanPhasesMs());
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
    return "| offered load | trigger, delivery (consumer) | p50 | p99 | max | received / sent"
        + " | batches, mean duration |\n|---|---|---|---|---|---|---|";
  }

  private static String row(Result r) {
    return String.format(
        "| %,d/s (%,.0f/s achieved) | %s (%s) | %s | %s | %s | %,d / %,d | %,d, %.0f ms |",
        r.rate(),
        r.offered(),
        r.mode().name(),
        r.mode().exactlyOnce() ? "read_committed" : "read_uncommitted",
        ms(r.p50Us()),
        ms(r.p99Us()),
        ms(r.maxUs()),
        r.received(),
        r.sent(),
        r.batches(),
        r.meanBatchMs());
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
          kafka:
            topic: %s
            key: "user_id"
            delivery: %s
        checkpoint: %s
        """;

  private static Result measure(
      KafkaBrokerProcess broker, Path dir, int run, Mode mode, int rate, int seconds, int warmup)
      throws Exception {
    String in = "latency-in-" + run;
    String out = "latency-out-" + run;
    broker.createTopic(in, PARTITIONS);
    broker.createTopic(out, PARTITIONS);
    String yaml =
        PIPELINE.formatted(
            run,
            broker.bootstrapServers(),
            in,
            out,
            mode.delivery(),
            dir.resolve("checkpoint").toString());
    PipelineSpec spec = PipelineParser.parse(yaml, "latency.yaml", Map.of());
    ProgressLog progress = new ProgressLog(100_000);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Receiver receiver = new Receiver(broker.bootstrapServers(), out, mode);
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
      receiver.start();
      long[] sent = produce(broker.bootstrapServers(), in, rate, warmup, seconds, receiver);
      long deadline = System.nanoTime() + DRAIN.toNanos();
      while (receiver.received() < sent[0]
          && System.nanoTime() < deadline
          && failure.get() == null) {
        LockSupport.parkNanos(20_000_000); // a benchmark's own pacing, no assertion waits on it
      }
      pipeline.stop();
      runner.join(60_000);
      receiver.stop();
      if (failure.get() != null) {
        throw new IllegalStateException("the pipeline failed: " + mode.name(), failure.get());
      }
      long[] latencies = receiver.latencies();
      Arrays.sort(latencies);
      List<BatchProgress> batches = progress.last(100_000);
      double meanBatchMs =
          batches.stream().mapToLong(BatchProgress::durationMs).average().orElse(0);
      double offered = sent[0] / (double) seconds;
      return new Result(
          mode,
          rate,
          offered,
          sent[0],
          latencies.length,
          percentile(latencies, 0.50),
          percentile(latencies, 0.99),
          latencies.length == 0 ? -1 : latencies[latencies.length - 1],
          batches.size(),
          meanBatchMs,
          meanPhases(batches));
    }
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
   * time in it, spread evenly (what is due is sent every 100 µs or so).
   *
   * @return the number of records sent after the warm-up (the receiver measures those)
   */
  private static long[] produce(
      String bootstrap, String topic, int rate, int warmup, int seconds, Receiver receiver)
      throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    AtomicReference<Exception> failed = new AtomicReference<>();
    String[] types = {"view", "click", "purchase", "refund"};
    long start = System.nanoTime();
    long end = start + (warmup + seconds) * 1_000_000_000L;
    long measureFromUs = nowMicros() + warmup * 1_000_000L;
    receiver.measureFrom(measureFromUs);
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
          producer.send(
              new ProducerRecord<>(
                  topic, (int) (sent % PARTITIONS), null, json.getBytes(StandardCharsets.UTF_8)),
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
    return new long[] {measured};
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
