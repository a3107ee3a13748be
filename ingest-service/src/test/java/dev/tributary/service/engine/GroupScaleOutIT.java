package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.InstanceProcesses;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scale-out with {@code source.kafka.assignment: group} on one machine: a broker in its own
 * process, a topic with 12 partitions, and instances of one stateless pipeline, each a child JVM
 * running {@code run --pipeline}, sharing one checkpoint location and one sink and quarantine
 * table. Three instances run; one is SIGKILLed; another is frozen with SIGSTOP while it holds a
 * read batch (held, by a test hook armed once all three have committed, between its quarantine
 * commit and its sink commit) until the group gives its partitions to the survivor, then resumed
 * with SIGCONT as a zombie whose sink commit must be fenced off; a fourth instance joins and takes
 * partitions over. Records are produced throughout, one in twenty malformed. The tables must end up
 * holding every produced record exactly once, with its contents, and each of the steps must have
 * happened as named (the zombie's batch dropped, the added instance's commits in the table).
 */
class GroupScaleOutIT {
  private static final int PARTITIONS = 12;
  private static final Duration AWAIT = Duration.ofSeconds(150);

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;

  private InstanceProcesses instances;
  private final Map<String, String> validValues = new ConcurrentHashMap<>();
  private final Map<String, Boolean> malformed = new ConcurrentHashMap<>();
  private final Random random = new Random(20261201L);
  private int produced;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.shared();
  }

  @AfterEach
  void killInstances() throws Exception {
    if (instances != null) {
      instances.close();
    }
  }

  @Test
  void instancesKilledFrozenAndAddedMidRunLeaveEveryRecordExactlyOnceInTheTables()
      throws Exception {
    Path work = InstanceProcesses.freshWorkDirectory("group-scale-out");
    instances = new InstanceProcesses(work);
    String topic = broker.newTopic("orders-group", PARTITIONS);
    Path sinkPath = work.resolve("tables/orders");
    Path quarantinePath = work.resolve("tables/orders-quarantine");
    Path pipeline = work.resolve("pipeline.yaml");
    Files.writeString(
        pipeline,
        """
        pipeline: group-test
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: group
            max-offsets-per-trigger: 600
            properties:
              session.timeout.ms: "6000"
              heartbeat.interval.ms: "1000"
        format:
          json:
            schema:
              id: long
              name: string
        transform:
          - derive: { doubled: "id * 2" }
        sink:
          delta: { path: %s }
        quarantine:
          delta: { path: "%s" }
        checkpoint: %s
        trigger: { processing-time: 100ms }
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                sinkPath,
                quarantinePath,
                work.resolve("checkpoint")));
    Path release = work.resolve("release-zombie");
    Path armed = work.resolve("arm-zombie");

    produce(topic, 3000);
    Process killed = instances.start("killed", pipeline, List.of());
    Process zombie =
        instances.start(
            "zombie",
            pipeline,
            List.of(
                "-Dtributary.test.hold-at=" + CrashPoints.AFTER_QUARANTINE_COMMIT + ":1",
                "-Dtributary.test.hold-armed=" + armed,
                "-Dtributary.test.hold-release=" + release));
    Process survivor = instances.start("survivor", pipeline, List.of());
    // each of the three commits a share: every one has its partitions, the group is stable
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              produce(topic, 300);
              return committedBy(sinkPath, killed)
                  && committedBy(sinkPath, zombie)
                  && committedBy(sinkPath, survivor);
            });
    // only now the zombie's next batch holds (with no rebalance pending, which a held member would
    // stall)
    Files.writeString(armed, "armed");
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              produce(topic, 300);
              return instances
                  .log("zombie")
                  .contains("hold point " + CrashPoints.AFTER_QUARANTINE_COMMIT + ":1 reached");
            });

    InstanceProcesses.signal("STOP", zombie);
    InstanceProcesses.kill(killed);
    produce(topic, 2000);
    // the group gives the dead and the frozen instance's partitions to the survivor once their
    // sessions time out: every record produced so far reaches the tables
    awaitEveryRecordOnce(sinkPath, quarantinePath);

    InstanceProcesses.signal("CONT", zombie);
    Files.writeString(release, "go");
    // the held batch is dropped: had its sink commit gone through, the offsets the survivor
    // committed meanwhile would be in the sink twice (checked on every poll, to fail at once)
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              if (duplicates(sinkPath) > 0) {
                throw new IllegalStateException(
                    "the zombie's commit went through: the sink holds offsets twice; log:\n"
                        + instances.log("zombie"));
              }
              return instances.log("zombie").contains("dropped, nothing of it committed");
            });
    assertThat(instances.log("zombie"))
        .as("the zombie's sink commit is fenced off")
        .contains(CrashPoints.AFTER_QUARANTINE_COMMIT + ":1 released")
        .contains("fenced off");

    Process added = instances.start("added", pipeline, List.of());
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              produce(topic, 300);
              return committedBy(sinkPath, added);
            });
    produce(topic, 1000);
    awaitEveryRecordOnce(sinkPath, quarantinePath);
    assertThat(zombie.isAlive())
        .as("the zombie goes on as a member; log:%n%s", instances.log("zombie"))
        .isTrue();
    assertThat(survivor.isAlive()).as("survivor; log:%n%s", instances.log("survivor")).isTrue();

    // available-now as the only member: ends once its partitions (all of them) are caught up
    for (Process p : instances.all().values()) {
      InstanceProcesses.kill(p);
    }
    produce(topic, 1500);
    Process availableNow =
        instances.start("available-now", pipeline, List.of(), List.of("--available-now"));
    assertThat(InstanceProcesses.awaitExit(availableNow, 120)).as("available-now ended").isTrue();
    assertThat(availableNow.exitValue())
        .as("exit code; log:%n%s", instances.log("available-now"))
        .isZero();
    assertAllRecordsOnce(sinkPath, quarantinePath);
  }

  /** Whether a commit of the table with rows of records written by the given instance exists. */
  private static boolean committedBy(Path table, Process instance) throws Exception {
    return TableCommits.of(table).stream().anyMatch(c -> c.by(instance) && c.coversRecords());
  }

  /**
   * Produces records, one in twenty malformed, to random partitions; remembers where each landed.
   */
  private void produce(String topic, int count) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        boolean bad = random.nextInt(20) == 0;
        String value =
            bad
                ? "{\"id\": " + produced + ", \"name\": "
                : "{\"id\":" + produced + ",\"name\":\"n" + produced + "\"}";
        values.add(bad ? null : produced + "|n" + produced);
        produced++;
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    random.nextInt(PARTITIONS),
                    null,
                    value.getBytes(StandardCharsets.UTF_8))));
      }
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata m = sent.get(i).get();
        String key = m.partition() + "/" + m.offset();
        if (values.get(i) == null) {
          malformed.put(key, true);
        } else {
          validValues.put(key, values.get(i));
        }
      }
    }
  }

  /**
   * Waits until the tables hold a row of every record produced so far, then checks that they hold
   * each once (a duplicate is there for good: no point waiting for it to go).
   */
  private void awaitEveryRecordOnce(Path sinkPath, Path quarantinePath) throws Exception {
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                keys(sinkPath, 4, 5).containsAll(validValues.keySet())
                    && keys(quarantinePath, 1, 2).containsAll(malformed.keySet()));
    assertAllRecordsOnce(sinkPath, quarantinePath);
  }

  private static long duplicates(Path table) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      for (Object[] row : TableContents.rows(store)) {
        counts.merge(row[4] + "/" + row[5], 1, Integer::sum);
      }
    }
    return counts.values().stream().filter(c -> c > 1).count();
  }

  private static Set<String> keys(Path table, int partitionColumn, int offsetColumn)
      throws Exception {
    Set<String> keys = new HashSet<>();
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      for (Object[] row : TableContents.rows(store)) {
        keys.add(row[partitionColumn] + "/" + row[offsetColumn]);
      }
    }
    return keys;
  }

  /**
   * The sink holds every valid record produced so far once, with its values; quarantine every
   * malformed one.
   */
  private void assertAllRecordsOnce(Path sinkPath, Path quarantinePath) throws Exception {
    try (ObjectStore sink = ObjectStores.open(sinkPath.toString(), null);
        ObjectStore quarantine = ObjectStores.open(quarantinePath.toString(), null)) {
      Map<String, Integer> sinkCounts = new HashMap<>();
      Map<String, String> sinkValues = new HashMap<>();
      for (Object[] row : TableContents.rows(sink)) {
        // columns: id, name, doubled, _kafka_topic, _kafka_partition, _kafka_offset,
        // _kafka_timestamp
        String key = row[4] + "/" + row[5];
        sinkCounts.merge(key, 1, Integer::sum);
        sinkValues.put(key, row[0] + "|" + row[1]);
        assertThat((Long) row[2]).isEqualTo(2 * (Long) row[0]);
      }
      Map<String, Integer> quarantineCounts = new HashMap<>();
      for (Object[] row : TableContents.rows(quarantine)) {
        quarantineCounts.merge(row[1] + "/" + row[2], 1, Integer::sum);
      }
      assertThat(sinkCounts.values()).as("no offset twice in the sink").allMatch(c -> c == 1);
      assertThat(quarantineCounts.values())
          .as("no offset twice in quarantine")
          .allMatch(c -> c == 1);
      assertThat(sinkValues)
          .as("every valid record once in the sink, with its values")
          .isEqualTo(validValues);
      assertThat(quarantineCounts.keySet())
          .as("every malformed record once in quarantine")
          .isEqualTo(malformed.keySet());
    }
  }
}
