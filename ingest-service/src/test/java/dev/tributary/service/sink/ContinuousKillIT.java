package dev.tributary.service.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TopicContents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kill -9 proof of the continuous trigger ({@code trigger: { continuous: 500ms }}, Kafka →
 * Kafka, {@code delivery: exactly-once}): the pipeline runs from YAML in a child JVM ({@code run})
 * while records keep arriving, and is halted like kill -9 ({@code tributary.test.crash-at}) at
 * every crash point a continuous batch reaches — each halt asserted to have happened there — then
 * killed once with a real SIGKILL from outside at a random moment while records flow. Each run
 * starts on what the last one left (an open transaction, a range written ahead and not committed).
 * A final available-now run on the same checkpoint drains the topic; then the {@code
 * read_committed} output topic holds every valid record exactly once, and the quarantine table
 * every malformed one.
 */
class ContinuousKillIT {
  private static final int PARTITIONS = 3;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The points a continuous batch of a single Kafka sink reaches, in order. Not here: {@code
   * after-sink-part-commit} (several sinks only) and {@code after-state-commit} (a stateless
   * pipeline commits no state: it leaves what {@code after-sink-commit} leaves).
   */
  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_CONTINUOUS_READ,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG
  };

  @TempDir Path work;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Set<String> valid = ConcurrentHashMap.newKeySet();
  private final Set<String> malformed = ConcurrentHashMap.newKeySet();

  @Test
  void theTopicHoldsEveryRecordOnceAfterAKillAtEveryPointAndASigkill() throws Exception {
    String in = broker.createTopic("live-kill-in", PARTITIONS);
    String out = broker.createTopic("live-kill-out", 2);
    Path file = work.resolve("pipeline.yaml");
    Files.writeString(
        file,
        """
        pipeline: continuous-kill-test
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema: { id: long, name: string }
        sink:
          kafka: { topic: %s, key: "name", delivery: exactly-once }
        checkpoint: %s
        trigger: { continuous: 500ms }
        """
            .formatted(broker.bootstrapServers(), in, out, work.resolve("checkpoint")));
    Random random = new Random(2424L);
    try (Feeder feeder = new Feeder(in, random.nextLong())) {
      for (String point : POINTS) {
        // points reached by every interval, records or not, and points of the commit are reached
        // within seconds with records arriving all along; mid-batch counts records
        int occurrence =
            point.equals(CrashPoints.MID_BATCH) ? 1 + random.nextInt(150) : 1 + random.nextInt(3);
        haltAt(file, point + ":" + occurrence);
      }
      killWhileRecordsFlow(file, out, random);
      feeder.close(); // the input stops growing: the drain can catch up
    }
    Path log = work.resolve("drain.log");
    Process drain =
        ChildJvm.start(
            List.of("-Xmx256m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", file.toString(), "--available-now"),
            log,
            work);
    CrashRuns.assertFinished(drain, log);

    // records arrived all along (about 100 a second for a minute or more): not a vacuous check
    assertThat(valid).hasSizeGreaterThan(1000);
    assertThat(malformed).hasSizeGreaterThan(20);
    assertThat(counts(topicKeys(out)))
        .as("every valid record once in the read_committed topic")
        .isEqualTo(once(valid));
    List<String> quarantined = new ArrayList<>();
    try (ObjectStore q = ObjectStores.open(work.resolve("checkpoint") + "-quarantine", null)) {
      TableContents.rows(q).forEach(r -> quarantined.add(r[1] + "/" + r[2]));
    }
    assertThat(counts(quarantined))
        .as("every malformed record once in quarantine")
        .isEqualTo(once(malformed));
  }

  /** Runs the pipeline in a child JVM that halts itself at {@code crashAt}, and checks it did. */
  private void haltAt(Path file, String crashAt) throws Exception {
    Path log = work.resolve("run-" + crashAt.replace(':', '-') + ".log");
    Process child = startRun(file, List.of("-Dtributary.test.crash-at=" + crashAt), log);
    CrashRuns.assertHaltedAt(child, crashAt, log);
  }

  /**
   * Runs the pipeline until this run has committed records, then kills it with SIGKILL from outside
   * ({@code destroyForcibly} on Linux) at a random moment of the intervals that follow.
   */
  private void killWhileRecordsFlow(Path file, String out, Random random) throws Exception {
    Path log = work.resolve("run-sigkill.log");
    int before = TopicContents.readCommitted(broker.bootstrapServers(), out).size();
    Process child = startRun(file, List.of(), log);
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(300))
          .failFast("the run ended by itself", () -> !child.isAlive())
          .until(() -> TopicContents.readCommitted(broker.bootstrapServers(), out).size() > before);
      // the random moment itself (0 to 4 intervals on), not a wait for a condition
      TimeUnit.MILLISECONDS.sleep(random.nextInt(2000));
    } finally {
      child.destroyForcibly();
    }
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("killed").isTrue();
    assertThat(child.exitValue()).as("SIGKILL; log:%n%s", ChildJvm.tail(log)).isEqualTo(137);
    assertThat(Files.readString(log)).doesNotContain("crash point");
  }

  private Process startRun(Path file, List<String> options, Path log) throws Exception {
    List<String> jvm = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC"));
    jvm.addAll(options);
    return ChildJvm.start(
        jvm,
        "dev.tributary.service.cli.Main",
        List.of("run", "--pipeline", file.toString()),
        log,
        work);
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

  private List<String> topicKeys(String out) throws Exception {
    List<String> keys = new ArrayList<>();
    for (var record : TopicContents.readCommitted(broker.bootstrapServers(), out)) {
      var value = JSON.readTree(record.value());
      keys.add(value.get("_kafka_partition").asInt() + "/" + value.get("_kafka_offset").asLong());
    }
    return keys;
  }

  /**
   * Produces about 100 records a second on a thread of its own until closed, so that records arrive
   * while each run reads and between runs; about one in twenty is malformed and must land in
   * quarantine. Close waits until every record sent is acknowledged and recorded.
   */
  private final class Feeder implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stopped;
    private boolean closed;

    Feeder(String topic, long seed) {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      producer = new KafkaProducer<>(p);
      Random random = new Random(seed);
      thread =
          new Thread(
              () -> {
                try {
                  feed(topic, random);
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "continuous-kill-feeder");
      thread.start();
    }

    private void feed(String topic, Random random) throws InterruptedException {
      long id = 0;
      while (!stopped) {
        for (int i = 0; i < 10; i++, id++) {
          boolean broken = random.nextInt(20) == 0;
          String value =
              broken
                  ? "{\"id\": " + id + ", \"name\": "
                  : "{\"id\":" + id + ",\"name\":\"n" + id % 17 + "\"}";
          producer.send(
              new ProducerRecord<>(
                  topic, random.nextInt(PARTITIONS), null, value.getBytes(StandardCharsets.UTF_8)),
              (m, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, e);
                } else {
                  (broken ? malformed : valid).add(m.partition() + "/" + m.offset());
                }
              });
        }
        // pacing of the offered load, not a wait for a condition
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }

    @Override
    public void close() throws Exception {
      if (closed) {
        return;
      }
      closed = true;
      stopped = true;
      thread.join(10_000);
      producer.close(Duration.ofSeconds(30)); // flushes: every callback has run after it
      assertThat(failure.get()).as("the feeder's failure").isNull();
    }
  }
}
