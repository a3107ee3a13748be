package dev.tributary.service.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay-quarantine} end to end, against a real broker and S3 API server: a pipeline whose
 * schema declares {@code qty: int} quarantines the records whose qty does not fit an int (and the
 * malformed ones); the declaration is fixed to {@code qty: long}; replays, each in a child JVM
 * halted like kill -9 at one crash point of the replay ({@code tributary.test.crash-at}, each halt
 * asserted to have happened there), move the fixed records into the sink while the live pipeline,
 * with the fixed declaration, goes on writing between them. Then the sink holds every good and
 * every fixed record exactly once, the quarantine every malformed one exactly once with its new
 * error, a further replay writes nothing, and the live pipeline goes on with the fixed declaration
 * after the replay.
 */
class ReplayQuarantineIT {
  private static final int PARTITIONS = 2;
  private static final long BIG = 3_000_000_000L;

  @TempDir Path work;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final S3TestServer s3 = S3TestServer.shared();
  private final Random random = new Random(28L);
  private final long[] next = new long[PARTITIONS];

  /** partition/offset -> qty, of the records the sink must end up holding once each. */
  private final Map<String, Long> good = new TreeMap<>();

  private final List<String> malformed = new ArrayList<>();
  private String topic;
  private String bucket;

  @Test
  void fixedRecordsReachTheSinkOnceAfterAKillAtEveryPointOfTheReplay() throws Exception {
    topic = broker.createTopic("replay-in", PARTITIONS);
    bucket = s3.createBucket();
    Path v1 = pipeline("v1.yaml", "int");
    Path v2 = pipeline("v2.yaml", "long");
    produce(160);
    assertThat(child("live-v1", v1, null, "run", "--available-now")).isZero();
    assertThat(quarantined().keySet())
        .as("big qty and malformed quarantined")
        .hasSizeGreaterThan(30);

    // --where picks a slice; the rest stays
    ReplayReport first =
        Replays.run(
                PipelineParser.parse(v2, Map.of()),
                Optional.of("`partition` = 0 AND `offset` < 20"))
            .orElseThrow();
    assertThat(first.replayed()).isPositive();
    assertThat(quarantined().keySet())
        .noneMatch(k -> k.startsWith("0/") && offset(k) < 20 && !malformed.contains(k))
        .anyMatch(k -> k.startsWith("0/") && offset(k) >= 20 && !malformed.contains(k));

    // the fixed declaration goes live (it writes beside the replays from now on)
    produce(40);
    assertThat(child("live-v2-1", v2, null, "run", "--available-now")).isZero();
    String[] points = {
      CrashPoints.REPLAY_MID_RUN + ":" + (1 + random.nextInt(5)),
      CrashPoints.AFTER_DATA_FILES + ":1",
      CrashPoints.REPLAY_AFTER_SINK_COMMIT + ":1",
      // the next replay completes the interrupted run first: its quarantine commit
      CrashPoints.REPLAY_AFTER_QUARANTINE_COMMIT + ":1",
    };
    for (String point : points) {
      assertThat(
              child(
                  "replay-" + point.replace(':', '-'),
                  v2,
                  point,
                  "replay-quarantine",
                  "--where",
                  "`partition` = 0"))
          .isEqualTo(137);
    }
    produce(40);
    assertThat(child("live-v2-2", v2, null, "run", "--available-now")).isZero();
    // a run's own quarantine commit (no run pending): partition 1's records
    assertThat(
            child(
                "replay-own-commit",
                v2,
                CrashPoints.REPLAY_AFTER_QUARANTINE_COMMIT + ":1",
                "replay-quarantine",
                "--where",
                "`partition` = 1"))
        .isEqualTo(137);
    assertThat(child("replay-final", v2, null, "replay-quarantine")).isZero();

    assertThat(sinkRows()).as("every good and fixed record once in the sink").isEqualTo(once());
    Map<String, String> left = quarantined();
    assertThat(left.keySet())
        .as("only the malformed records stay")
        .containsExactlyInAnyOrderElementsOf(malformed);
    assertThat(left.values()).allMatch(e -> e.startsWith("malformed JSON"));

    long sinkVersion = sinkVersion();
    ReplayReport again =
        Replays.run(PipelineParser.parse(v2, Map.of()), Optional.empty()).orElseThrow();
    assertThat(again.replayed()).isZero();
    assertThat(again.stillFailing()).isEqualTo(malformed.size());
    assertThat(sinkVersion()).as("a further replay writes nothing").isEqualTo(sinkVersion);

    // the live pipeline goes on, with the fixed declaration, after the replays
    produce(30);
    assertThat(child("live-fixed", v2, null, "run", "--available-now")).isZero();
    assertThat(sinkRows()).isEqualTo(once());
  }

  private Path pipeline(String name, String qtyType) throws Exception {
    Path file = work.resolve(name);
    Files.writeString(
        file,
        """
        pipeline: replay-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 50
        format:
          json:
            schema: { id: long, qty: %s }
        sink:
          delta:
            path: s3://%s/tables/orders
        quarantine:
          delta: { path: "s3://%s/tables/orders-quarantine" }
        checkpoint: s3://%s/checkpoints/orders
        storage:
          s3: { endpoint: "%s", region: us-east-1, path-style: true,
                access-key: "%s", secret-key: "%s" }
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                qtyType,
                bucket,
                bucket,
                bucket,
                s3.endpoint(),
                S3TestServer.ACCESS_KEY,
                S3TestServer.SECRET_KEY));
    return file;
  }

  /** Runs the command line in a child JVM, halted at {@code crashAt} if given; its exit code. */
  private int child(String name, Path file, String crashAt, String command, String... more)
      throws Exception {
    List<String> jvm = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC"));
    if (crashAt != null) {
      jvm.add("-Dtributary.test.crash-at=" + crashAt);
    }
    List<String> args = new ArrayList<>(List.of(command, "--pipeline", file.toString()));
    args.addAll(List.of(more));
    Path log = work.resolve(name + ".log");
    Process p = ChildJvm.start(jvm, "dev.tributary.service.cli.Main", args, log, work);
    boolean exited = p.waitFor(180, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly().waitFor();
    }
    assertThat(exited).as("%s finished; log:%n%s", name, ChildJvm.tail(log)).isTrue();
    if (crashAt != null) {
      assertThat(Files.readString(log))
          .as("%s halted at its crash point, not for another reason", name)
          .contains("crash point " + crashAt + " reached");
    } else if (p.exitValue() != 0) {
      throw new AssertionError(name + " exited " + p.exitValue() + ":\n" + ChildJvm.tail(log));
    }
    return p.exitValue();
  }

  /**
   * Produces records: about one in four has a qty beyond an int (quarantined by the first
   * declaration, fine under the fixed one), one in twenty is malformed.
   */
  private void produce(int count) {
    for (int p = 0; p < PARTITIONS; p++) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < count / PARTITIONS; i++) {
        long offset = next[p]++;
        String key = p + "/" + offset;
        int kind = random.nextInt(20);
        if (kind == 0) {
          values.add("{\"id\": " + offset + ", \"qty\": ");
          malformed.add(key);
        } else {
          long qty = kind <= 5 ? BIG + offset : offset;
          values.add("{\"id\":" + offset + ",\"qty\":" + qty + "}");
          good.put(key, qty);
        }
      }
      broker.send(topic, p, values);
    }
  }

  private static long offset(String key) {
    return Long.parseLong(key.substring(key.indexOf('/') + 1));
  }

  private Map<String, Long> once() {
    return good;
  }

  private ObjectStore open(String table) throws Exception {
    return ObjectStores.open("s3://" + bucket + "/tables/" + table, s3.settings());
  }

  /** The sink's rows by record; a record written twice fails the test. */
  private Map<String, Long> sinkRows() throws Exception {
    Map<String, Long> out = new TreeMap<>();
    try (ObjectStore store = open("orders")) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      int qty = snapshot.schema().indexOf("qty");
      int partition = snapshot.schema().indexOf("_kafka_partition");
      int offset = snapshot.schema().indexOf("_kafka_offset");
      for (DataFile f : snapshot.files()) {
        for (Object[] r : DataFiles.readAll(store, f, snapshot.schema())) {
          String key = r[partition] + "/" + r[offset];
          Long was = out.put(key, ((Number) r[qty]).longValue());
          assertThat(was).as("record %s once in the sink", key).isNull();
        }
      }
    }
    return out;
  }

  private long sinkVersion() throws Exception {
    try (ObjectStore store = open("orders")) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
    }
  }

  /** The quarantine's rows by record: partition/offset -> error; a record twice fails the test. */
  private Map<String, String> quarantined() throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (ObjectStore store = open("orders-quarantine")) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      for (DataFile f : snapshot.files()) {
        for (Object[] r : DataFiles.readAll(store, f, snapshot.schema())) {
          String key = r[1] + "/" + r[2];
          assertThat(out.put(key, (String) r[6])).as("record %s once in quarantine", key).isNull();
        }
      }
    }
    return out;
  }
}
