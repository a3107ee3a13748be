package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import dev.tributary.storage.testing.S3TestServer;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once proof: a pipeline runs in a child JVM against a Kafka broker in another process,
 * with a small max-offsets-per-trigger so there are many batches, and is killed again and again:
 * halted at each named step of the batch lifecycle ({@link CrashPoints}, the same as kill -9: no
 * hooks, no flush), and SIGKILLed at random moments. After every kill it is restarted; at the end
 * an available-now run drains the topic. The sink table and the quarantine table must then hold
 * every produced offset exactly once, and nothing else.
 */
class ExactlyOnceCrashIT {
  private static final int PARTITIONS = 3;

  /** The pipeline's max-offsets-per-trigger: no batch reads more records than this. */
  private static final int MAX_OFFSETS = 300;

  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG
  };

  /** The append pipelines' transform and sink (the sink's path follows). */
  private static final String APPEND =
      """
      transform:
        - derive: { doubled: "id * 2" }
      sink:
        delta:
      """;

  /** The upsert pipeline: 50 keys, each record a new version of its key, ordered by its id. */
  private static final String UPSERT =
      """
      transform:
        - derive: { k: "id % 50" }
      sink:
        delta:
          write: upsert
          key: [k]
          sequence-by: id
      """;

  /**
   * The history pipeline: the upsert's keys, each record a version of its key dated by its id (in
   * seconds), kept with {@code history: scd2}.
   */
  private static final String HISTORY =
      """
      transform:
        - derive: { k: "id % 50", at: "CAST(id AS timestamp)" }
      sink:
        delta:
          write: upsert
          key: [k]
          sequence-by: at
          history: scd2
      """;

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.shared();
  }

  @Test
  void localDiskTablesHoldEveryOffsetExactlyOnceAfterRepeatedKills() throws Exception {
    Path work = dir.resolve("local");
    Files.createDirectories(work);
    Fixture fixture =
        new Fixture(
            "orders-local",
            work,
            work.resolve("tables/orders").toString(),
            work.resolve("tables/orders-quarantine").toString(),
            work.resolve("checkpoint").toString(),
            "");
    fixture.runWithKills(24, new Random(20261129L));
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null);
        ObjectStore quarantine = ObjectStores.open(fixture.quarantinePath, null)) {
      fixture.assertExactlyOnce(sink, quarantine);
    }
  }

  @Test
  void s3TablesAndCheckpointHoldEveryOffsetExactlyOnceAfterRepeatedKills() throws Exception {
    S3TestServer s3 = S3TestServer.shared();
    String bucket = s3.createBucket();
    Path work = dir.resolve("s3");
    Files.createDirectories(work);
    String storage =
        "storage:\n  s3: { endpoint: \""
            + s3.endpoint()
            + "\", region: us-east-1, path-style: true,"
            + " access-key: \""
            + S3TestServer.ACCESS_KEY
            + "\", secret-key: \""
            + S3TestServer.SECRET_KEY
            + "\" }\n";
    Fixture fixture =
        new Fixture(
            "orders-s3",
            work,
            "s3://" + bucket + "/tables/orders",
            "s3://" + bucket + "/tables/orders-quarantine",
            "s3://" + bucket + "/checkpoints/orders",
            storage);
    fixture.runWithKills(12, new Random(7L));
    S3Settings settings = s3.settings();
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, settings);
        ObjectStore quarantine = ObjectStores.open(fixture.quarantinePath, settings)) {
      fixture.assertExactlyOnce(sink, quarantine);
    }
  }

  /**
   * {@code write: upsert} under the same kills: every batch is one MERGE commit with the batch's
   * txn, so a replayed batch must be skipped, not merged again, and a batch must never be half
   * merged. Records spread over three partitions and are ordered by {@code sequence-by}, so the
   * table must end with exactly one row per key: the valid record with the highest id.
   */
  @Test
  void upsertTableHoldsTheLatestVersionOfEveryKeyAfterRepeatedKills() throws Exception {
    Fixture fixture = upsertAfterKills("upsert", UPSERT, 20261202L);
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null)) {
      assertThat(DeltaTable.open(sink, TableOptions.defaults()).snapshot().files())
          .as("copy-on-write leaves no deletion vector")
          .noneMatch(f -> f.deletionVector() != null);
    }
  }

  /**
   * The same kills with {@code merge-strategy: deletion-vectors}: each batch marks the replaced
   * rows in a deletion vector file written before the commit, so a kill after it leaves an orphan
   * vector file and a replay must not mark again.
   */
  @Test
  void deletionVectorUpsertTableHoldsTheLatestVersionOfEveryKeyAfterRepeatedKills()
      throws Exception {
    Fixture fixture =
        upsertAfterKills("upsert-dv", UPSERT + "    merge-strategy: deletion-vectors\n", 20261203L);
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null)) {
      var snapshot = DeltaTable.open(sink, TableOptions.defaults()).snapshot();
      assertThat(snapshot.state().protocol().supports("deletionVectors")).isTrue();
      // Searched in every commit, not the final state: with 50 keys a file is often replaced
      // whole (removed, no vector), so whether a vector is still live at the end depends on where
      // the batches happened to cut the stream.
      DeltaLog log = new DeltaLog(sink);
      boolean marked = false;
      for (long v = 0; v <= snapshot.version() && !marked; v++) {
        marked =
            log.readCommit(v).stream()
                .anyMatch(a -> a instanceof AddFile add && add.deletionVector() != null);
      }
      assertThat(marked).as("the merges marked rows in deletion vectors").isTrue();
    }
  }

  /**
   * Runs an upsert pipeline under 14 kills (every crash point once, and as many random kills) and
   * checks that the table holds exactly the latest valid version of every key.
   */
  private Fixture upsertAfterKills(String name, String transformAndWrite, long seed)
      throws Exception {
    Path work = dir.resolve(name);
    Files.createDirectories(work);
    Fixture fixture =
        new Fixture(
            "orders-" + name,
            work,
            work.resolve("tables/orders").toString(),
            work.resolve("tables/orders-quarantine").toString(),
            work.resolve("checkpoint").toString(),
            "",
            transformAndWrite);
    fixture.runWithKills(14, new Random(seed));
    Map<Long, Long> latest = new HashMap<>();
    for (long id : fixture.validIds) {
      latest.merge(id % 50, id, Math::max);
    }
    Map<Long, Long> held = new HashMap<>();
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null);
        ObjectStore quarantine = ObjectStores.open(fixture.quarantinePath, null)) {
      for (Object[] row : TableContents.rows(sink)) {
        // columns: id, name, k, _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp
        assertThat(held.put((Long) row[2], (Long) row[0])).as("key %s held once", row[2]).isNull();
      }
      assertThat(held).as("the latest valid version of every key").isEqualTo(latest);
      Map<String, Integer> quarantined = new HashMap<>();
      for (Object[] row : TableContents.rows(quarantine)) {
        quarantined.merge(row[1] + "/" + row[2], 1, Integer::sum);
      }
      assertThat(quarantined.values()).as("no offset twice in quarantine").allMatch(c -> c == 1);
      assertThat(quarantined.keySet()).isEqualTo(fixture.malformedOffsets);
    }
    return fixture;
  }

  /**
   * {@code history: scd2} under the same kills: a batch closes and opens versions in one commit; a
   * replayed batch must neither open a version twice nor close one at the wrong time. The table
   * must end with every valid record as a version of its key, valid until the key's next record.
   */
  @Test
  void historyTableHoldsEveryVersionOfEveryKeyAfterRepeatedKills() throws Exception {
    Path work = dir.resolve("history");
    Files.createDirectories(work);
    Fixture fixture =
        new Fixture(
            "orders-history",
            work,
            work.resolve("tables/orders").toString(),
            work.resolve("tables/orders-quarantine").toString(),
            work.resolve("checkpoint").toString(),
            "",
            HISTORY);
    fixture.runWithKills(14, new Random(20261203L));
    Map<Long, TreeSet<Long>> idsByKey = new TreeMap<>();
    for (long id : fixture.validIds) {
      idsByKey.computeIfAbsent(id % 50, k -> new TreeSet<>()).add(id);
    }
    Set<String> expected = new TreeSet<>();
    idsByKey.forEach(
        (k, ids) -> {
          Long previous = null;
          for (long id : ids) {
            if (previous != null) {
              expected.add(k + " " + previous + " [" + previous + ", " + id + ")");
            }
            previous = id;
          }
          expected.add(k + " " + previous + " [" + previous + ", -) current");
        });
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null)) {
      Set<String> held = new TreeSet<>();
      for (Object[] row : TableContents.rows(sink)) {
        // columns: id, name, k, at, _kafka_* (4), _valid_from, _valid_to, _is_current
        Instant to = (Instant) row[9];
        String version =
            row[2]
                + " "
                + row[0]
                + " ["
                + ((Instant) row[8]).getEpochSecond()
                + ", "
                + (to == null ? "-" : Long.toString(to.getEpochSecond()))
                + ")"
                + (Boolean.TRUE.equals(row[10]) ? " current" : "");
        assertThat(held.add(version)).as("%s held once", version).isTrue();
      }
      assertThat(held).as("every valid record as a version of its key").isEqualTo(expected);
    }
  }

  /** One topic, one pipeline declaration, and the record of what was produced. */
  private static final class Fixture {
    final String topic;
    final Path work;
    final String sinkPath;
    final String quarantinePath;
    final Path pipelineFile;
    final Set<String> validOffsets = new HashSet<>();
    final Set<String> malformedOffsets = new HashSet<>();
    final Set<Long> validIds = new HashSet<>();
    int produced;

    Fixture(
        String topicPrefix,
        Path work,
        String sinkPath,
        String quarantinePath,
        String checkpoint,
        String storage)
        throws Exception {
      this(topicPrefix, work, sinkPath, quarantinePath, checkpoint, storage, APPEND);
    }

    Fixture(
        String topicPrefix,
        Path work,
        String sinkPath,
        String quarantinePath,
        String checkpoint,
        String storage,
        String transformAndWrite)
        throws Exception {
      this.topic = broker.newTopic(topicPrefix, PARTITIONS);
      this.work = work;
      this.sinkPath = sinkPath;
      this.quarantinePath = quarantinePath;
      this.pipelineFile = work.resolve("pipeline.yaml");
      Files.writeString(
          pipelineFile,
          """
          pipeline: crash-test
          source:
            kafka:
              bootstrap-servers: %s
              topics: [%s]
              max-offsets-per-trigger: %d
          format:
            json:
              schema:
                id: long
                name: string
          %s
              path: %s
          quarantine:
            delta: { path: "%s" }
          checkpoint: %s
          trigger: { processing-time: 50ms }
          %s"""
              .formatted(
                  broker.bootstrapServers(),
                  topic,
                  MAX_OFFSETS,
                  transformAndWrite.strip(),
                  sinkPath,
                  quarantinePath,
                  checkpoint,
                  storage));
    }

    /** Produces records: about one in twenty is malformed and must land in quarantine. */
    void produce(int count, Random random) throws Exception {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        List<Boolean> malformed = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          boolean bad = random.nextInt(20) == 0;
          if (!bad) {
            validIds.add((long) produced);
          }
          String value =
              bad
                  ? "{\"id\": " + produced + ", \"name\": "
                  : "{\"id\":" + produced + ",\"name\":\"n" + produced + "\"}";
          produced++;
          sent.add(
              producer.send(
                  new ProducerRecord<>(
                      topic,
                      random.nextInt(PARTITIONS),
                      null,
                      value.getBytes(StandardCharsets.UTF_8))));
          malformed.add(bad);
        }
        for (int i = 0; i < sent.size(); i++) {
          RecordMetadata m = sent.get(i).get();
          (malformed.get(i) ? malformedOffsets : validOffsets)
              .add(m.partition() + "/" + m.offset());
        }
      }
    }

    /**
     * Runs the pipeline {@code kills} times, alternately halted at a crash point and SIGKILLed at a
     * random moment. A crash point must be reachable by construction: before a halted run, enough
     * fresh records are produced that the run certainly reaches the chosen occurrence (see {@link
     * #freshRecordsToReach}); the run is then asserted to have halted there, not merely to have
     * exited.
     */
    void runWithKills(int kills, Random random) throws Exception {
      produce(3000, random);
      for (int i = 0; i < kills; i++) {
        Path log = work.resolve("run-" + i + ".log");
        List<String> jvm =
            new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        boolean deterministic = i % 2 == 0;
        String point = POINTS[(i / 2) % POINTS.length];
        String crashAt = null;
        if (deterministic) {
          int occurrence =
              point.equals(CrashPoints.MID_BATCH) ? 1 + random.nextInt(600) : 1 + random.nextInt(3);
          crashAt = point + ":" + occurrence;
          produce(freshRecordsToReach(point, occurrence), random);
          jvm.add("-Dtributary.test.crash-at=" + crashAt);
        } else {
          produce(500, random);
        }
        Process child =
            ChildJvm.start(
                jvm,
                "dev.tributary.service.cli.Main",
                List.of("run", "--pipeline", pipelineFile.toString()),
                log,
                work);
        if (deterministic) {
          boolean exited = child.waitFor(120, TimeUnit.SECONDS);
          if (!exited) {
            child.destroyForcibly().waitFor();
          }
          assertThat(exited)
              .as("crash point %s reached; log %s:%n%s", crashAt, log, Files.readString(log))
              .isTrue();
          assertThat(child.exitValue())
              .as("halted at %s; log:%n%s", crashAt, Files.readString(log))
              .isEqualTo(137);
          assertThat(Files.readString(log))
              .as("the run halted at its crash point, not for another reason")
              .contains("crash point " + crashAt + " reached");
        } else {
          Thread.sleep(1500 + random.nextInt(2500));
          assertThat(child.isAlive())
              .as("pipeline still running before the kill; log:%n%s", Files.readString(log))
              .isTrue();
          child.destroyForcibly(); // SIGKILL
          child.waitFor();
        }
      }
      Path log = work.resolve("drain.log");
      Process drain =
          ChildJvm.start(
              List.of("-Xmx256m"),
              "dev.tributary.service.cli.Main",
              List.of("run", "--pipeline", pipelineFile.toString(), "--available-now"),
              log,
              work);
      assertThat(drain.waitFor(180, TimeUnit.SECONDS)).as("drain finished").isTrue();
      assertThat(drain.exitValue()).as("drain exit code; log:%n%s", Files.readString(log)).isZero();
    }

    /**
     * How many records to produce right before a run so that it certainly reaches the {@code
     * occurrence}-th time of {@code point}, whatever earlier runs left over. Records produced after
     * the previous run died lie beyond every range planned so far, so this run plans new batches
     * for them (a processing-time run is not stopped before it has read everything), at most {@link
     * #MAX_OFFSETS} records each: {@code n * MAX_OFFSETS} fresh records give at least {@code n} new
     * batches, and each new batch passes every per-batch point once (the sink's data files are
     * written even for a batch of only malformed records). {@code mid-batch} is reached once per
     * record read.
     */
    static int freshRecordsToReach(String point, int occurrence) {
      int needed = point.equals(CrashPoints.MID_BATCH) ? occurrence : occurrence * MAX_OFFSETS;
      return Math.max(needed, 500);
    }

    void assertExactlyOnce(ObjectStore sink, ObjectStore quarantine) throws Exception {
      Map<String, Integer> sinkCounts = new HashMap<>();
      for (Object[] row : TableContents.rows(sink)) {
        // columns: id, name, doubled, _kafka_topic, _kafka_partition, _kafka_offset,
        // _kafka_timestamp
        assertThat(row[3]).isEqualTo(topic);
        assertThat((Long) row[2]).isEqualTo(2 * (Long) row[0]);
        sinkCounts.merge(row[4] + "/" + row[5], 1, Integer::sum);
      }
      Map<String, Integer> quarantineCounts = new HashMap<>();
      for (Object[] row : TableContents.rows(quarantine)) {
        quarantineCounts.merge(row[1] + "/" + row[2], 1, Integer::sum);
      }
      assertThat(sinkCounts.values()).as("no offset twice in the sink").allMatch(c -> c == 1);
      assertThat(quarantineCounts.values())
          .as("no offset twice in quarantine")
          .allMatch(c -> c == 1);
      assertThat(sinkCounts.keySet())
          .as("every valid record once in the sink")
          .isEqualTo(validOffsets);
      assertThat(quarantineCounts.keySet())
          .as("every malformed record once in quarantine")
          .isEqualTo(malformedOffsets);
    }
  }
}
