package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code tributary backfill --into} killed (halted like kill -9, in a child JVM) at every crash
 * point of a batch, then run again with the same command: the table equals the one an uninterrupted
 * backfill wrote (every window once, none lost), including a kill in the last batch (the one that
 * applies the closing watermark).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BackfillKillIT {
  private static final Instant DAY =
      Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));
  private static final String FROM = DAY.plus(Duration.ofMinutes(90)).toString();
  private static final String TO = DAY.plus(Duration.ofHours(4)).toString();

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir static Path dir;
  private Path pipelineFile;
  private List<String> expected;
  private int batches;

  @BeforeAll
  void produceAndBackfillOnceUninterrupted() throws Exception {
    String topic = broker.createTopic("backfill-kill", 2);
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < 600; i++) {
        Instant t = DAY.plusSeconds(30L * i);
        String value =
            "{\"id\":%d,\"kind\":\"k%d\",\"event_ts\":\"%s\",\"amount\":%d}"
                .formatted(i, i % 3, t, i);
        producer.send(
            new ProducerRecord<>(
                topic, i % 2, t.toEpochMilli(), null, value.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    String yaml =
        """
        pipeline: clicks
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 60
        format:
          json:
            schema: { id: long, kind: string, event_ts: timestamp, amount: long }
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 30 minutes }
          group-by: [kind]
          measures: { events: count(), amount: sum(amount) }
        output-mode: append
        sink:
          delta: { path: %s/live }
        checkpoint: %s/checkpoints/live
        """
            .formatted(broker.bootstrapServers(), topic, dir, dir);
    pipelineFile = dir.resolve("clicks.yaml");
    Files.writeString(pipelineFile, yaml);
    PipelineSpec live = PipelineParser.parse(yaml, "clicks.yaml", Map.of());
    String reference = dir.resolve("reference").toString();
    BackfillSummary summary =
        Backfill.into(
            BackfillPlan.into(live, BackfillRange.parse(FROM, TO), reference),
            new ProgressLog(100),
            r -> {});
    expected = rows(reference);
    batches = summary.batches();
    // [1.5 h, 2 h) ... [3.5 h, 4 h): five windows of three kinds, 20 events each
    assertThat(expected).hasSize(15).allSatisfy(row -> assertThat(row).contains(", 20, "));
    assertThat(batches).isGreaterThanOrEqualTo(4);
  }

  Stream<Arguments> points() {
    List<Arguments> out = new ArrayList<>();
    for (String point :
        List.of(
            CrashPoints.AFTER_PLAN,
            CrashPoints.AFTER_OFFSETS_LOG,
            CrashPoints.AFTER_DATA_FILES,
            CrashPoints.AFTER_QUARANTINE_COMMIT,
            CrashPoints.AFTER_SINK_COMMIT,
            CrashPoints.AFTER_STATE_COMMIT,
            CrashPoints.AFTER_COMMITS_LOG)) {
      out.add(Arguments.of(point, 2));
    }
    out.add(Arguments.of(CrashPoints.MID_BATCH, 150));
    // the last batch: the one without input that applies the range's end as watermark
    out.add(Arguments.of(CrashPoints.AFTER_OFFSETS_LOG, -1));
    out.add(Arguments.of(CrashPoints.AFTER_SINK_COMMIT, -1));
    return out.stream();
  }

  @ParameterizedTest(name = "{0}:{1}")
  @MethodSource("points")
  void aRerunAfterAKillWritesTheUninterruptedTable(String point, int occurrence) throws Exception {
    int n = occurrence > 0 ? occurrence : batches;
    String crashAt = point + ":" + n;
    Path work = Files.createDirectories(dir.resolve(point + "-" + n));
    String into = work.resolve("table").toString();
    List<String> command =
        List.of(
            "backfill",
            "--pipeline",
            pipelineFile.toString(),
            "--from",
            FROM,
            "--to",
            TO,
            "--into",
            into);

    Path crashLog = work.resolve("crash.log");
    Process crashed =
        ChildJvm.start(
            List.of("-Xmx256m", "-Dtributary.test.crash-at=" + crashAt),
            "dev.tributary.service.cli.Main",
            command,
            crashLog,
            work);
    CrashRuns.assertHaltedAt(crashed, crashAt, crashLog);

    Path resumeLog = work.resolve("resume.log");
    Process resumed =
        ChildJvm.start(
            List.of("-Xmx256m"), "dev.tributary.service.cli.Main", command, resumeLog, work);
    CrashRuns.assertFinished(resumed, resumeLog);
    // the interrupted run's checkpoint was continued (its batches not run from scratch again)
    assertThat(Files.readString(resumeLog)).doesNotContain("\"batchId\":0,\"replayed\":false");
    assertThat(rows(into)).isEqualTo(expected);
  }

  private static List<String> rows(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(table, null)) {
      return TableContents.rows(store).stream().map(Arrays::deepToString).sorted().toList();
    }
  }
}
