package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.CheckpointLease;
import dev.tributary.checkpoint.Lease;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.InstanceProcesses;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
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
 * One owner per checkpoint, with real {@code run} processes on one checkpoint (lease duration 3 s):
 * a second process is refused at start naming the owner's host and pid; an owner frozen (SIGSTOP)
 * mid-batch, after its sink commit, loses its lease when it expires, the next start takes over and
 * replays, and the resumed owner's commits entry is fenced; a SIGTERM releases the lease for an
 * immediate restart; a restart right after a kill -9 on the same machine takes over at once. The
 * sink table holds every record exactly once at the end.
 */
class CheckpointLeaseIT {
  private static final int PARTITIONS = 2;
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration AWAIT = Duration.ofSeconds(120);
  private static final List<String> JVM =
      List.of("-Dtributary.checkpoint.lease-duration=" + LEASE.toSeconds() + "s");

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;
  private InstanceProcesses instances;
  private final Set<String> produced = new HashSet<>();
  private int next;

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
  void aSecondProcessIsRefusedAFrozenOwnerIsFencedAndEveryRecordLandsOnce() throws Exception {
    Path work = InstanceProcesses.freshWorkDirectory("checkpoint-lease");
    instances = new InstanceProcesses(work);
    String topic = broker.newTopic("orders-lease", PARTITIONS);
    Path sinkPath = work.resolve("tables/orders");
    Path checkpoint = work.resolve("checkpoint");
    Path pipeline = work.resolve("pipeline.yaml");
    Files.writeString(
        pipeline,
        """
        pipeline: lease-test
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 200
        format:
          json:
            schema:
              id: long
        sink:
          delta: { path: %s }
        quarantine:
          delta: { path: "%s" }
        checkpoint: %s
        trigger: { processing-time: 200ms }
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                sinkPath,
                work.resolve("tables/orders-quarantine"),
                checkpoint));
    Path armed = work.resolve("arm-owner");
    Path release = work.resolve("release-owner");

    // The owner runs; a second process on the same checkpoint is refused at start.
    produce(topic, 400);
    Process owner =
        instances.start(
            "owner",
            pipeline,
            concat(
                JVM,
                "-Dtributary.test.hold-at=" + CrashPoints.AFTER_SINK_COMMIT + ":1",
                "-Dtributary.test.hold-armed=" + armed,
                "-Dtributary.test.hold-release=" + release));
    awaitSinkHoldsEveryRecord(sinkPath);
    Lease ownerLease = lease(checkpoint);
    assertThat(ownerLease.owner().pid()).isEqualTo(owner.pid());
    Process second = instances.start("second", pipeline, JVM);
    assertThat(InstanceProcesses.awaitExit(second, 120)).as("the second process ended").isTrue();
    assertThat(second.exitValue()).as("log:%n%s", instances.log("second")).isEqualTo(1);
    assertThat(instances.log("second"))
        .contains(
            "Cannot start pipeline lease-test: its checkpoint "
                + checkpoint
                + " is in use by another process (host "
                + ownerLease.owner().host()
                + ", pid "
                + owner.pid()
                + ", running pipeline lease-test since "
                + ownerLease.acquiredAt()
                + ").")
        .contains("the lease expires at ")
        .doesNotContain("\tat dev.tributary");
    assertThat(lease(checkpoint).epoch()).as("the refused process took nothing").isZero();

    // The owner holds its next batch after the sink commit, then freezes: its lease expires.
    Files.writeString(armed, "armed");
    produce(topic, 200);
    Awaitility.await()
        .atMost(AWAIT)
        .until(
            () ->
                instances
                    .log("owner")
                    .contains("hold point " + CrashPoints.AFTER_SINK_COMMIT + ":1 reached"));
    InstanceProcesses.signal("STOP", owner);
    Instant frozen = Instant.now();
    Path ownerFile = checkpoint.resolve("lease/00000000000000000000");
    Awaitility.await()
        .atMost(AWAIT)
        .until(
            () ->
                Files.getLastModifiedTime(ownerFile)
                    .toInstant()
                    .plus(LEASE)
                    .isBefore(Instant.now()));

    // The next start takes over, replays the held batch (the table has it) and goes on.
    Process taker = instances.start("taker", pipeline, JVM);
    Awaitility.await().atMost(AWAIT).until(() -> lease(checkpoint).epoch() == 1);
    Lease takerLease = lease(checkpoint);
    assertThat(takerLease.owner().pid()).isEqualTo(taker.pid());
    System.out.printf(
        "CheckpointLeaseIT: lease of %s taken over %d ms after the owner froze%n",
        LEASE, Duration.between(frozen, takerLease.acquiredAt()).toMillis());
    produce(topic, 200);
    awaitSinkHoldsEveryRecord(sinkPath);

    // The owner wakes up with a batch whose commits entry it has yet to write: fenced.
    InstanceProcesses.signal("CONT", owner);
    Files.writeString(release, "go");
    assertThat(InstanceProcesses.awaitExit(owner, 120)).as("the fenced owner ended").isTrue();
    assertThat(owner.exitValue()).as("log:%n%s", instances.log("owner")).isEqualTo(1);
    assertThat(instances.log("owner"))
        .contains(
            "Pipeline lease-test: this process (host "
                + ownerLease.owner().host()
                + ", pid "
                + owner.pid()
                + ") no longer owns checkpoint "
                + checkpoint
                + ": it lost its lease to host "
                + takerLease.owner().host()
                + ", pid "
                + taker.pid()
                + " at "
                + takerLease.acquiredAt());
    assertThat(taker.isAlive()).as("taker; log:%n%s", instances.log("taker")).isTrue();

    // A graceful stop releases the lease: a restart takes it over at once.
    taker.destroy(); // SIGTERM
    assertThat(InstanceProcesses.awaitExit(taker, 120)).as("the taker stopped").isTrue();
    assertThat(lease(checkpoint).releasedAt()).as("released by the SIGTERM").isPresent();
    Process restarted = instances.start("restarted", pipeline, JVM);
    produce(topic, 200);
    awaitSinkHoldsEveryRecord(sinkPath);
    assertThat(lease(checkpoint).epoch()).isEqualTo(2);

    // kill -9: the lease stays, but its process is gone on this machine: the next start takes it.
    InstanceProcesses.kill(restarted);
    assertThat(lease(checkpoint).released()).isFalse();
    produce(topic, 200);
    Instant killed = Instant.now();
    Process drain = instances.start("drain", pipeline, JVM, List.of("--available-now"));
    assertThat(InstanceProcesses.awaitExit(drain, 120)).as("the drain ended").isTrue();
    assertThat(drain.exitValue()).as("log:%n%s", instances.log("drain")).isZero();
    Lease drained = lease(checkpoint);
    assertThat(drained.epoch()).isEqualTo(3);
    assertThat(drained.owner().pid()).isEqualTo(drain.pid());
    assertThat(drained.released()).isTrue();
    assertThat(Duration.between(killed, drained.acquiredAt()))
        .as("no wait for the lease to expire: the JVM start is all the delay")
        .isLessThan(Duration.ofSeconds(60));
    assertThat(instances.log("drain"))
        .contains("took over the lease of checkpoint")
        .contains("its process is gone");
    assertSinkHoldsEveryRecordOnce(sinkPath);
  }

  private static List<String> concat(List<String> first, String... more) {
    List<String> all = new ArrayList<>(first);
    all.addAll(List.of(more));
    return all;
  }

  private static Lease lease(Path checkpoint) throws Exception {
    try (ObjectStore store = ObjectStores.open(checkpoint.toString(), null)) {
      return CheckpointLease.current(store).orElseThrow();
    }
  }

  private void produce(String topic, int count) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        byte[] value = ("{\"id\":" + next++ + "}").getBytes(StandardCharsets.UTF_8);
        sent.add(producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, value)));
      }
      for (Future<RecordMetadata> f : sent) {
        RecordMetadata m = f.get();
        produced.add(m.partition() + "/" + m.offset());
      }
    }
  }

  private void awaitSinkHoldsEveryRecord(Path sinkPath) {
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(() -> counts(sinkPath).keySet().containsAll(produced));
  }

  private void assertSinkHoldsEveryRecordOnce(Path sinkPath) throws Exception {
    Map<String, Integer> counts = counts(sinkPath);
    assertThat(counts.keySet()).isEqualTo(produced);
    assertThat(counts.values()).as("no record twice").allMatch(c -> c == 1);
  }

  /** Rows per {@code partition/offset} in the sink (columns: id, then the _kafka_* ones). */
  private static Map<String, Integer> counts(Path sinkPath) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    // the table exists once its first commit does (the folder comes a moment before)
    if (!Files.exists(sinkPath.resolve("_delta_log/00000000000000000000.json"))) {
      return counts;
    }
    try (ObjectStore store = ObjectStores.open(sinkPath.toString(), null)) {
      for (Object[] row : TableContents.rows(store)) {
        counts.merge(row[2] + "/" + row[3], 1, Integer::sum);
      }
    }
    return counts;
  }
}
