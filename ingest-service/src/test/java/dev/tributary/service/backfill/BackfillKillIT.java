package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableCommits;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.log.SetTransaction;
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
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary backfill --into} killed (halted like kill -9, in a child JVM) at every crash
 * point of a batch and run again with the same command: the table equals the one an uninterrupted
 * backfill (in process, its own checkpoint and table) wrote, every window once, none lost, and the
 * interrupted runs made the same batch cut as the uninterrupted one.
 *
 * <p><b>A chain of halts.</b> The first run halts at the first point; each rerun recovers the halt
 * before it (replays the written-ahead batch, or plans it again) and goes on to halt at the next
 * point, in the next batch: {@code after-plan}, {@code after-offsets-log}, {@code mid-batch},
 * {@code after-data-files} (the sink's, after the quarantine table's), {@code
 * after-quarantine-commit}, {@code after-sink-commit}, {@code after-state-commit}, {@code
 * after-commits-log}; then {@code after-offsets-log} in the last batch (the one without input that
 * applies the range's end as watermark), and {@code after-sink-commit} in that batch's replay. The
 * eleventh run finishes. The batch cut is known in advance (the uninterrupted run's: the range's
 * offsets are fixed at start, every record produced before), so the occurrence to halt at is
 * counted from what a rerun passes first: the replayed batch (no {@code after-plan} nor {@code
 * after-offsets-log}; data files only for the tables that lack it), then the new batches before the
 * target. After each halt the checkpoint and the two tables say it fell in the target batch at that
 * step, after the batch of the halt before was committed (its recovery finished).
 */
class BackfillKillIT {
  private static final Instant DAY =
      Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));
  private static final String FROM = DAY.plus(Duration.ofMinutes(90)).toString();
  private static final String TO = DAY.plus(Duration.ofHours(4)).toString();

  /** Small batches: the chain's halts each need a batch of their own before the last. */
  private static final int PER_BATCH = 30;

  /** Every batch writes the quarantine table's data files, then the sink's. */
  private static final int DATA_FILES_PER_BATCH = 2;

  /** Halts in order; the first eight each in the batch after the one before. */
  private static final List<String> HALTS =
      List.of(
          CrashPoints.AFTER_PLAN,
          CrashPoints.AFTER_OFFSETS_LOG,
          CrashPoints.MID_BATCH,
          CrashPoints.AFTER_DATA_FILES,
          CrashPoints.AFTER_QUARANTINE_COMMIT,
          CrashPoints.AFTER_SINK_COMMIT,
          CrashPoints.AFTER_STATE_COMMIT,
          CrashPoints.AFTER_COMMITS_LOG);

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Random random = new Random(20261203L);
  @TempDir Path dir;
  private BackfillPlan crashed;

  @Test
  void aRerunAfterEachKillOfAChainWritesTheUninterruptedTable() throws Exception {
    PipelineSpec live = produceAndDeclare();
    BackfillRange range = BackfillRange.parse(FROM, TO);
    BackfillSummary summary =
        Backfill.into(
            BackfillPlan.into(live, range, dir.resolve("reference").toString()),
            new ProgressLog(100),
            r -> {});
    List<String> expected = rows(dir.resolve("reference").toString());
    // [1.5 h, 2 h) ... [3.5 h, 4 h): five windows of three kinds, 20 events each
    assertThat(expected).hasSize(15).allSatisfy(row -> assertThat(row).contains(", 20, "));
    int batches = summary.batches();
    long last = batches - 1;
    assertThat(last)
        .as("a batch of its own for each of the first halts")
        .isGreaterThan(HALTS.size());
    String into = dir.resolve("table").toString();
    crashed = BackfillPlan.into(live, range, into);
    PipelineSpec referenceSpec =
        BackfillPlan.into(live, range, dir.resolve("reference").toString()).spec();
    List<OffsetsEntry> referenceCut = cut(referenceSpec);
    assertThat(referenceCut).hasSize(batches);
    List<String> command =
        List.of(
            "backfill",
            "--pipeline",
            dir.resolve("clicks.yaml").toString(),
            "--from",
            FROM,
            "--to",
            TO,
            "--into",
            into);

    List<String> points = new ArrayList<>(HALTS);
    points.add(CrashPoints.AFTER_OFFSETS_LOG);
    points.add(CrashPoints.AFTER_SINK_COMMIT);
    long target = 0;
    for (int h = 0; h < points.size(); h++) {
      String point = points.get(h);
      long previous = target;
      target = h < HALTS.size() ? h + 1 : last;
      Position start = position();
      int occurrence = occurrence(point, target, start, referenceCut);
      String crashAt = point + ":" + occurrence;
      Path log = dir.resolve("halt-" + h + ".log");
      Process child =
          ChildJvm.start(
              List.of("-Xmx256m", "-Dtributary.test.crash-at=" + crashAt),
              "dev.tributary.service.cli.Main",
              command,
              log,
              dir);
      CrashRuns.assertHaltedAt(child, crashAt, log);
      assertHaltedWhereItSays(point, target, previous, start, occurrence, referenceCut);
    }

    Path resumeLog = dir.resolve("resume.log");
    Process resumed =
        ChildJvm.start(
            List.of("-Xmx256m"), "dev.tributary.service.cli.Main", command, resumeLog, dir);
    CrashRuns.assertFinished(resumed, resumeLog);
    // the interrupted runs' checkpoint was continued (its batches not run from scratch again)
    assertThat(Files.readString(resumeLog)).doesNotContain("\"batchId\":0,\"replayed\":false");
    assertThat(plans(cut(crashed.spec())))
        .as("the same batch cut and watermarks as the uninterrupted backfill")
        .isEqualTo(plans(referenceCut));
    assertThat(rows(into)).isEqualTo(expected);
  }

  /** Sends 600 events 30 s apart on two partitions and writes the live pipeline's declaration. */
  private PipelineSpec produceAndDeclare() throws Exception {
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
            max-offsets-per-trigger: %d
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
            .formatted(broker.bootstrapServers(), topic, PER_BATCH, dir, dir);
    Files.writeString(dir.resolve("clicks.yaml"), yaml);
    return PipelineParser.parse(yaml, "clicks.yaml", Map.of());
  }

  /**
   * Where the interrupted backfill's checkpoint stands: its latest offsets and commits entries'
   * batch ids (-1: none). A rerun replays batch {@code offsets} first when it is not committed.
   */
  private record Position(long offsets, long committed) {
    boolean replays() {
      return offsets > committed;
    }
  }

  private Position position() throws Exception {
    PipelineSpec spec = crashed.spec();
    if (!Files.exists(Path.of(spec.checkpoint()))) {
      return new Position(-1, -1); // not opened here: the first run creates it
    }
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      Checkpoint c = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      return new Position(
          c.latestOffsets().map(OffsetsEntry::batchId).orElse(-1L),
          c.latestCommit().map(e -> e.batchId()).orElse(-1L));
    }
  }

  /**
   * Which occurrence of {@code point}, counted in a run that starts at {@code start}, falls in
   * batch {@code target}: the replayed batch passes every point but {@code after-plan} and {@code
   * after-offsets-log} (all its records for {@code mid-batch}; {@code after-data-files} once per
   * table that lacks it), each new batch before the target passes every point ({@code mid-batch}
   * once per record, {@code after-data-files} twice). In the target batch: a random record for
   * {@code mid-batch}, the sink's files for {@code after-data-files}. A target that is the replayed
   * batch itself counts the replay's passes only.
   */
  private int occurrence(String point, long target, Position start, List<OffsetsEntry> cut)
      throws Exception {
    int planned = (int) (target - start.offsets() - 1); // new batches before the target
    int replayed = start.replays() ? 1 : 0;
    return switch (point) {
      case CrashPoints.AFTER_PLAN, CrashPoints.AFTER_OFFSETS_LOG -> planned + 1;
      case CrashPoints.MID_BATCH -> {
        long before = start.replays() ? records(cut.get((int) start.offsets())) : 0;
        for (long b = start.offsets() + 1; b < target; b++) {
          before += records(cut.get((int) b));
        }
        yield (int) (before + 1 + random.nextInt((int) records(cut.get((int) target))));
      }
      case CrashPoints.AFTER_DATA_FILES ->
          (start.replays() ? tablesLacking(start.offsets()) : 0)
              + DATA_FILES_PER_BATCH * (planned + 1);
      default -> replayed + planned + 1;
    };
  }

  /**
   * What the checkpoint and the tables show of a halt: that it fell in batch {@code target} at its
   * step (the latest offsets and commits entries; which of the quarantine and sink tables hold the
   * batch), after the batch of the halt before was committed; for {@code mid-batch}, inside the
   * records of the batch.
   */
  private void assertHaltedWhereItSays(
      String point,
      long target,
      long previous,
      Position start,
      int occurrence,
      List<OffsetsEntry> cut)
      throws Exception {
    Position now = position();
    if (target > previous) {
      assertThat(now.committed())
          .as("%s: the rerun first finished the batch of the halt before, %d", point, previous)
          .isGreaterThanOrEqualTo(previous);
    }
    assertThat(now)
        .as("%s halted in batch %d", point, target)
        .isEqualTo(
            new Position(
                point.equals(CrashPoints.AFTER_PLAN) ? target - 1 : target,
                point.equals(CrashPoints.AFTER_COMMITS_LOG) ? target : target - 1));
    long before = target - 1;
    List<Long> tables =
        switch (point) {
          case CrashPoints.AFTER_DATA_FILES, CrashPoints.AFTER_QUARANTINE_COMMIT ->
              List.of(target, before);
          case CrashPoints.AFTER_SINK_COMMIT,
              CrashPoints.AFTER_STATE_COMMIT,
              CrashPoints.AFTER_COMMITS_LOG ->
              List.of(target, target);
          default -> List.of(before, before);
        };
    assertThat(List.of(lastBatch(crashed.target() + "-quarantine"), lastBatch(crashed.target())))
        .as("%s: the batches the quarantine and sink tables hold", point)
        .isEqualTo(tables);
    if (point.equals(CrashPoints.MID_BATCH)) {
      long read = start.replays() ? records(cut.get((int) start.offsets())) : 0;
      for (long b = start.offsets() + 1; b < target; b++) {
        read += records(cut.get((int) b));
      }
      assertThat(occurrence - read)
          .as("record %d inside batch %d", occurrence, target)
          .isPositive()
          .isLessThanOrEqualTo(records(cut.get((int) target)));
    }
  }

  /** How many of the quarantine and sink tables lack batch {@code b}. */
  private int tablesLacking(long b) throws Exception {
    int lacking = 0;
    for (String table : List.of(crashed.target() + "-quarantine", crashed.target())) {
      if (lastBatch(table) < b) {
        lacking++;
      }
    }
    return lacking;
  }

  /** The highest batch id among the interrupted backfill's txns in a table; -1 before any. */
  private long lastBatch(String table) throws Exception {
    long last = -1;
    for (TableCommits.Commit c : TableCommits.of(Path.of(table))) {
      for (SetTransaction txn : c.txns()) {
        if (txn.appId().equals(crashed.id()) || txn.appId().startsWith(crashed.id() + "@")) {
          last = Math.max(last, txn.version());
        }
      }
    }
    return last;
  }

  /** Every offsets entry of a backfill's checkpoint, by batch id. */
  private static List<OffsetsEntry> cut(PipelineSpec spec) throws Exception {
    List<OffsetsEntry> out = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      Checkpoint c = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      for (long b = 0; ; b++) {
        var entry = c.offsets(b);
        if (entry.isEmpty()) {
          return out;
        }
        out.add(entry.get());
      }
    }
  }

  /** What a batch was planned to do: its ranges and watermarks (not when it was planned). */
  private static List<String> plans(List<OffsetsEntry> cut) {
    return cut.stream()
        .map(
            e ->
                e.batchId()
                    + " "
                    + e.ranges()
                    + " "
                    + e.watermarkMicros()
                    + " "
                    + e.lateWatermarkMicros())
        .toList();
  }

  private static long records(OffsetsEntry entry) {
    return entry.ranges().values().stream().mapToLong(r -> r.end() - r.start()).sum();
  }

  private static List<String> rows(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(table, null)) {
      return TableContents.rows(store).stream().map(Arrays::deepToString).sorted().toList();
    }
  }
}
