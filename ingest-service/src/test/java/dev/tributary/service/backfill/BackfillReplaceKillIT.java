package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code tributary backfill --replace} halted like kill -9 (in a child JVM) in its staging run,
 * after the staging run, after the rewritten files are written and after the swap commit, then run
 * again with the same command: the live table equals the one an uninterrupted replace gives. Each
 * case works on its own copy of one live table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BackfillReplaceKillIT {
  private static final Instant DAY =
      Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));
  private static final String FROM = DAY.plus(Duration.ofMinutes(95)).toString();
  private static final String TO = DAY.plus(Duration.ofMinutes(185)).toString();

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir static Path dir;
  private String topic;
  private List<String> expected;

  @BeforeAll
  void produceRunLiveAndReplaceOnceUninterrupted() throws Exception {
    topic = broker.createTopic("backfill-replace-kill", 2);
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < 300; i++) {
        Instant t = DAY.plusSeconds(60L * i);
        String value = "{\"id\":%d,\"event_ts\":\"%s\",\"amount\":%d}".formatted(i, t, i);
        producer.send(
            new ProducerRecord<>(
                topic, i % 2, t.toEpochMilli(), null, value.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    Path live = dir.resolve("live");
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(PipelineParser.parse(yaml(live, "10"), "p.yaml", Map.of())),
            new TriggerSpec.AvailableNow(),
            new ProgressLog(100))) {
      run.run();
    }
    Path reference = copy(live, dir.resolve("reference"));
    Backfill.replace(
        BackfillPlan.replace(
            PipelineParser.parse(yaml(reference, "100"), "p.yaml", Map.of()),
            BackfillRange.parse(FROM, TO)),
        new ProgressLog(100),
        r -> {});
    expected = rows(reference.resolve("table"));
    assertThat(expected).hasSize(300);
  }

  /** The pipeline over the copy at {@code work} (its table and checkpoints inside it). */
  private String yaml(Path work, String factor) {
    return """
        pipeline: clicks
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 40
        format:
          json:
            schema: { id: long, event_ts: timestamp, amount: long }
        transform:
          - derive: { amount_x: "amount * %s" }
        watermark: { column: event_ts, delay: 10 minutes }
        sink:
          delta: { path: %s/table }
        checkpoint: %s/checkpoints/live
        """
        .formatted(broker.bootstrapServers(), topic, factor, work, work);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        CrashPoints.AFTER_SINK_COMMIT + ":2",
        CrashPoints.BACKFILL_STAGED + ":1",
        CrashPoints.BACKFILL_REWRITTEN + ":1",
        CrashPoints.BACKFILL_SWAPPED + ":1"
      })
  void aRerunAfterAKillGivesTheUninterruptedTable(String crashAt) throws Exception {
    Path work = copy(dir.resolve("live"), dir.resolve(crashAt.replace(':', '-')));
    Path pipelineFile = work.resolve("clicks.yaml");
    Files.writeString(pipelineFile, yaml(work, "100"));
    List<String> command =
        List.of(
            "backfill",
            "--pipeline",
            pipelineFile.toString(),
            "--from",
            FROM,
            "--to",
            TO,
            "--replace");

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
    String log = Files.readString(resumeLog);
    if (crashAt.startsWith(CrashPoints.BACKFILL_SWAPPED)) {
      assertThat(log).contains("already swapped");
    }
    assertThat(rows(work.resolve("table"))).isEqualTo(expected);
  }

  private static Path copy(Path from, Path to) throws Exception {
    try (Stream<Path> files = Files.walk(from.resolve("table"))) {
      for (Path f : files.toList()) {
        Path target = to.resolve("table").resolve(from.resolve("table").relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
    return to;
  }

  private static List<String> rows(Path table) throws Exception {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      return TableContents.rows(store).stream().map(Arrays::deepToString).sorted().toList();
    }
  }
}
