package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
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
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;

/**
 * One topic, one pipeline declaration run in child JVMs that are killed again and again, and the
 * record of what was produced: the harness of the exactly-once proofs ({@link ExactlyOnceCrashIT}
 * for appends, {@link UpsertCrashIT} for merges and history). A run is halted at each named step of
 * the batch lifecycle ({@link CrashPoints}, the same as kill -9: no hooks, no flush) or SIGKILLed
 * at a random moment; at the end an available-now run drains the topic.
 */
final class CrashFixture {
  static final int PARTITIONS = 3;

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

  final KafkaBrokerProcess broker;
  final String topic;
  final Path work;
  final String sinkPath;
  final String quarantinePath;
  final Path pipelineFile;
  final Set<String> validOffsets = new HashSet<>();
  final Set<String> malformedOffsets = new HashSet<>();
  final Set<Long> validIds = new HashSet<>();
  int produced;

  CrashFixture(
      KafkaBrokerProcess broker,
      String topicPrefix,
      Path work,
      String sinkPath,
      String quarantinePath,
      String checkpoint,
      String storage)
      throws Exception {
    this(broker, topicPrefix, work, sinkPath, quarantinePath, checkpoint, storage, APPEND);
  }

  CrashFixture(
      KafkaBrokerProcess broker,
      String topicPrefix,
      Path work,
      String sinkPath,
      String quarantinePath,
      String checkpoint,
      String storage,
      String transformAndWrite)
      throws Exception {
    this.broker = broker;
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
        (malformed.get(i) ? malformedOffsets : validOffsets).add(m.partition() + "/" + m.offset());
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
        CrashRuns.assertHaltedAt(child, crashAt, log);
      } else {
        // A kill that lands in the run's work by construction: the run has committed a batch of
        // the fresh records (its progress line is in the log) and is still running when it is
        // SIGKILLed a random moment later, wherever it is. (A fixed 1.5-4 s from the start killed
        // some runs in their JVM's start on a loaded machine, and idled others.)
        Awaitility.await("run " + i + " committed a batch")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> !child.isAlive() || Files.readString(log).contains("\"batchId\""));
        Thread.sleep(random.nextInt(1000));
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
            List.of("-Xmx256m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", pipelineFile.toString(), "--available-now"),
            log,
            work);
    CrashRuns.assertFinished(drain, log);
  }

  /**
   * How many records to produce right before a run so that it certainly reaches the {@code
   * occurrence}-th time of {@code point}, whatever earlier runs left over. Records produced after
   * the previous run died lie beyond every range planned so far, so this run plans new batches for
   * them (a processing-time run is not stopped before it has read everything), at most {@link
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
    assertThat(quarantineCounts.values()).as("no offset twice in quarantine").allMatch(c -> c == 1);
    assertThat(sinkCounts.keySet())
        .as("every valid record once in the sink")
        .isEqualTo(validOffsets);
    assertThat(quarantineCounts.keySet())
        .as("every malformed record once in quarantine")
        .isEqualTo(malformedOffsets);
  }
}
