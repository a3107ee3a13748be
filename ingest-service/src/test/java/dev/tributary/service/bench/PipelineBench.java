package dev.tributary.service.bench;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.demo.LocalSchemaRegistry;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.testing.KafkaBrokerProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The stateless pipeline benchmark (run it with {@code bench/run-pipeline-bench [events]}): a real
 * broker in its own process, N JSON events of about 200 bytes on 4 partitions, then in the same run
 * (1) the baseline, a bare KafkaConsumer + Jackson streaming parse over the whole topic, and (2)
 * the stateless pipeline, available-now, into a local Delta table. Prints both rates and their
 * ratio (issue 27: >= 0.85), time to first batch, peak heap and peak RSS of this process. With the
 * second argument {@code seed-query} the pipeline is the stateful seed query instead (issue 27: >=
 * 0.7). With {@code avro} the events are Avro in the Confluent wire format, their schema in a
 * registry in this process ({@link LocalSchemaRegistry}); the baseline is then a bare KafkaConsumer
 * + Avro GenericDatumReader loop over the same records, and the pipeline the stateless one with
 * {@code format.avro}. Both are measured twice ({@code -Dbench.rounds}, default 2): round 1 in a
 * cold JVM, as a service that just started; round 2 in the same, now warm JVM, as a service that
 * has been running. Never part of the test suite: timings are measured, not asserted.
 */
public final class PipelineBench {
  static final String TOPIC = "bench-events";
  static final int PARTITIONS = 4;

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    String mode = args.length > 1 ? args[1] : "stateless";
    if (!List.of("stateless", "seed-query", "avro").contains(mode)) {
      throw new IllegalArgumentException("mode must be stateless, seed-query or avro, was " + mode);
    }
    boolean seedQuery = mode.equals("seed-query");
    Path dir = Files.createTempDirectory("tributary-pipeline-bench");
    System.out.printf(
        "Pipeline benchmark (%s): %,d events on %d partitions, work dir %s%n",
        mode, events, PARTITIONS, dir);
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"));
        LocalSchemaRegistry registry =
            mode.equals("avro") ? LocalSchemaRegistry.start(0, null, null, null) : null) {
      long produceStart = System.nanoTime();
      broker.createTopic(TOPIC, PARTITIONS);
      Avro avro =
          registry == null
              ? null
              : new Avro(registry.url(), registry.register(TOPIC + "-value", "AVRO", AVRO_SCHEMA));
      long bytes = produce(broker.bootstrapServers(), events, avro);
      System.out.printf(
          "produced %,d events (%,d bytes, %.0f bytes/event) in %.1f s%n",
          events, bytes, (double) bytes / events, (System.nanoTime() - produceStart) / 1e9);

      // Round 1 runs in a cold JVM, as a freshly started service does; round 2 repeats both
      // measurements in the now warm JVM (JIT-compiled code), as a long-running service runs.
      List<Double> ratios = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        System.out.printf(
            "-- round %d of %d (%s JVM)%n", round, ROUNDS, round == 1 ? "cold" : "warm");
        ratios.add(
            round(
                broker.bootstrapServers(), dir.resolve("round-" + round), events, seedQuery, avro));
      }
      System.out.printf(
          "ratios by round: %s (goal >= %s)%n",
          ratios.stream().map(r -> String.format("%.2f", r)).toList(), seedQuery ? "0.7" : "0.85");
    } finally {
      deleteRecursively(dir); // the topic alone is ~0.5 GB
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static final int ROUNDS = Integer.getInteger("bench.rounds", 2);

  /** One baseline and one pipeline measurement; prints them and returns the ratio. */
  private static double round(String bootstrap, Path dir, int events, boolean seedQuery, Avro avro)
      throws Exception {
    resetPeaks();
    long cpuBefore = processCpuNanos();
    double baseline = avro == null ? baseline(bootstrap, events) : avroBaseline(bootstrap, events);
    long baselineCpu = processCpuNanos() - cpuBefore;
    System.out.printf(
        "baseline  (KafkaConsumer + %s): %,.0f records/s, %.1f s CPU%n",
        avro == null ? "Jackson streaming parse" : "Avro GenericDatumReader",
        baseline,
        baselineCpu / 1e9);
    Memory baselineMemory = Memory.read();

    resetPeaks();
    cpuBefore = processCpuNanos();
    Result pipeline =
        avro != null
            ? pipeline(bootstrap, dir, events, STATELESS_AVRO.replace("%REGISTRY%", avro.url))
            : pipeline(bootstrap, dir, events, seedQuery ? SEED_QUERY : STATELESS);
    long pipelineCpu = processCpuNanos() - cpuBefore;
    Memory pipelineMemory = Memory.read();
    System.out.printf(
        "pipeline  (%s, available-now, local Delta table): %,.0f records/s in %d batches, %.1f s"
            + " CPU (%.1f s on the engine thread)%n",
        seedQuery
            ? "seed query: watermark + dedup + 5-minute windows, append"
            : avro != null ? "stateless, format.avro" : "stateless",
        pipeline.rate,
        pipeline.batches,
        pipelineCpu / 1e9,
        pipeline.engineCpuNanos / 1e9);
    double ratio = pipeline.rate / baseline;
    System.out.printf(
        "ratio pipeline/baseline: %.2f (goal >= %s); CPU time pipeline/baseline %.2f (this JVM,"
            + " the broker's process not counted); load average %s%n",
        ratio, seedQuery ? "0.7" : "0.85", (double) pipelineCpu / baselineCpu, loadAverage());
    if (!pipeline.state.isEmpty()) {
      System.out.printf("state after the last batch: %s%n", pipeline.state);
    }
    System.out.printf(
        "time to first batch: %d ms (start of run to first committed batch)%n",
        pipeline.firstBatchMs);
    System.out.printf(
        "peak heap: baseline %,d MB, pipeline %,d MB (max heap %,d MB)%n",
        baselineMemory.heapMb, pipelineMemory.heapMb, Runtime.getRuntime().maxMemory() >> 20);
    System.out.printf(
        "peak RSS:  baseline %,d MB, pipeline %,d MB%n",
        baselineMemory.rssMb, pipelineMemory.rssMb);
    return ratio;
  }

  /** The registry of the Avro mode and the id of {@link #AVRO_SCHEMA} in it. */
  record Avro(String url, int schemaId) {}

  /** The Avro mode's writer schema: the JSON events' fields, event_ts as timestamp-micros. */
  private static final String AVRO_SCHEMA =
      """
      {"type": "record", "name": "Event", "namespace": "bench", "fields": [
        {"name": "event_id", "type": "string"},
        {"name": "event_type", "type": "string"},
        {"name": "event_ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "user_id", "type": "string"},
        {"name": "amount", "type": "long"},
        {"name": "currency", "type": "string"},
        {"name": "page", "type": "string"},
        {"name": "session", "type": "string"}]}""";

  /**
   * Produces the events on {@link #TOPIC} (record i on partition i mod 4), as JSON when {@code
   * avro} is null; also used by {@link IngestBench}. Returns the bytes of the values.
   */
  static long produce(String bootstrap, int events, Avro avro) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L * 1024 * 1024);
    Random random = new Random(1);
    String[] types = {"view", "click", "purchase", "refund"};
    long bytes = 0;
    Instant start = Instant.parse("2026-11-01T00:00:00Z");
    Schema schema = new Schema.Parser().parse(AVRO_SCHEMA);
    GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
    BinaryEncoder encoder = null;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < events; i++) {
        if (avro != null) {
          GenericRecord r = new GenericData.Record(schema);
          r.put("event_id", "e-" + i);
          r.put("event_type", types[random.nextInt(4)]);
          Instant ts = start.plusMillis(i * 10L + random.nextInt(5000));
          r.put("event_ts", ts.toEpochMilli() * 1000);
          r.put("user_id", "u-" + random.nextInt(100_000));
          r.put("amount", (long) random.nextInt(100_000));
          r.put("currency", "EUR");
          r.put("page", "/products/" + random.nextInt(5000));
          r.put("session", "s-" + random.nextLong());
          ByteArrayOutputStream out = new ByteArrayOutputStream(128);
          out.writeBytes(ConfluentWireFormat.header(avro.schemaId));
          encoder = EncoderFactory.get().binaryEncoder(out, encoder);
          writer.write(r, encoder);
          encoder.flush();
          byte[] value = out.toByteArray();
          bytes += value.length;
          producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value));
          continue;
        }
        String json =
            "{\"event_id\":\"e-"
                + i
                + "\",\"event_type\":\""
                + types[random.nextInt(4)]
                + "\",\"event_ts\":\""
                + start.plusMillis(i * 10L + random.nextInt(5000))
                + "\",\"user_id\":\"u-"
                + random.nextInt(100_000)
                + "\",\"amount\":"
                + random.nextInt(100_000)
                + ",\"currency\":\"EUR\","
                + "\"page\":\"/products/"
                + random.nextInt(5000)
                + "\",\"session\":\"s-"
                + random.nextLong()
                + "\"}";
        byte[] value = json.getBytes(StandardCharsets.UTF_8);
        bytes += value.length;
        producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value));
      }
      producer.flush();
    }
    return bytes;
  }

  /**
   * A bare consumer over the whole topic, decoding every value after its 5-byte header with Avro's
   * GenericDatumReader and the writer schema (decoder and record reused, as a tuned loop would).
   */
  private static double avroBaseline(String bootstrap, int events) throws Exception {
    Schema schema = new Schema.Parser().parse(AVRO_SCHEMA);
    GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(schema);
    BinaryDecoder decoder = null;
    GenericRecord reuse = null;
    long start = System.nanoTime();
    long seen = 0;
    long checksum = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(bootstrap))) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        partitions.add(new TopicPartition(TOPIC, i));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (seen < events) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          byte[] v = record.value();
          decoder =
              DecoderFactory.get()
                  .binaryDecoder(
                      v,
                      ConfluentWireFormat.HEADER_SIZE,
                      v.length - ConfluentWireFormat.HEADER_SIZE,
                      decoder);
          reuse = reader.read(reuse, decoder);
          checksum += (Long) reuse.get("amount") + (Long) reuse.get("event_ts");
          seen++;
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (checksum == 42) {
      System.out.println(); // keeps the decode from being optimised away
    }
    return seen / seconds;
  }

  private static Map<String, Object> consumerConfig(String bootstrap) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    return config;
  }

  /** A bare consumer over the whole topic, parsing every value with Jackson's streaming parser. */
  private static double baseline(String bootstrap, int events) throws Exception {
    CeilingLoop.Pass pass = CeilingLoop.run(bootstrap, TOPIC, PARTITIONS, events);
    if (pass.checksum() == 42) {
      System.out.println(); // keeps the parse from being optimised away
    }
    return pass.records() / (pass.nanos() / 1e9);
  }

  /**
   * @param engineCpuNanos CPU time of the thread that ran the batches (this one): the critical path
   *     the other threads (dedup, decode, Parquet writer) relieve
   */
  private record Result(
      double rate, long firstBatchMs, int batches, Map<String, Long> state, long engineCpuNanos) {}

  /** The stateless pipeline: schema, a filter and a derived column. */
  private static final String STATELESS =
      """
        pipeline: bench-stateless
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 500000
        format:
          json:
            schema:
              event_id: string
              event_type: string
              event_ts: timestamp
              user_id: string
              amount: long
              currency: string
              page: string
        transform:
          - filter: "amount >= 0"
          - derive: { amount_eur: "amount / 100.0" }
        sink:
          delta:
            path: %s/tables/events
        checkpoint: %s/checkpoints/events
        """;

  /** The stateless pipeline on the Avro events: the same columns and transforms, format.avro. */
  private static final String STATELESS_AVRO =
      STATELESS
          .replace("\n  json:\n", "\n  avro:\n    registry: { url: \"%REGISTRY%\" }\n")
          .replace("bench-stateless", "bench-stateless-avro");

  /**
   * The seed query of a Spark user: withWatermark("event_ts", "10
   * minutes").dropDuplicates("event_id", "event_ts").groupBy(window("event_ts", "5 minutes"),
   * "event_type").agg(count("*"), sum("amount")).
   */
  private static final String SEED_QUERY =
      """
        pipeline: bench-seed-query
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 500000
        format:
          json:
            schema:
              event_id: string
              event_type: string
              event_ts: timestamp
              amount: long
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, event_ts] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures:
            events: count()
            amount: sum(amount)
        output-mode: append
        sink:
          delta:
            path: %s/tables/events
        checkpoint: %s/checkpoints/events
        """;

  private static Result pipeline(String bootstrap, Path dir, int events, String template)
      throws Exception {
    String yaml = template.formatted(bootstrap, TOPIC, dir, dir);
    PipelineSpec spec = PipelineParser.parse(yaml, "bench.yaml", Map.of());
    ProgressLog progress = new ProgressLog(1000);
    AtomicLong firstBatchAt = new AtomicLong();
    progress.addListener(p -> firstBatchAt.compareAndSet(0, System.nanoTime()));
    long start = System.nanoTime();
    long engineCpuStart = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long engineCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - engineCpuStart;
    List<BatchProgress> batches = progress.last(1000);
    long rows = batches.stream().mapToLong(BatchProgress::inputRows).sum();
    if (rows != events) { // (a no-data batch at the end reads nothing, so the sum still matches)
      throw new IllegalStateException("pipeline read " + rows + " records, expected " + events);
    }
    for (BatchProgress b : batches) {
      System.out.printf(
          "  batch %d: %,d rows, %d ms %s%n",
          b.batchId(), b.inputRows(), b.durationMs(), b.phasesMs());
    }
    return new Result(
        rows / seconds,
        (firstBatchAt.get() - start) / 1_000_000,
        batches.size(),
        batches.get(batches.size() - 1).state(),
        engineCpu);
  }

  /** CPU time of this process, every thread (the broker runs in its own process). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** The machine's load averages (1, 5, 15 minutes): the benchmark shares the machine. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return String.format(
          "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      pool.resetPeakUsage();
    }
    try {
      // Linux: writing 5 resets the peak RSS (VmHWM) of this process.
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (Exception ignored) {
      // not Linux, or not permitted: the RSS peak then covers the whole run
    }
  }

  private record Memory(long heapMb, long rssMb) {
    static Memory read() {
      long heap = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          heap += pool.getPeakUsage().getUsed();
        }
      }
      long rssKb = -1;
      try {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
          if (line.startsWith("VmHWM:")) {
            rssKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
          }
        }
      } catch (Exception ignored) {
        // not Linux
      }
      return new Memory(heap >> 20, rssKb >> 10);
    }
  }
}
