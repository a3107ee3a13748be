package dev.tributary.service.bench;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.sink.jdbc.JdbcTableSink;
import dev.tributary.service.sink.jdbc.PostgresDialect;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.service.testing.PostgresTestServer;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * The sink benchmarks of issue 24 (run them with {@code bench/run-sink-bench [rows] [jdbc|kafka]}).
 * Never part of the test suite: rates are measured and printed with their ratio to a baseline
 * measured in the same run, never asserted.
 *
 * <p>{@code jdbc}: the test PostgreSQL server ({@link PostgresTestServer}: a real server on
 * loopback, fsync off), N order rows of 8 columns (the last three the Kafka metadata columns a
 * stateless pipeline writes) generated in memory, written in batches of {@code -Dbench.batch} rows
 * (default 100,000), each batch one transaction: (1) the baseline, a plain JDBC {@code COPY … FROM
 * STDIN} of the same rows through the driver's CopyManager, text built by hand, measured before and
 * after the sinks (the ratios are to the mean of the two: on a busy machine the order matters); (2)
 * {@link JdbcTableSink} appending; (3) {@link JdbcTableSink} upserting by the order id, with half
 * of the rows updating ids written before. Rounds ({@code -Dbench.rounds}, default 2): round 1 in a
 * cold JVM, then warm.
 *
 * <p>{@code kafka}: a real broker in its own process ({@link KafkaBrokerProcess}), N JSON events of
 * about 200 bytes on 4 partitions; (1) the baseline, a bare loop of a KafkaConsumer over the whole
 * topic and a KafkaProducer sending each value on to another topic ({@code acks=all}, idempotent,
 * {@code linger.ms} 5 like the sink's, no parse, no transactions), timed until every send is
 * acknowledged, measured before and after the pipelines (the ratios are to the mean of the two);
 * (2) and (3) a pipeline (parse, filter, derive; available-now) whose {@code sink.kafka} sends the
 * rows as JSON, {@code delivery: exactly-once} and {@code at-least-once}. The topics written are
 * counted afterwards ({@code read_committed}) to check every record arrived.
 */
public final class SinkBench {
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 2);
  private static final int BATCH = Integer.getInteger("bench.batch", 100_000);
  private static final int PARTITIONS = 4;
  private static final String TOPIC = "bench-events";

  private SinkBench() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 500_000;
    String mode = args.length > 1 ? args[1] : "jdbc";
    switch (mode) {
      case "jdbc" -> jdbc(rows);
      case "kafka" -> kafka(rows);
      default -> throw new IllegalArgumentException("mode must be jdbc or kafka, was " + mode);
    }
    System.exit(0); // the fixtures' shutdown hooks stop the servers
  }

  // ---------------------------------------------------------------- jdbc

  private static final StructType ORDERS =
      new StructType(
          List.of(
              StructField.nullable("order_id", PrimitiveType.LONG),
              StructField.nullable("customer_id", PrimitiveType.STRING),
              StructField.nullable("amount_cents", PrimitiveType.LONG),
              StructField.nullable("status", PrimitiveType.STRING),
              StructField.nullable("event_time", PrimitiveType.TIMESTAMP),
              StructField.nullable("_kafka_topic", PrimitiveType.STRING),
              StructField.nullable("_kafka_partition", PrimitiveType.INTEGER),
              StructField.nullable("_kafka_offset", PrimitiveType.LONG)));

  private static final String ORDERS_DDL =
      " (order_id bigint, customer_id text, amount_cents bigint, status text, event_time"
          + " timestamp with time zone, _kafka_topic text, _kafka_partition integer, _kafka_offset"
          + " bigint)";

  private static void jdbc(int count) throws Exception {
    PostgresTestServer pg = PostgresTestServer.shared();
    System.out.printf(
        "JDBC sink benchmark: %,d rows of %d columns, batches of %,d rows (one transaction each),"
            + " PostgreSQL on 127.0.0.1:%d (fsync off)%n",
        count, ORDERS.size(), BATCH, pg.port());
    List<Object[]> append = orders(count, count);
    List<Object[]> upsert = orders(count, count / 2); // the second half updates the first half
    List<String> ratios = new ArrayList<>();
    for (int round = 1; round <= ROUNDS; round++) {
      System.out.printf(
          "-- round %d of %d (%s JVM)%n", round, ROUNDS, round == 1 ? "cold" : "warm");
      String url = pg.createDatabase();
      double before = plainCopy(url, "orders_copy", append);
      System.out.printf("baseline  (plain JDBC COPY FROM STDIN): %,.0f rows/s%n", before);
      double appended = throughSink(url, "orders_append", JdbcSinkSpec.Write.APPEND, append);
      System.out.printf("sink      (JdbcTableSink, write: append): %,.0f rows/s%n", appended);
      double upserted = throughSink(url, "orders_upsert", JdbcSinkSpec.Write.UPSERT, upsert);
      System.out.printf(
          "sink      (JdbcTableSink, write: upsert, half updates): %,.0f rows/s%n", upserted);
      double after = plainCopy(url, "orders_copy_again", append);
      // measured before and after the sinks: the order of the runs matters on a busy machine
      double copy = (before + after) / 2;
      System.out.printf(
          "baseline  (plain JDBC COPY FROM STDIN, again): %,.0f rows/s; mean %,.0f rows/s%n",
          after, copy);
      System.out.printf(
          "ratios to the mean baseline: append %.2f, upsert %.2f%n",
          appended / copy, upserted / copy);
      checkCount(url, "orders_copy", count);
      checkCount(url, "orders_copy_again", count);
      checkCount(url, "orders_append", count);
      checkCount(url, "orders_upsert", count / 2);
      ratios.add(String.format("append %.2f / upsert %.2f", appended / copy, upserted / copy));
    }
    System.out.printf("ratios to plain COPY by round: %s%n", ratios);
  }

  /** {@code count} orders whose ids cycle through {@code ids} distinct values. */
  private static List<Object[]> orders(int count, int ids) {
    Random random = new Random(7);
    String[] statuses = {"new", "paid", "shipped", "cancelled"};
    Instant start = Instant.parse("2026-11-01T00:00:00Z");
    List<Object[]> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      rows.add(
          new Object[] {
            (long) (i % ids),
            "customer-" + random.nextInt(50_000),
            (long) random.nextInt(1_000_000),
            statuses[random.nextInt(statuses.length)],
            start.plusMillis(i * 37L),
            "orders",
            i % PARTITIONS,
            (long) (i / PARTITIONS)
          });
    }
    return rows;
  }

  /** The baseline: COPY text written by hand, one transaction per batch. */
  private static double plainCopy(String url, String table, List<Object[]> rows)
      throws SQLException {
    try (Connection c = PostgresTestServer.connect(url)) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE " + table + ORDERS_DDL);
      }
      c.setAutoCommit(false);
      long start = System.nanoTime();
      StringBuilder text = new StringBuilder(1 << 17);
      for (int from = 0; from < rows.size(); from += BATCH) {
        CopyIn copy =
            c.unwrap(PGConnection.class)
                .getCopyAPI()
                .copyIn(
                    "COPY "
                        + table
                        + " (order_id, customer_id, amount_cents, status, event_time,"
                        + " _kafka_topic, _kafka_partition, _kafka_offset) FROM STDIN");
        for (Object[] row : rows.subList(from, Math.min(rows.size(), from + BATCH))) {
          for (int i = 0; i < row.length; i++) {
            text.append(i == 0 ? "" : "\t").append(row[i]);
          }
          text.append('\n');
          if (text.length() >= 1 << 16) {
            byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
            copy.writeToCopy(bytes, 0, bytes.length);
            text.setLength(0);
          }
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        copy.writeToCopy(bytes, 0, bytes.length);
        text.setLength(0);
        copy.endCopy();
        c.commit();
      }
      return rows.size() / ((System.nanoTime() - start) / 1e9);
    }
  }

  /** The rows through the sink, one batch per {@link #BATCH} rows, the table created by it. */
  private static double throughSink(
      String url, String table, JdbcSinkSpec.Write write, List<Object[]> rows) throws IOException {
    JdbcSinkSpec spec =
        new JdbcSinkSpec(
            url,
            table,
            Optional.of(PostgresTestServer.USER),
            Optional.of(PostgresTestServer.PASSWORD),
            write,
            write == JdbcSinkSpec.Write.UPSERT ? List.of("order_id") : List.of(),
            true,
            Map.of());
    TableTxns txns = new TableTxns("bench-jdbc", Optional.of("c1"));
    long start = System.nanoTime();
    try (JdbcTableSink sink =
        new JdbcTableSink("bench-jdbc", spec, ORDERS, new PostgresDialect(), JdbcTableSink.RETRY)) {
      long batch = 0;
      for (int from = 0; from < rows.size(); from += BATCH) {
        int to = Math.min(rows.size(), from + BATCH);
        try (TableSink.BatchWriter w =
            sink.begin(
                txns.tag(
                    batch, Map.of(new SourcePartition("orders", 0), new OffsetRange(from, to))))) {
          for (Object[] row : rows.subList(from, to)) {
            w.write(row);
          }
          w.commit(Map.of());
        }
        batch++;
      }
    }
    return rows.size() / ((System.nanoTime() - start) / 1e9);
  }

  private static void checkCount(String url, String table, long expected) throws SQLException {
    try (Connection c = PostgresTestServer.connect(url);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
      r.next();
      if (r.getLong(1) != expected) {
        throw new IllegalStateException(
            table + " holds " + r.getLong(1) + " rows, expected " + expected);
      }
    }
  }

  // ---------------------------------------------------------------- kafka

  private static final String KAFKA_PIPELINE =
      """
        pipeline: bench-kafka-%s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
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
          kafka:
            topic: %s
            key: "user_id"
            delivery: %s
        checkpoint: %s
        """;

  private static void kafka(int events) throws Exception {
    Path dir = Files.createTempDirectory("tributary-sink-bench");
    System.out.printf(
        "Kafka sink benchmark: %,d JSON events on %d partitions, batches of at most %,d records,"
            + " work dir %s%n",
        events, PARTITIONS, BATCH, dir);
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      String bootstrap = broker.bootstrapServers();
      broker.createTopic(TOPIC, PARTITIONS);
      long produceStart = System.nanoTime();
      long bytes = produce(bootstrap, events);
      System.out.printf(
          "produced %,d events (%.0f bytes/event) in %.1f s%n",
          events, (double) bytes / events, (System.nanoTime() - produceStart) / 1e9);
      List<String> ratios = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        System.out.printf(
            "-- round %d of %d (%s JVM)%n", round, ROUNDS, round == 1 ? "cold" : "warm");
        String loopOut = "loop-out-" + round;
        broker.createTopic(loopOut, PARTITIONS);
        double before = consumeProduce(bootstrap, loopOut, events);
        System.out.printf(
            "baseline  (bare KafkaConsumer -> KafkaProducer loop, no parse): %,.0f records/s%n",
            before);
        double[] rates = new double[2];
        String[] deliveries = {"exactly-once", "at-least-once"};
        for (int i = 0; i < deliveries.length; i++) {
          String out = "sink-out-" + deliveries[i] + "-" + round;
          broker.createTopic(out, PARTITIONS);
          rates[i] =
              pipeline(
                  bootstrap,
                  deliveries[i],
                  out,
                  dir.resolve("checkpoint-" + deliveries[i] + "-" + round),
                  events);
          System.out.printf(
              "pipeline  (parse, filter, derive, sink.kafka %s): %,.0f records/s%n",
              deliveries[i], rates[i]);
          long seen = countCommitted(bootstrap, out);
          if (seen != events) {
            throw new IllegalStateException(
                out + " holds " + seen + " records, expected " + events);
          }
        }
        String loopAgain = "loop-out-again-" + round;
        broker.createTopic(loopAgain, PARTITIONS);
        double after = consumeProduce(bootstrap, loopAgain, events);
        // measured before and after the pipelines: the order of the runs matters on a busy machine
        double loop = (before + after) / 2;
        System.out.printf(
            "baseline  (the same loop, again): %,.0f records/s; mean %,.0f records/s%n",
            after, loop);
        System.out.printf(
            "ratios to the mean baseline: exactly-once %.2f, at-least-once %.2f%n",
            rates[0] / loop, rates[1] / loop);
        for (String topic : List.of(loopOut, loopAgain)) {
          if (countCommitted(bootstrap, topic) != events) {
            throw new IllegalStateException(topic + " does not hold every record");
          }
        }
        ratios.add(
            String.format(
                "exactly-once %.2f / at-least-once %.2f", rates[0] / loop, rates[1] / loop));
      }
      System.out.printf("ratios to the bare loop by round: %s%n", ratios);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static long produce(String bootstrap, int events) throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    Random random = new Random(1);
    String[] types = {"view", "click", "purchase", "refund"};
    Instant start = Instant.parse("2026-11-01T00:00:00Z");
    long bytes = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < events; i++) {
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
                + ",\"currency\":\"EUR\",\"page\":\"/products/"
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

  private static Map<String, Object> consumerConfig(String bootstrap) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return config;
  }

  private static List<TopicPartition> partitions(String topic) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (int i = 0; i < PARTITIONS; i++) {
      partitions.add(new TopicPartition(topic, i));
    }
    return partitions;
  }

  /** The baseline: every record of the input topic sent on, unchanged, until all are acked. */
  private static double consumeProduce(String bootstrap, String out, int events) throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    AtomicReference<Exception> failed = new AtomicReference<>();
    long start = System.nanoTime();
    long seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(bootstrap));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      consumer.assign(partitions(TOPIC));
      consumer.seekToBeginning(partitions(TOPIC));
      while (seen < events) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          producer.send(
              new ProducerRecord<>(out, r.key(), r.value()),
              (metadata, e) -> {
                if (e != null) {
                  failed.compareAndSet(null, e);
                }
              });
          seen++;
        }
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    return seen / ((System.nanoTime() - start) / 1e9);
  }

  private static double pipeline(
      String bootstrap, String delivery, String out, Path checkpoint, int events) throws Exception {
    String yaml =
        KAFKA_PIPELINE.formatted(
            delivery, bootstrap, TOPIC, BATCH, out, delivery, checkpoint.toString());
    PipelineSpec spec = PipelineParser.parse(yaml, "bench.yaml", Map.of());
    ProgressLog progress = new ProgressLog(1000);
    long start = System.nanoTime();
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long rows = progress.last(1000).stream().mapToLong(BatchProgress::inputRows).sum();
    if (rows != events) {
      throw new IllegalStateException("pipeline read " + rows + " records, expected " + events);
    }
    return rows / seconds;
  }

  /** The records a {@code read_committed} consumer sees in {@code topic}. */
  private static long countCommitted(String bootstrap, String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(bootstrap))) {
      List<TopicPartition> partitions = partitions(topic);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long seen = 0;
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        seen += consumer.poll(Duration.ofMillis(500)).count();
      }
      return seen;
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
