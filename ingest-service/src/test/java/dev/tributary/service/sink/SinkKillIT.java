package dev.tributary.service.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.PostgresTestServer;
import dev.tributary.service.testing.TopicContents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end proof for the sinks beyond Delta: a pipeline from YAML feeding a PostgreSQL table
 * and a Kafka topic from the same batches ({@code sinks: [jdbc, kafka]}, exactly-once) runs in a
 * child JVM ({@code run}) and is halted like kill -9 ({@code tributary.test.crash-at}: no hooks, no
 * flush, no rollback, an open Kafka transaction left behind) at every crash point of a batch,
 * including the one between the two sinks' commits; every halt is asserted to have happened there.
 * After each halt the next run starts on what the last one left; a final available-now run drains
 * the topic. Then the database table and the {@code read_committed} topic each hold every valid
 * record exactly once, and the quarantine table every malformed one.
 */
class SinkKillIT {
  private static final int PARTITIONS = 3;
  private static final int MAX_OFFSETS = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_PART_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG
  };

  @TempDir Path work;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Set<String> valid = new HashSet<>();
  private final Set<String> malformed = new HashSet<>();
  private String topic;
  private int produced;

  @Test
  void theTableAndTheTopicHoldEveryRecordOnceAfterAKillAtEveryPoint() throws Exception {
    topic = broker.createTopic("kill-in", PARTITIONS);
    String out = broker.createTopic("kill-out", 2);
    String url = PostgresTestServer.shared().createDatabase();
    Path file = work.resolve("pipeline.yaml");
    Files.writeString(
        file,
        """
        pipeline: kill-test
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
        format:
          json:
            schema: { id: long, name: string }
        sinks:
          - jdbc:
              url: %s
              table: events
              user: %s
              password: "%s"
              create-table: true
          - kafka: { topic: %s, key: "name" }
        checkpoint: %s
        trigger: { processing-time: 50ms }
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                MAX_OFFSETS,
                url,
                PostgresTestServer.USER,
                PostgresTestServer.PASSWORD,
                out,
                work.resolve("checkpoint")));
    Random random = new Random(24L);
    produce(300, random);
    for (String point : POINTS) {
      int occurrence =
          point.equals(CrashPoints.MID_BATCH) ? 1 + random.nextInt(150) : 1 + random.nextInt(2);
      String crashAt = point + ":" + occurrence;
      // enough fresh records that the run certainly reaches the occurrence: each new batch of at
      // most MAX_OFFSETS records passes every per-batch point at least once
      produce(
          point.equals(CrashPoints.MID_BATCH) ? occurrence + 50 : occurrence * MAX_OFFSETS + 50,
          random);
      Path log = work.resolve("run-" + point + ".log");
      Process child =
          ChildJvm.start(
              List.of(
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-Dtributary.test.crash-at=" + crashAt),
              "dev.tributary.service.cli.Main",
              List.of("run", "--pipeline", file.toString()),
              log,
              work);
      CrashRuns.assertHaltedAt(child, crashAt, log);
    }
    Path log = work.resolve("drain.log");
    Process drain =
        ChildJvm.start(
            List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"),
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", file.toString(), "--available-now"),
            log,
            work);
    CrashRuns.assertFinished(drain, log);

    assertThat(counts(tableKeys(url)))
        .as("every valid record once in the table")
        .isEqualTo(once(valid));
    assertThat(counts(topicKeys(out)))
        .as("every valid record once in the topic")
        .isEqualTo(once(valid));
    List<String> quarantined = new ArrayList<>();
    try (ObjectStore q = ObjectStores.open(work.resolve("checkpoint") + "-quarantine", null)) {
      TableContents.rows(q).forEach(r -> quarantined.add(r[1] + "/" + r[2]));
    }
    assertThat(counts(quarantined))
        .as("every malformed record once in quarantine")
        .isEqualTo(once(malformed));
  }

  private static Map<String, Integer> once(Set<String> keys) {
    Map<String, Integer> out = new HashMap<>();
    keys.forEach(k -> out.put(k, 1));
    return out;
  }

  private static Map<String, Integer> counts(List<String> keys) {
    Map<String, Integer> out = new HashMap<>();
    keys.forEach(k -> out.merge(k, 1, Integer::sum));
    return out;
  }

  private static List<String> tableKeys(String url) throws Exception {
    List<String> keys = new ArrayList<>();
    try (Connection c = PostgresTestServer.connect(url);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT _kafka_partition, _kafka_offset FROM events")) {
      while (r.next()) {
        keys.add(r.getInt(1) + "/" + r.getLong(2));
      }
    }
    return keys;
  }

  private List<String> topicKeys(String out) throws Exception {
    List<String> keys = new ArrayList<>();
    for (var record : TopicContents.readCommitted(broker.bootstrapServers(), out)) {
      var value = JSON.readTree(record.value());
      keys.add(value.get("_kafka_partition").asInt() + "/" + value.get("_kafka_offset").asLong());
    }
    return keys;
  }

  /** Produces records: about one in twenty is malformed and must land in quarantine. */
  private void produce(int count, Random random) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      List<Boolean> bad = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        boolean broken = random.nextInt(20) == 0;
        String value =
            broken
                ? "{\"id\": " + produced + ", \"name\": "
                : "{\"id\":" + produced + ",\"name\":\"n" + produced % 17 + "\"}";
        produced++;
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    random.nextInt(PARTITIONS),
                    null,
                    value.getBytes(StandardCharsets.UTF_8))));
        bad.add(broken);
      }
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata m = sent.get(i).get();
        (bad.get(i) ? malformed : valid).add(m.partition() + "/" + m.offset());
      }
    }
  }
}
