package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.source.KeyedByCheck;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.stateful.LateEvents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.SeedEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at every step of a keyed-by stateful pipeline's rounds (docs/DESIGN.md, "Keyed-by
 * sources: no exchange"): a deduplicated windowed count per user over a topic keyed by {@code
 * user_id}, run in group assignment in a child JVM that halts (exit 137, as kill -9) at a crash
 * point of its sub-pipelines, restarted each time, then drained by two instances at once with
 * available-now. One instance runs a round of one batch per source partition in partition order, so
 * occurrence {@code k > 1} of a per-batch point halts between two sub-pipelines of one round: e.g.
 * {@code after-sink-commit:2} leaves partition 0's batch committed everywhere and partition 1's
 * committed in the sink but not in its state or commits log.
 *
 * <p>The stream has duplicates (dropped by dedup), malformed records and one mis-keyed record (both
 * quarantined) and, after a settling available-now run, records a day older than the watermark
 * (late-events). An uncrashed history (one in-process instance, available-now at the same two
 * moments) is the reference: the window, quarantine and late-events tables must equal it as
 * multisets (the late rows without the watermark they were judged against, which depends on the
 * batch cuts), the windows must equal the direct computation, and no repartition topic may exist.
 *
 * <p>Fresh records before each halted run make its crash point reachable by construction: every
 * partition gets {@link #PER_PARTITION} new records, at most {@link #MAX_OFFSETS} a batch, so the
 * run plans at least three batches with input per partition, and it owns every partition once the
 * group has dropped the halted member before it.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KeyedByCrashIT {
  /** Halted before the late records exist. */
  private static final String[] BEFORE_LATE = {
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_SINK_COMMIT
  };

  /** Halted with late records in the batches (the late-events commit is before the sink's). */
  private static final String[] WITH_LATE = {
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_STATE_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG
  };

  private static final String PIPELINE = "keyed-crash";
  private static final String REFERENCE = "keyed-crash-ref";
  private static final int PARTITIONS = 4;
  private static final int MAX_OFFSETS = 10;
  private static final int PER_PARTITION = 3 * MAX_OFFSETS;
  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Random random = new Random(20261203L);
  private final Events events = new Events(new Random(27L));

  @TempDir Path dir;

  @Test
  void keyedTablesEqualAnUncrashedRunAfterAHaltAtEveryStepOfTheRounds() throws Exception {
    String topic = broker.createTopic("keyed-crash", PARTITIONS);
    Path pipeline = dir.resolve("pipeline.yaml");
    Files.writeString(pipeline, yaml(PIPELINE, topic));

    events.produce(topic, false);
    for (String point : BEFORE_LATE) {
      haltAt(pipeline, point, topic, false);
    }
    // The settled history: from here on every partition has recorded a watermark past T0, so a
    // record a day before T0 is late whatever the batch cuts of either history.
    drain(pipeline, 1, "settle");
    runReference(topic);
    events.produce(topic, true);
    for (String point : WITH_LATE) {
      haltAt(pipeline, point, topic, true);
    }
    events.produce(topic, true);
    drain(pipeline, 2, "drain");
    runReference(topic);

    Path crashed = dir.resolve(PIPELINE);
    Path reference = dir.resolve(REFERENCE);
    assertThat(windows(crashed.resolve("sink")))
        .as("windows: the crashed history's, the uncrashed one's, the direct computation")
        .isEqualTo(windows(reference.resolve("sink")))
        .isEqualTo(events.expectedWindows());
    assertThat(quarantined(crashed.resolve("quarantine")))
        .isEqualTo(quarantined(reference.resolve("quarantine")))
        .extracting(q -> q.substring(0, q.indexOf(' ')))
        .containsExactlyInAnyOrderElementsOf(events.quarantined);
    assertThat(late(crashed.resolve("late")))
        .isEqualTo(late(reference.resolve("late")))
        .hasSize(events.late);
    try (Admin admin = broker.admin()) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
          .doesNotContain(ExchangeRecords.topic(PIPELINE), ExchangeRecords.topic(REFERENCE));
    }
  }

  private void haltAt(Path pipeline, String point, String topic, boolean withLate)
      throws Exception {
    events.produce(topic, withLate);
    boolean perRecord = point.equals(CrashPoints.MID_BATCH);
    // per batch: at most 2 rounds of one batch per partition in, so often between two
    // sub-pipelines of one round
    String crashAt =
        point + ":" + (perRecord ? 1 + random.nextInt(PER_PARTITION) : 2 + random.nextInt(6));
    List<String> options = new ArrayList<>(jvm());
    options.add("-Dtributary.test.crash-at=" + crashAt);
    Path log = dir.resolve("run-" + point + (withLate ? "-late" : "") + ".log");
    Process child =
        ChildJvm.start(
            options,
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", pipeline.toString()),
            log,
            dir);
    CrashRuns.assertHaltedAt(child, crashAt, log);
  }

  private void drain(Path pipeline, int instances, String name) throws Exception {
    List<Process> children = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      Path log = dir.resolve(name + "-" + i + ".log");
      logs.add(log);
      children.add(
          ChildJvm.start(
              jvm(),
              "dev.tributary.service.cli.Main",
              List.of("run", "--pipeline", pipeline.toString(), "--available-now"),
              log,
              dir));
    }
    for (int i = 0; i < instances; i++) {
      CrashRuns.assertFinished(children.get(i), logs.get(i));
    }
  }

  /** The uncrashed history: one instance in this JVM, available-now. */
  private void runReference(String topic) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(
                PipelineParser.parse(yaml(REFERENCE, topic), REFERENCE + ".yaml", Map.of())),
            new TriggerSpec.AvailableNow(),
            new ProgressLog(100))) {
      run.run();
    }
  }

  private List<String> jvm() {
    return List.of(
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Dtributary.state.dir=" + dir.resolve("state"));
  }

  private String yaml(String id, String topic) {
    Path base = dir.resolve(id);
    return """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: group
            keyed-by: [user_id]
            max-offsets-per-trigger: %d
            properties: { session.timeout.ms: "2000", heartbeat.interval.ms: "500" }
        format:
          json:
            schema: { event_id: string, user_id: string, event_ts: timestamp, amount: long }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, user_id, event_ts] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [user_id]
          measures: { events: count(), amount: sum(amount) }
        output-mode: append
        sink:
          delta: { path: %s/sink }
        quarantine:
          delta: { path: %s/quarantine }
        late-events:
          delta: { path: %s/late }
        checkpoint: %s/checkpoint
        trigger: { processing-time: 100ms }
        """
        .formatted(id, broker.bootstrapServers(), topic, MAX_OFFSETS, base, base, base, base);
  }

  /**
   * The stream and its direct computation. Records are keyed by user (the producer's default
   * partitioner), {@link #PER_PARTITION} per partition per call, rising in event time (6 s apart,
   * up to 60 s of jitter: far below the delay, so no on-time record is ever late); every 7th event
   * re-sent, every 23rd record malformed, one record sent to the wrong partition, and with {@code
   * late} every 11th event a day before the stream began.
   */
  private final class Events {
    private final Random random;
    private final List<List<String>> users = new ArrayList<>();
    private final Map<String, long[]> windows = new TreeMap<>();
    final List<String> quarantined = new ArrayList<>();
    int late;
    private Instant max = T0;
    private int produced;

    Events(Random random) {
      this.random = random;
      for (int p = 0; p < PARTITIONS; p++) {
        users.add(new ArrayList<>());
      }
      for (int u = 0; users.stream().anyMatch(l -> l.size() < 3); u++) {
        List<String> of = users.get(KeyedByCheck.partitionOf(bytes("u" + u), PARTITIONS));
        if (of.size() < 3) {
          of.add("u" + u);
        }
      }
    }

    void produce(String topic, boolean withLate) throws Exception {
      List<Future<RecordMetadata>> bad = new ArrayList<>();
      try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
        for (int k = 0; k < PER_PARTITION * PARTITIONS; k++) {
          int i = produced++;
          int partition = i % PARTITIONS;
          String user = users.get(partition).get(random.nextInt(3));
          if (i % 23 == 22) {
            bad.add(producer.send(record(topic, user, "{\"event_id\": \"broken-" + i)));
            continue;
          }
          if (i == 50) {
            // keyed right, in the wrong partition: the keyed-by check quarantines it
            bad.add(
                producer.send(
                    new ProducerRecord<>(
                        topic,
                        (partition + 1) % PARTITIONS,
                        bytes(user),
                        bytes(json("miskeyed", user, T0.plusSeconds(i * 6L), 1_000_000)))));
            continue;
          }
          if (withLate && i % 11 == 0) {
            late++;
            producer.send(record(topic, user, json("late-" + i, user, T0.minusSeconds(86_400), 1)));
            continue;
          }
          Instant ts = T0.plusSeconds(i * 6L + random.nextInt(60));
          long amount = random.nextInt(1000);
          String json = json("e" + i, user, ts, amount);
          for (int c = 0; c < (i % 7 == 0 ? 2 : 1); c++) {
            producer.send(record(topic, user, json));
          }
          long[] w =
              windows.computeIfAbsent(
                  Instant.ofEpochSecond(ts.getEpochSecond() / 300 * 300) + "|" + user,
                  key -> new long[2]);
          w[0]++;
          w[1] += amount;
          max = ts.isAfter(max) ? ts : max;
        }
        producer.flush();
      }
      for (Future<RecordMetadata> f : bad) {
        RecordMetadata m = f.get();
        quarantined.add(m.partition() + "@" + m.offset());
      }
    }

    /** The windows that end at or before max(event time) - 10 minutes: what a drain emits. */
    List<String> expectedWindows() {
      long watermark = max.getEpochSecond() - 600;
      List<String> out = new ArrayList<>();
      windows.forEach(
          (key, v) -> {
            if (Instant.parse(key.substring(0, key.indexOf('|'))).getEpochSecond() + 300
                <= watermark) {
              out.add(key + "=" + v[0] + "/" + v[1]);
            }
          });
      out.sort(null);
      return out;
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String user, String value) {
      return new ProducerRecord<>(topic, bytes(user), bytes(value));
    }

    private static String json(String id, String user, Instant ts, long amount) {
      return "{\"event_id\":\""
          + id
          + "\",\"user_id\":\""
          + user
          + "\",\"event_ts\":\""
          + ts
          + "\",\"amount\":"
          + amount
          + "}";
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The sink's rows as {@code window_start|user=events/amount}, sorted, duplicates kept. */
  private static List<String> windows(Path table) throws Exception {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : SeedEvents.rows(table)) {
      out.add(
          row.get("window_start")
              + "|"
              + row.get("user_id")
              + "="
              + row.get("events")
              + "/"
              + row.get("amount"));
    }
    out.sort(null);
    return out;
  }

  /**
   * The quarantine's rows as {@code partition@offset key value error}, sorted, duplicates kept
   * (without the sub-pipeline and batch, which name the history).
   */
  private static List<String> quarantined(Path table) throws Exception {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : SeedEvents.rows(table)) {
      out.add(
          row.get("partition")
              + "@"
              + row.get("offset")
              + " "
              + new String((byte[]) row.get("key"), StandardCharsets.UTF_8)
              + " "
              + new String((byte[]) row.get("value"), StandardCharsets.UTF_8)
              + " "
              + row.get("error"));
    }
    out.sort(null);
    return out;
  }

  /** The late-events rows, every column but the watermark they were judged against, sorted. */
  private static List<String> late(Path table) throws Exception {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : SeedEvents.rows(table)) {
      row.remove(LateEvents.WATERMARK);
      out.add(row.toString());
    }
    out.sort(null);
    return out;
  }
}
