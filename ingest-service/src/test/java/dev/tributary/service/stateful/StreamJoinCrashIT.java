package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.JoinOracle.seedState;
import static dev.tributary.service.stateful.JoinRunFiles.cut;
import static dev.tributary.service.stateful.JoinRunFiles.lastProgress;
import static dev.tributary.service.stateful.JoinRunFiles.read;
import static dev.tributary.service.stateful.JoinRunFiles.rows;
import static dev.tributary.service.stateful.JoinRunFiles.runInProcess;
import static dev.tributary.service.stateful.JoinRunFiles.table;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableCommits;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at every step of a stream-stream join's batches (issue 25, step 7; docs/DESIGN.md
 * "Exactly once: crash points and the kill -9 test"). The seed query — clicks (3 partitions) left
 * outer join purchases (2 partitions) on {@code user_id} with {@code p_event_ts BETWEEN event_ts
 * AND event_ts + INTERVAL 30 MINUTES}, watermarks on both, a few offsets per trigger — declared in
 * YAML and run by the command line ({@code run --pipeline <file> --available-now}) in child JVMs
 * halted at crash points ({@link CrashPoints}: {@code Runtime.halt(137)}, the same as kill -9).
 *
 * <p><b>A chain of halts.</b> Every record is produced first (late, out-of-order, unmatched on both
 * sides, null keys and malformed records on both topics). Then the pipeline runs halted at the
 * first point, and each restart recovers the halt before it (replays the written-ahead batch, or
 * plans it again) and goes on to halt at the next point, in a later batch; the last restart drains
 * the topics. Ten halts, one at every point a joined batch passes: {@code after-plan}, {@code
 * after-offsets-log}, {@code mid-batch} inside the left input, {@code after-first-input}, {@code
 * mid-batch} inside the right input, {@code after-data-files} (the sink's files; the quarantine and
 * late-events tables write theirs first), {@code after-quarantine-commit}, {@code
 * after-sink-commit}, {@code after-state-commit} and {@code after-commits-log}: eleven child JVMs.
 * An uncrashed reference pipeline (its own checkpoint and tables, in process) then runs over the
 * same topics to the end.
 *
 * <p><b>Reachable by construction, and checked.</b> Each halt has a target batch, one to three
 * batches after the previous halt's; the batch cut is known in advance (every batch reads {@value
 * #LEFT_PER_BATCH} clicks and {@value #RIGHT_PER_BATCH} purchases until the clicks run out), so the
 * occurrence to halt at is counted from what the restart will pass first: the replayed batch (whose
 * size the checkpoint gives, and which passes no {@code after-plan} nor {@code after-offsets-log},
 * and writes data files only for the tables that lack it), then the new batches before the target.
 * After each halt the run's log and exit status say it halted at its point ({@link
 * CrashRuns#assertHaltedAt}), and the checkpoint and the tables say it halted in the target batch
 * at that step: the latest offsets and commits entries, and which of the quarantine, late-events
 * and sink tables hold the batch; so the previous halt's batch was committed first (its recovery
 * finished). A {@code mid-batch} halt is checked to lie inside the intended input of the batch.
 * Purchases trail the clicks by at least a batch and the {@code after-commits-log} halt comes after
 * the last batch with clicks: the drain begins with purchases only (checked), so the clicks' own
 * watermark must come from the checkpoint (W-persist).
 *
 * <p><b>Why the reference run must agree exactly.</b> Available-now bounds both inputs at the
 * offsets of its start, nothing is produced once the first run started, and planning is a pure
 * function of the previous batch's range and those bounds: a restart replays the written-ahead
 * batch with both ranges from state N-1, or plans the same batch again. So both pipelines make the
 * same batch cut, and the crashed one's tables, cut, per-input watermarks and state counters must
 * equal the reference's; the sink must also equal {@link JoinOracle} on that cut.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class StreamJoinCrashIT {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z

  /** Max offsets per trigger of the clicks (main, left) input. */
  private static final int LEFT_PER_BATCH = 12;

  /**
   * Max offsets per trigger of the purchases (second, right) input: about as many batches as the
   * clicks take (~30 purchase records for ~39 click records), so the two inputs stay close in event
   * time along the whole chain.
   */
  private static final int RIGHT_PER_BATCH = 9;

  /**
   * Clicks in all (besides the malformed ones): enough batches for ten halts one to three batches
   * apart.
   */
  private static final int CLICKS = 360;

  /** Per batch: the quarantine table's data files, the late-events table's, then the sink's. */
  private static final int DATA_FILES_PER_BATCH = 3;

  /** A halt of one round: the point, and whether a mid-batch halt is in the right input. */
  private record Halt(String point, boolean rightInput) {
    Halt(String point) {
      this(point, false);
    }
  }

  /**
   * Every point a batch of a joined pipeline passes, in batch order, halted at in this order, each
   * in a later batch than the one before; {@code after-commits-log} last (W-persist).
   */
  private static final List<Halt> HALTS =
      List.of(
          new Halt(CrashPoints.AFTER_PLAN),
          new Halt(CrashPoints.AFTER_OFFSETS_LOG),
          new Halt(CrashPoints.MID_BATCH, false),
          new Halt(CrashPoints.AFTER_FIRST_INPUT),
          new Halt(CrashPoints.MID_BATCH, true),
          new Halt(CrashPoints.AFTER_DATA_FILES),
          new Halt(CrashPoints.AFTER_QUARANTINE_COMMIT),
          new Halt(CrashPoints.AFTER_SINK_COMMIT),
          new Halt(CrashPoints.AFTER_STATE_COMMIT),
          new Halt(CrashPoints.AFTER_COMMITS_LOG));

  private static final String CRASHED_ID = "join-crash";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Random random = new Random(20261203L);

  /** Each topic's records by partition in offset order (null: a malformed record). */
  private SentEvents sent;

  @TempDir Path dir;
  private String clicks;
  private String purchases;
  private Path crashed;
  private Path reference;

  /** How many batches have clicks; the batches after have purchases only. */
  private int clickBatches;

  @Test
  void theSeedJoinIsExactAfterAHaltAtEveryPointOfItsBatches() throws Exception {
    clicks = broker.createTopic("clicks", 3);
    purchases = broker.createTopic("purchases", 2);
    sent = new SentEvents(clicks, purchases);
    crashed = pipeline("crashed", CRASHED_ID);
    // its own name: its own state working copies (in the temp directory) and consumer group
    reference = pipeline("reference", "join-crash-reference");
    List<String> jvm =
        List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dtributary.state.dir=" + dir.resolve("state"));
    produce();

    long target = -1;
    for (int h = 0; h < HALTS.size(); h++) {
      Halt halt = HALTS.get(h);
      long previous = target;
      target =
          h == HALTS.size() - 1 ? clickBatches - 1 : previous + 1 + random.nextInt(3); // 1-3 on
      assertThat(target).as("halt %d's batch follows halt %d's", h, h - 1).isGreaterThan(previous);
      Position start = position();
      int occurrence = occurrence(halt, target, start);
      String crashAt = halt.point() + ":" + occurrence;
      List<String> options = new ArrayList<>(jvm);
      options.add("-Dtributary.test.crash-at=" + crashAt);
      Path log = dir.resolve("halt-" + h + ".log");
      CrashRuns.assertHaltedAt(JoinRunFiles.start(options, crashed, log, dir), crashAt, log);
      assertHaltedWhereItSays(halt, occurrence, target, previous, start);
    }
    Path drain = dir.resolve("drain.log");
    CrashRuns.assertFinished(JoinRunFiles.start(jvm, crashed, drain, dir), drain);
    OffsetsEntry resumed = offsetsEntry(target + 1);
    assertThat(records(resumed, false))
        .as("the drain began with a batch of purchases only: %s", resumed.ranges())
        .isZero();
    assertThat(records(resumed, true)).isPositive();
    List<BatchProgress> referenceProgress = runInProcess(reference);
    assertThat(referenceProgress).as("reference batches").isNotEmpty();

    assertThat(cut(crashed))
        .as("the same batch cut, watermarks and per-input watermarks as the uncrashed run")
        .isEqualTo(cut(reference));
    assertThat(rows(crashed, "sink"))
        .as("the sink equals the uncrashed run's, as a multiset")
        .containsExactlyInAnyOrderElementsOf(rows(reference, "sink"));
    Expected expected = expected(crashed);
    assertThat(joinColumns(crashed))
        .as("the sink equals the oracle on the recorded batch cut")
        .containsExactlyInAnyOrderElementsOf(expected.rows());
    assertThat(expected.rows()).as("some clicks matched nothing").anyMatch(r -> r.get(3) == null);
    assertThat(expected.rows()).as("some clicks matched").anyMatch(r -> r.get(3) != null);

    List<String> quarantined = quarantined(crashed);
    assertThat(quarantined).as("each malformed record once").doesNotHaveDuplicates();
    assertThat(quarantined).containsExactlyInAnyOrderElementsOf(sent.malformed());
    assertThat(quarantined)
        .anyMatch(q -> q.startsWith(SentEvents.MAIN_INPUT + " "))
        .anyMatch(q -> q.startsWith(SentEvents.SECOND_INPUT + " "));
    assertThat(rows(crashed, "quarantine"))
        .as("the quarantine equals the uncrashed run's (errors, batch ids), as a multiset")
        .containsExactlyInAnyOrderElementsOf(rows(reference, "quarantine"));

    List<String> late = rows(crashed, "late");
    assertThat(late)
        .as("the late-events table equals the uncrashed run's, as a multiset")
        .containsExactlyInAnyOrderElementsOf(rows(reference, "late"));
    assertThat(lateIds(crashed))
        .as("each late click once, with _late_operator = join")
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(expected.lateIds())
        .isNotEmpty();

    BatchProgress last = referenceProgress.get(referenceProgress.size() - 1);
    JsonNode drained = lastProgress(drain);
    assertThat(drained.get("batchId").asLong()).isEqualTo(last.batchId());
    Map<String, Long> state =
        JSON.convertValue(drained.get("state"), new TypeReference<TreeMap<String, Long>>() {});
    assertThat(state)
        .as("the join state's counters after the last batch equal the uncrashed run's")
        .isEqualTo(new TreeMap<>(last.state()))
        .containsKeys("join.left.rows", "join.right.rows");
  }

  /**
   * Where the crashed pipeline's checkpoint stands: its latest offsets and commits entries' batch
   * ids (-1: none). A restart replays batch {@code offsets} first when it is not committed.
   */
  private record Position(long offsets, long committed) {
    boolean replays() {
      return offsets > committed;
    }
  }

  private Position position() throws Exception {
    if (!Files.exists(crashed.resolveSibling("checkpoint"))) {
      return new Position(-1, -1); // not opened here: the first run creates it
    }
    return read(
        crashed,
        c ->
            new Position(
                c.latestOffsets().map(OffsetsEntry::batchId).orElse(-1L),
                c.latestCommit().map(e -> e.batchId()).orElse(-1L)));
  }

  /**
   * Which occurrence of the halt's point, counted in a run that starts at {@code start}, falls in
   * batch {@code target}: the replayed batch passes every point but {@code after-plan} and {@code
   * after-offsets-log} (its records for {@code mid-batch}; {@code after-data-files} once per table
   * that lacks it), each new batch before the target passes every point ({@code mid-batch} once per
   * record: {@value #LEFT_PER_BATCH} clicks, then {@value #RIGHT_PER_BATCH} purchases; {@code
   * after-data-files} three times, the sink's last). In the target batch: a random click or
   * purchase for {@code mid-batch}, the sink's files for {@code after-data-files}.
   */
  private int occurrence(Halt halt, long target, Position start) throws Exception {
    int planned = (int) (target - start.offsets() - 1); // new batches before the target
    int replayed = start.replays() ? 1 : 0;
    return switch (halt.point()) {
      case CrashPoints.AFTER_PLAN, CrashPoints.AFTER_OFFSETS_LOG -> planned + 1;
      case CrashPoints.MID_BATCH -> {
        long before =
            (start.replays() ? records(offsetsEntry(start.offsets())) : 0)
                + (long) planned * (LEFT_PER_BATCH + RIGHT_PER_BATCH);
        yield (int) before
            + (halt.rightInput()
                ? LEFT_PER_BATCH + 1 + random.nextInt(RIGHT_PER_BATCH)
                : 1 + random.nextInt(LEFT_PER_BATCH));
      }
      case CrashPoints.AFTER_DATA_FILES ->
          (start.replays() ? tablesLacking(start.offsets()) : 0)
              + DATA_FILES_PER_BATCH * (planned + 1);
      default -> replayed + planned + 1;
    };
  }

  /**
   * What the checkpoint and the tables show of a halt: that it fell in batch {@code target} at its
   * step (the latest offsets and commits entries; which of the quarantine, late-events and sink
   * tables hold the batch), after the previous halt's batch was committed (its recovery finished);
   * for {@code mid-batch}, inside the intended input of the batch; for {@code after-commits-log},
   * after the last batch with clicks and before the last with purchases.
   */
  private void assertHaltedWhereItSays(
      Halt halt, int occurrence, long target, long previous, Position start) throws Exception {
    String point = halt.point();
    Position now = position();
    assertThat(now.committed())
        .as("%s: the restart first finished the batch of the halt before, %d", point, previous)
        .isGreaterThanOrEqualTo(previous);
    assertThat(now)
        .as("%s halted in batch %d", point, target)
        .isEqualTo(
            new Position(
                point.equals(CrashPoints.AFTER_PLAN) ? target - 1 : target,
                point.equals(CrashPoints.AFTER_COMMITS_LOG) ? target : target - 1));
    assertThat(
            List.of(
                lastBatch(crashed.resolveSibling("tables/quarantine")),
                lastBatch(crashed.resolveSibling("tables/late")),
                lastBatch(crashed.resolveSibling("tables/sink"))))
        .as("%s: the batches the quarantine, late-events and sink tables hold", point)
        .isEqualTo(tablesAfter(point, target));
    if (point.equals(CrashPoints.MID_BATCH)) {
      long before = 0;
      for (long b = start.replays() ? start.offsets() : start.offsets() + 1; b < target; b++) {
        before += records(offsetsEntry(b));
      }
      OffsetsEntry halted = offsetsEntry(target);
      long index = occurrence - before;
      long left = records(halted, false);
      if (halt.rightInput()) {
        assertThat(index)
            .as("%s inside the purchases of batch %s", occurrence, halted.ranges())
            .isGreaterThan(left)
            .isLessThanOrEqualTo(left + records(halted, true));
      } else {
        assertThat(index)
            .as("%s inside the clicks of batch %s", occurrence, halted.ranges())
            .isPositive()
            .isLessThanOrEqualTo(left);
      }
    } else if (point.equals(CrashPoints.AFTER_COMMITS_LOG)) {
      OffsetsEntry halted = offsetsEntry(target);
      assertThat(ends(halted, false))
          .as("the last batch with clicks: every click read by batch %d", target)
          .isEqualTo(sent.records(clicks));
      assertThat(records(halted, false)).as("batch %d read clicks", target).isPositive();
      assertThat(ends(halted, true)).as("purchases left").isLessThan(sent.records(purchases));
    }
  }

  /**
   * The last batch the quarantine, late-events and sink tables hold after a halt in batch {@code
   * t}: each commits in that order, after its data files; the sink's files are the batch's last.
   */
  private static List<Long> tablesAfter(String point, long t) {
    long before = t - 1;
    return switch (point) {
      case CrashPoints.AFTER_DATA_FILES -> List.of(t, t, before);
      case CrashPoints.AFTER_QUARANTINE_COMMIT -> List.of(t, before, before);
      case CrashPoints.AFTER_SINK_COMMIT,
          CrashPoints.AFTER_STATE_COMMIT,
          CrashPoints.AFTER_COMMITS_LOG ->
          List.of(t, t, t);
      default -> List.of(before, before, before);
    };
  }

  /** How many of the quarantine, late-events and sink tables lack batch {@code b}. */
  private int tablesLacking(long b) throws Exception {
    int lacking = 0;
    for (String table : List.of("quarantine", "late", "sink")) {
      if (lastBatch(crashed.resolveSibling("tables/" + table)) < b) {
        lacking++;
      }
    }
    return lacking;
  }

  private OffsetsEntry offsetsEntry(long b) throws Exception {
    return read(crashed, c -> c.offsets(b).orElseThrow());
  }

  /** Records (malformed ones too) of a batch, of both inputs. */
  private static long records(OffsetsEntry entry) {
    return records(entry, false) + records(entry, true);
  }

  /** Records of a batch's clicks ({@code right} false) or purchases. */
  private static long records(OffsetsEntry entry, boolean right) {
    long n = 0;
    for (Map.Entry<SourcePartition, OffsetRange> e : entry.ranges().entrySet()) {
      if (e.getKey().topic().startsWith(CompositeSource.TOPIC_PREFIX) == right) {
        n += e.getValue().end() - e.getValue().start();
      }
    }
    return n;
  }

  /**
   * The sum of a batch's range ends over the clicks' ({@code right} false) or purchases'
   * partitions.
   */
  private static long ends(OffsetsEntry entry, boolean right) {
    long n = 0;
    for (Map.Entry<SourcePartition, OffsetRange> e : entry.ranges().entrySet()) {
      if (e.getKey().topic().startsWith(CompositeSource.TOPIC_PREFIX) == right) {
        n += e.getValue().end();
      }
    }
    return n;
  }

  /**
   * The highest batch id among the crashed pipeline's batch transaction ids in a table ({@code
   * txn(<pipeline>[@<checkpoint>], <batch>)}, not the per-partition {@code
   * txn(<pipeline>:<topic>:<partition>, <offset>)}); -1 before any.
   */
  private static long lastBatch(Path table) throws Exception {
    long last = -1;
    for (TableCommits.Commit c : TableCommits.of(table)) {
      for (SetTransaction txn : c.txns()) {
        if (txn.appId().equals(CRASHED_ID) || txn.appId().startsWith(CRASHED_ID + "@")) {
          last = Math.max(last, txn.version());
        }
      }
    }
    return last;
  }

  /** Writes a pipeline file under {@code dir/<name>/}, its tables in {@code dir/<name>/tables}. */
  private Path pipeline(String name, String id) throws Exception {
    Path home = Files.createDirectories(dir.resolve(name));
    Path file = home.resolve("pipeline.yaml");
    Files.writeString(
        file,
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
        format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
        join:
          - stream:
              source: { kafka: { topics: [%s], max-offsets-per-trigger: %d } }
              format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
              watermark: { column: event_ts, delay: 10 minutes }
              prefix: p_
            on: [user_id]
            time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
            type: left
        watermark: { column: event_ts, delay: 10 minutes }
        sink: { delta: { path: "%s/tables/sink" } }
        quarantine: { delta: { path: "%s/tables/quarantine" } }
        late-events: { delta: { path: "%s/tables/late" } }
        checkpoint: "%s/checkpoint"
        """
            .formatted(
                id,
                broker.bootstrapServers(),
                clicks,
                LEFT_PER_BATCH,
                purchases,
                RIGHT_PER_BATCH,
                home,
                home,
                home,
                home));
    return file;
  }

  /**
   * Every record of the test, sent before the first run: clicks every ~3 minutes with ±4 minutes of
   * jitter (out of order within and across partitions), every 17th 90 minutes behind (late); a few
   * null keys, a user who never buys; purchases of about two clicks in three, 5 minutes before to
   * 40 after their click (inside and outside the bound), every 19th 90 minutes behind (late,
   * dropped), purchases of a user who never clicks; malformed records on both topics.
   */
  private void produce() {
    Map<Integer, List<String>> clickValues = new HashMap<>();
    Map<Integer, List<String>> purchaseValues = new HashMap<>();
    for (int i = 0; i < CLICKS; i++) {
      long t = START + i * 3L * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 90 * MINUTE;
      }
      String user = i % 23 == 7 ? null : i % 10 == 9 ? "window-shopper" : "u" + random.nextInt(6);
      add(clicks, i % 3, new JoinOracle.Event(user, t, "c" + i), clickValues);
      if (i % 13 == 4) {
        add(clicks, (i + 1) % 3, null, clickValues);
      }
      if (!"window-shopper".equals(user) && random.nextInt(3) > 0) {
        long p = i % 19 == 9 ? t - 90 * MINUTE : t + (random.nextInt(46) - 5) * MINUTE;
        add(purchases, i % 2, new JoinOracle.Event(user, p, "p" + i), purchaseValues);
      }
      if (i % 7 == 2) {
        add(purchases, (i + 1) % 2, new JoinOracle.Event("walk-in", t, "w" + i), purchaseValues);
      }
      if (i % 11 == 3) {
        add(purchases, i % 2, null, purchaseValues);
      }
    }
    // Purchases trail the clicks by at least one batch: a restart after the last batch with
    // clicks begins with a batch of purchases only, where the clicks' own watermark (W-persist)
    // must come from the checkpoint.
    clickBatches = (sent.records(clicks) + LEFT_PER_BATCH - 1) / LEFT_PER_BATCH;
    long last = START + CLICKS * 3L * MINUTE;
    for (int k = 0; sent.records(purchases) <= (clickBatches + 1) * RIGHT_PER_BATCH; k++) {
      add(
          purchases,
          k % 2,
          new JoinOracle.Event("walk-in", last + k * MINUTE, "t" + k),
          purchaseValues);
    }
    clickValues.forEach((p, values) -> broker.send(clicks, p, values));
    purchaseValues.forEach((p, values) -> broker.send(purchases, p, values));
  }

  private void add(
      String topic, int partition, JoinOracle.Event e, Map<Integer, List<String>> values) {
    values.computeIfAbsent(partition, p -> new ArrayList<>()).add(sent.add(topic, partition, e));
  }

  /** The quarantine rows as {@code <input> <topic>/<partition>/<offset>}. */
  private static List<String> quarantined(Path pipeline) throws Exception {
    try (ObjectStore store = table(pipeline, "quarantine")) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int input = schema.indexOf("input");
      assertThat(input).as("the quarantine table's input column").isNotNegative();
      return TableContents.rows(store).stream()
          .map(r -> r[input] + " " + r[0] + "/" + r[1] + "/" + r[2])
          .toList();
    }
  }

  /** The ids of the late-events table's rows, each checked to come from the join. */
  private static List<String> lateIds(Path pipeline) throws Exception {
    try (ObjectStore store = table(pipeline, "late")) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int operator = schema.indexOf(LateEvents.OPERATOR);
      int id = schema.indexOf("id");
      List<String> ids = new ArrayList<>();
      for (Object[] row : TableContents.rows(store)) {
        assertThat(row[operator]).isEqualTo("join");
        ids.add(String.valueOf(row[id]));
      }
      return ids;
    }
  }

  /** The sink's joined columns, as {@link JoinOracle} gives them. */
  private static List<List<Object>> joinColumns(Path pipeline) throws Exception {
    try (ObjectStore store = table(pipeline, "sink")) {
      List<List<Object>> got = JoinOracle.sinkRows(store);
      return got;
    }
  }

  private record Expected(List<List<Object>> rows, List<String> lateIds) {}

  /** The oracle over every batch the checkpoint recorded (its ranges and watermarks). */
  private Expected expected(Path pipeline) throws Exception {
    List<JoinOracle.Batch> batches = new ArrayList<>();
    for (OffsetsEntry entry : read(pipeline, JoinRunFiles::offsets)) {
      batches.add(sent.batch(entry));
    }
    assertThat(batches.stream().mapToInt(b -> b.left().size() + b.right().size()).sum())
        .as("every well-formed record of both topics in one batch")
        .isEqualTo(sent.wellFormed());
    JoinOracle.Expected expected =
        JoinOracle.compute(
            JoinOracle.Kind.LEFT,
            new JoinOracle.SideRules(true, w -> seedState(w, 30 * MINUTE)),
            new JoinOracle.SideRules(true, w -> seedState(w, 0)),
            (l, r) -> l <= r && r <= l + 30 * MINUTE,
            false,
            batches);
    List<List<Object>> rows = new ArrayList<>();
    expected.output().forEach(rows::addAll);
    List<String> late = new ArrayList<>();
    expected.late().forEach(b -> b.forEach(e -> late.add(e.id())));
    return new Expected(rows, late);
  }
}
