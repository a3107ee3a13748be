package dev.tributary.service.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.config.RegistrySpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.sink.jdbc.JdbcTableSink;
import dev.tributary.service.sink.jdbc.PostgresDialect;
import dev.tributary.service.sink.kafka.KafkaTopicSink;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import dev.tributary.service.testing.PostgresTestServer;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.service.testing.TopicContents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JDBC sink, the Kafka sink (JSON and Avro values) and a fan-out to a Delta table, a database
 * table and a topic, each attacked at every crash point of the write-ahead log in process (the
 * checkpoint, the quarantine table and the source in memory, the sinks real: {@link
 * PostgresTestServer}, {@link KafkaTestBroker}): a "process" dies at the n-th time it reaches a
 * point ({@link CrashAt}), more records arrive, the next process drains the topic, and then the
 * database table and the {@code read_committed} topic hold every valid record exactly once. Each
 * crash is asserted to have happened. {@code SinkKillIT} does the same with kill -9 in a child JVM.
 */
class SinkCrashIT {
  private static final int PARTITIONS = 3;
  private static final int BAD_EVERY = 7;
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static String database;
  private static TestSchemaRegistry registry;

  @TempDir Path dir;

  static Stream<CrashAt> points() {
    List<CrashAt> out = new ArrayList<>();
    for (String point :
        List.of(
            CrashPoints.AFTER_PLAN,
            CrashPoints.AFTER_OFFSETS_LOG,
            CrashPoints.AFTER_DATA_FILES,
            CrashPoints.AFTER_QUARANTINE_COMMIT,
            CrashPoints.AFTER_SINK_COMMIT,
            CrashPoints.AFTER_COMMITS_LOG)) {
      for (int n = 1; n <= 2; n++) {
        out.add(new CrashAt(point, n));
      }
    }
    out.add(new CrashAt(CrashPoints.MID_BATCH, 1));
    out.add(new CrashAt(CrashPoints.MID_BATCH, 50));
    return out.stream();
  }

  /** The fan-out's own point between two of its sinks, and a few of the others. */
  static Stream<CrashAt> fanOutPoints() {
    return Stream.of(
        new CrashAt(CrashPoints.AFTER_SINK_PART_COMMIT, 1),
        new CrashAt(CrashPoints.AFTER_SINK_PART_COMMIT, 2),
        new CrashAt(CrashPoints.AFTER_SINK_PART_COMMIT, 4),
        new CrashAt(CrashPoints.AFTER_DATA_FILES, 3),
        new CrashAt(CrashPoints.AFTER_SINK_COMMIT, 2),
        new CrashAt(CrashPoints.MID_BATCH, 40));
  }

  private static synchronized String database() {
    if (database == null) {
      database = PostgresTestServer.shared().createDatabase();
    }
    return database;
  }

  private static JdbcSinkSpec jdbc(String table) {
    return new JdbcSinkSpec(
        database(),
        table,
        Optional.of(PostgresTestServer.USER),
        Optional.of(PostgresTestServer.PASSWORD),
        JdbcSinkSpec.Write.APPEND,
        List.of(),
        true,
        Map.of());
  }

  /** The registry of the Avro case, started at its first use. */
  private static synchronized TestSchemaRegistry registry() throws Exception {
    if (registry == null) {
      registry = TestSchemaRegistry.start(Files.createTempDirectory("sink-crash-registry"));
    }
    return registry;
  }

  @AfterAll
  static void stopRegistry() throws Exception {
    if (registry != null) {
      registry.close();
    }
  }

  private static KafkaSinkSpec avroKafka(String topic) throws Exception {
    return new KafkaSinkSpec(
        KafkaTestBroker.shared().bootstrapServers(),
        topic,
        Optional.of("v"),
        KafkaSinkSpec.Value.AVRO,
        Optional.of(RegistrySpec.at(registry().url())),
        KafkaSinkSpec.Delivery.EXACTLY_ONCE,
        false,
        Map.of());
  }

  private static KafkaSinkSpec kafka(String topic) {
    return new KafkaSinkSpec(
        KafkaTestBroker.shared().bootstrapServers(),
        topic,
        Optional.of("v"),
        KafkaSinkSpec.Value.JSON,
        KafkaSinkSpec.Delivery.EXACTLY_ONCE,
        false,
        Map.of());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("points")
  void theDatabaseTableHoldsEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    String table = "events_" + TABLES.incrementAndGet();
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    MemoryPipeline.SinkOpener sinks =
        (compiled, txns) ->
            new JdbcTableSink(
                "memory",
                jdbc(table),
                compiled.outputSchema(),
                new PostgresDialect(),
                JdbcTableSink.RETRY);
    InMemorySource.Log topic = crashThenDrain(pipeline, sinks, crash);
    assertThat(tableIds(table)).containsExactlyInAnyOrderElementsOf(expectedIds(topic));
    assertQuarantinedOnce(pipeline, topic);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("points")
  void theReadCommittedTopicHoldsEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    String out = KafkaTestBroker.shared().createTopic("crash-out", 2);
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    MemoryPipeline.SinkOpener sinks =
        (compiled, txns) ->
            new KafkaTopicSink(
                "memory",
                kafka(out),
                compiled.outputSchema(),
                txns,
                KafkaTopicSink.Latency.BATCHED);
    InMemorySource.Log topic = crashThenDrain(pipeline, sinks, crash);
    assertThat(topicIds(out)).containsExactlyInAnyOrderElementsOf(expectedIds(topic));
    assertQuarantinedOnce(pipeline, topic);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("points")
  void theReadCommittedAvroTopicHoldsEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    String out = KafkaTestBroker.shared().createTopic("crash-avro", 2);
    KafkaSinkSpec spec = avroKafka(out);
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    MemoryPipeline.SinkOpener sinks =
        (compiled, txns) ->
            new KafkaTopicSink(
                "memory",
                spec,
                compiled.outputSchema(),
                txns,
                KafkaTopicSink.Latency.BATCHED,
                Secrets.NONE);
    InMemorySource.Log topic = crashThenDrain(pipeline, sinks, crash);
    assertThat(registry().versionIds(out + "-value"))
        .as("registered once, whichever run registered it")
        .hasSize(1);
    assertThat(avroTopicIds(out)).containsExactlyInAnyOrderElementsOf(expectedIds(topic));
    assertQuarantinedOnce(pipeline, topic);
  }

  /**
   * The ids of the committed records of an Avro topic, each decoded with the schema registered
   * under the id its header names. The registry is asked once per id, not once per record: a
   * request to the test registry costs ~40 ms, and a topic holds ~120 records (5 of the 6.7 s of a
   * case).
   */
  private static List<Long> avroTopicIds(String topic) throws Exception {
    List<Long> ids = new ArrayList<>();
    Map<Integer, GenericDatumReader<GenericRecord>> readers = new HashMap<>();
    for (var record :
        TopicContents.readCommitted(KafkaTestBroker.shared().bootstrapServers(), topic)) {
      byte[] v = record.value();
      assertThat(ConfluentWireFormat.headerProblem(v, 0, v.length)).isNull();
      int schemaId = ConfluentWireFormat.schemaId(v, 0);
      GenericDatumReader<GenericRecord> reader = readers.get(schemaId);
      if (reader == null) {
        reader =
            new GenericDatumReader<>(new Schema.Parser().parse(registry().schemaText(schemaId)));
        readers.put(schemaId, reader);
      }
      GenericRecord row =
          reader.read(
              null,
              DecoderFactory.get()
                  .binaryDecoder(
                      v,
                      ConfluentWireFormat.HEADER_SIZE,
                      v.length - ConfluentWireFormat.HEADER_SIZE,
                      null));
      ids.add((Long) row.get("id"));
    }
    return ids;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("points")
  void theContinuousTriggerSendsEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    String out = KafkaTestBroker.shared().createTopic("crash-live", 2);
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    MemoryPipeline.SinkOpener sinks =
        (compiled, txns) ->
            new KafkaTopicSink(
                "memory",
                kafka(out),
                compiled.outputSchema(),
                txns,
                KafkaTopicSink.Latency.IMMEDIATE);
    InMemorySource.Log topic = new InMemorySource.Log("events", PARTITIONS);
    append(topic, 0, 30);
    InMemorySource firstSource = InMemorySource.of(topic, 10);
    try (MemoryPipeline.Process first = pipeline.open(firstSource, Model.CONTINUOUS, sinks)) {
      assertThat(crash.runCrashing(() -> runUntilCaughtUp(first, firstSource)))
          .as("crashed at " + crash)
          .isTrue();
    }
    append(topic, 30, 45);
    InMemorySource lastSource = InMemorySource.of(topic, 10);
    try (MemoryPipeline.Process last = pipeline.open(lastSource, Model.CONTINUOUS, sinks)) {
      runUntilCaughtUp(last, lastSource);
    }
    assertThat(topicIds(out)).containsExactlyInAnyOrderElementsOf(expectedIds(topic));
    assertQuarantinedOnce(pipeline, topic);
  }

  /**
   * Runs a continuous process on this thread (where the crash hook is) until its source caught up,
   * which a watcher thread sees and stops it for.
   */
  private static Void runUntilCaughtUp(MemoryPipeline.Process process, InMemorySource source)
      throws Exception {
    Thread watcher =
        new Thread(
            () -> {
              try {
                while (!source.caughtUp()) {
                  Thread.sleep(5);
                }
                process.loop().stop();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the run ended first (a crash)
              }
            },
            "caught-up-watcher");
    watcher.setDaemon(true);
    watcher.start();
    try {
      process.loop().run(new TriggerSpec.Continuous(MemoryPipeline.CONTINUOUS_INTERVAL));
    } finally {
      watcher.interrupt();
    }
    return null;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fanOutPoints")
  void everySinkOfAFanOutHoldsEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    String table = "fan_" + TABLES.incrementAndGet();
    String out = KafkaTestBroker.shared().createTopic("crash-fan", 2);
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    MemoryPipeline.SinkOpener sinks =
        (compiled, txns) ->
            new FanOutSink(
                List.of(
                    PipelineFactory.modeSink(compiled, pipeline.sinkStore),
                    new JdbcTableSink(
                        "memory",
                        jdbc(table),
                        compiled.outputSchema(),
                        new PostgresDialect(),
                        JdbcTableSink.RETRY),
                    new KafkaTopicSink(
                        "memory",
                        kafka(out),
                        compiled.outputSchema(),
                        txns,
                        KafkaTopicSink.Latency.BATCHED)));
    InMemorySource.Log topic = crashThenDrain(pipeline, sinks, crash);
    List<Long> expected = expectedIds(topic);
    assertThat(pipeline.sinkRows().stream().map(r -> (Long) r[0]).toList())
        .as("the Delta table")
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(tableIds(table))
        .as("the database table")
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(topicIds(out)).as("the topic").containsExactlyInAnyOrderElementsOf(expected);
    assertQuarantinedOnce(pipeline, topic);
  }

  private InMemorySource.Log crashThenDrain(
      MemoryPipeline pipeline, MemoryPipeline.SinkOpener sinks, CrashAt crash) throws Exception {
    InMemorySource.Log topic = new InMemorySource.Log("events", PARTITIONS);
    append(topic, 0, 30);
    try (MemoryPipeline.Process first =
        pipeline.open(InMemorySource.of(topic, 10), Model.WRITE_AHEAD_LOG, sinks)) {
      assertThat(crash.runCrashing(() -> runToEnd(first))).as("crashed at " + crash).isTrue();
    }
    append(topic, 30, 45);
    try (MemoryPipeline.Process last =
        pipeline.open(InMemorySource.of(topic, 10), Model.WRITE_AHEAD_LOG, sinks)) {
      runToEnd(last);
    }
    return topic;
  }

  private static Void runToEnd(MemoryPipeline.Process process) throws Exception {
    process.loop().run(new TriggerSpec.AvailableNow());
    return null;
  }

  private static List<Long> expectedIds(InMemorySource.Log topic) {
    List<Long> ids = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (long o = 0; o < topic.end(p); o++) {
        if (o % BAD_EVERY != 3) {
          ids.add(id(p, o));
        }
      }
    }
    return ids;
  }

  private static void assertQuarantinedOnce(MemoryPipeline pipeline, InMemorySource.Log topic)
      throws Exception {
    List<String> bad = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (long o = 0; o < topic.end(p); o++) {
        if (o % BAD_EVERY == 3) {
          bad.add(p + "/" + o);
        }
      }
    }
    assertThat(pipeline.quarantineRows().stream().map(r -> r[1] + "/" + r[2]).toList())
        .as("quarantined partition/offset")
        .containsExactlyInAnyOrderElementsOf(bad);
  }

  private static List<Long> tableIds(String table) throws Exception {
    List<Long> ids = new ArrayList<>();
    try (Connection c = PostgresTestServer.connect(database());
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT id FROM " + table)) {
      while (r.next()) {
        ids.add(r.getLong(1));
      }
    }
    return ids;
  }

  private static List<Long> topicIds(String topic) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (var record :
        TopicContents.readCommitted(KafkaTestBroker.shared().bootstrapServers(), topic)) {
      ids.add(JSON.readTree(record.value()).get("id").asLong());
    }
    return ids;
  }

  private static void append(InMemorySource.Log topic, int from, int to) {
    for (int p = 0; p < PARTITIONS; p++) {
      for (long o = from; o < to; o++) {
        topic.append(
            p,
            o % BAD_EVERY == 3
                ? "not json " + o
                : "{\"id\":" + id(p, o) + ",\"v\":\"" + p + "-" + o + "\"}");
      }
    }
  }

  private static long id(int partition, long offset) {
    return partition * 1000L + offset;
  }
}
