package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.cli.Main;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableCommits;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
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
 * YAML and run by the command line ({@code run --pipeline <file> --available-now}) in a child JVM
 * halted at a crash point ({@link CrashPoints}: {@code Runtime.halt(137)}, the same as kill -9),
 * then restarted in a new child JVM that drains what is left.
 *
 * <p><b>Rounds.</b> Each round produces fresh records on both topics (late, out-of-order, unmatched
 * on both sides, null keys and malformed records on both), runs the pipeline halted at the round's
 * point, restarts it to the end, and runs an uncrashed reference pipeline (its own checkpoint and
 * tables, in process) over the same topics to the end. Every point a joined batch passes is halted
 * at once: {@code after-plan}, {@code after-offsets-log}, {@code mid-batch} inside the left input,
 * {@code after-first-input}, {@code mid-batch} inside the right input, {@code after-data-files}
 * (the sink's files; the quarantine and late-events tables write theirs first), {@code
 * after-quarantine-commit}, {@code after-sink-commit}, {@code after-state-commit} and {@code
 * after-commits-log}.
 *
 * <p><b>Reachable by construction, and checked.</b> A halted run starts from a drained checkpoint,
 * so its batches read only the round's fresh records: more than {@code 3 × max-offsets-per-trigger}
 * clicks give it at least three new batches, each passing every per-batch point once (the
 * quarantine and late-events tables commit every batch, rows or not); {@code mid-batch} is reached
 * before each record, the first batch's clicks first ({@value #LEFT_PER_BATCH}), then its
 * purchases. After each halt the run's log and exit status say it halted at its point ({@link
 * CrashRuns#assertHaltedAt}), the checkpoint says which input a {@code mid-batch} halt was in, and
 * the tables say that an {@code after-data-files} halt had committed the quarantine and late-events
 * tables and not the sink. Purchases trail the clicks by at least a batch in every round, and the
 * {@code after-commits-log} halt comes after the round's last batch with clicks: its restart begins
 * with purchases only, so the clicks' own watermark must come from the checkpoint (W-persist).
 *
 * <p><b>Why the reference run must agree exactly.</b> Available-now bounds both inputs at the
 * offsets of its start, nothing is produced between the halted run and its restart, and planning is
 * a pure function of the previous batch's range and those bounds: the restart replays the
 * written-ahead batch with both ranges from state N-1, or plans the same batch again. So both
 * pipelines make the same batch cut, and the crashed one's tables, cut, per-input watermarks and
 * state counters must equal the reference's; the sink must also equal {@link JoinOracle} on that
 * cut.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class StreamJoinCrashIT {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z

  /** Max offsets per trigger of the clicks (main, left) input. */
  private static final int LEFT_PER_BATCH = 12;

  /** Max offsets per trigger of the purchases (second, right) input. */
  private static final int RIGHT_PER_BATCH = 8;

  /** Clicks per round: with the malformed ones, more than three batches' worth. */
  private static final int CLICKS_PER_ROUND = 36;

  /** The quarantine table's {@code input} of a main (clicks) record and of a second-input one. */
  private static final String QUARANTINE_MAIN = "main";

  private static final String QUARANTINE_JOIN = "join[0]";

  /** Per batch: the quarantine table's data files, the late-events table's, then the sink's. */
  private static final int DATA_FILES_PER_BATCH = 3;

  /** A halt of one round: the point, and whether a mid-batch halt is in the right input. */
  private record Halt(String point, boolean rightInput) {
    Halt(String point) {
      this(point, false);
    }
  }

  /** Every point a batch of a joined pipeline passes, in batch order; round r halts at r. */
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
  private final Map<String, Map<Integer, List<JoinOracle.Event>>> sent = new HashMap<>();

  @TempDir Path dir;
  private String clicks;
  private String purchases;
  private Path crashed;
  private Path reference;
  private int nextClick;

  /** How many of the latest round's batches have clicks; the batches after have purchases only. */
  private int clickBatches;

  @Test
  void theSeedJoinIsExactAfterAHaltAtEveryPointOfItsBatches() throws Exception {
    clicks = broker.createTopic("clicks", 3);
    purchases = broker.createTopic("purchases", 2);
    crashed = pipeline("crashed", CRASHED_ID);
    // its own name: its own state working copies (in the temp directory) and consumer group
    reference = pipeline("reference", "join-crash-reference");
    List<String> jvm =
        List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dtributary.state.dir=" + dir.resolve("state"));

    List<BatchProgress> referenceProgress = List.of();
    for (int round = 0; round < HALTS.size(); round++) {
      Halt halt = HALTS.get(round);
      produceRound();
      String crashAt = halt.point() + ":" + occurrence(halt);
      List<String> options = new ArrayList<>(jvm);
      options.add("-Dtributary.test.crash-at=" + crashAt);
      Path log = dir.resolve("halt-" + round + ".log");
      CrashRuns.assertHaltedAt(start(options, crashed, log), crashAt, log);
      assertHaltedWhereItSays(halt, crashAt);
      Path drain = dir.resolve("drain-" + round + ".log");
      CrashRuns.assertFinished(start(jvm, crashed, drain), drain);
      referenceProgress = runInProcess(reference);
      assertThat(referenceProgress).as("reference batches of round %d", round).isNotEmpty();
    }

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
    assertThat(quarantined).containsExactlyInAnyOrderElementsOf(malformed());
    assertThat(quarantined)
        .anyMatch(q -> q.startsWith(QUARANTINE_MAIN + " "))
        .anyMatch(q -> q.startsWith(QUARANTINE_JOIN + " "));
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
    JsonNode drained = lastProgress(dir.resolve("drain-" + (HALTS.size() - 1) + ".log"));
    assertThat(drained.get("batchId").asLong()).isEqualTo(last.batchId());
    Map<String, Long> state =
        JSON.convertValue(drained.get("state"), new TypeReference<TreeMap<String, Long>>() {});
    assertThat(state)
        .as("the join state's counters after the last batch equal the uncrashed run's")
        .isEqualTo(new TreeMap<>(last.state()))
        .containsKeys("join.left.rows", "join.right.rows");
  }

  /**
   * Which occurrence of the round's point to halt at: in one of the first three batches for a
   * per-batch point; for {@code mid-batch}, a record of the first batch's clicks or of its
   * purchases.
   */
  private int occurrence(Halt halt) {
    return switch (halt.point()) {
      case CrashPoints.MID_BATCH ->
          halt.rightInput()
              ? LEFT_PER_BATCH + 1 + random.nextInt(RIGHT_PER_BATCH)
              : 1 + random.nextInt(LEFT_PER_BATCH);
      case CrashPoints.AFTER_DATA_FILES -> DATA_FILES_PER_BATCH * (1 + random.nextInt(3));
      case CrashPoints.AFTER_COMMITS_LOG -> clickBatches; // the restart reads purchases only
      default -> 1 + random.nextInt(3);
    };
  }

  /**
   * What the checkpoint and the tables show of the halt, where the point's name alone cannot tell:
   * the input a {@code mid-batch} halt was in (the halted batch's clicks come first), and that the
   * {@code after-data-files} occurrence was the sink's (the quarantine and late-events tables hold
   * the halted batch, the sink does not).
   */
  private void assertHaltedWhereItSays(Halt halt, String crashAt) throws Exception {
    if (halt.point().equals(CrashPoints.MID_BATCH)) {
      int occurrence = Integer.parseInt(crashAt.substring(crashAt.lastIndexOf(':') + 1));
      OffsetsEntry halted = read(crashed, c -> c.latestOffsets().orElseThrow());
      assertThat(halted.batchId())
          .as("halted in the first batch of the run")
          .isEqualTo(read(crashed, c -> c.latestCommit().map(e -> e.batchId() + 1).orElse(0L)));
      long left = 0;
      long right = 0;
      for (Map.Entry<SourcePartition, OffsetRange> e : halted.ranges().entrySet()) {
        long n = e.getValue().end() - e.getValue().start();
        if (e.getKey().topic().startsWith(CompositeSource.TOPIC_PREFIX)) {
          right += n;
        } else {
          left += n;
        }
      }
      if (halt.rightInput()) {
        assertThat(occurrence)
            .as("%s inside the purchases of batch %s", crashAt, halted.ranges())
            .isGreaterThan((int) left)
            .isLessThanOrEqualTo((int) (left + right));
      } else {
        assertThat(occurrence)
            .as("%s inside the clicks of batch %s", crashAt, halted.ranges())
            .isLessThanOrEqualTo((int) left);
      }
    } else if (halt.point().equals(CrashPoints.AFTER_DATA_FILES)) {
      long batch = read(crashed, c -> c.latestOffsets().orElseThrow().batchId());
      assertThat(lastBatch(crashed.resolveSibling("tables/quarantine"))).isEqualTo(batch);
      assertThat(lastBatch(crashed.resolveSibling("tables/late"))).isEqualTo(batch);
      assertThat(lastBatch(crashed.resolveSibling("tables/sink")))
          .as("the sink's files were written, not committed")
          .isEqualTo(batch - 1);
    }
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

  private Process start(List<String> jvm, Path pipeline, Path log) throws Exception {
    return ChildJvm.start(
        jvm,
        Main.class.getName(),
        List.of("run", "--pipeline", pipeline.toString(), "--available-now"),
        log,
        dir);
  }

  private static List<BatchProgress> runInProcess(Path pipeline) throws Exception {
    PipelineSpec spec = PipelineParser.parse(pipeline, Map.of());
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress.last(1000);
  }

  /**
   * One round of records, about 40 minutes of event time after the previous round's: clicks every
   * ~3 minutes with ±4 minutes of jitter (out of order within and across partitions), every 17th 90
   * minutes behind (late); a few null keys, a user who never buys; purchases of about two clicks in
   * three, 5 minutes before to 40 after their click (inside and outside the bound), every 19th 90
   * minutes behind (late, dropped), purchases of a user who never clicks; malformed records on both
   * topics.
   */
  private void produceRound() {
    Map<Integer, List<String>> clickValues = new HashMap<>();
    Map<Integer, List<String>> purchaseValues = new HashMap<>();
    for (int n = 0; n < CLICKS_PER_ROUND; n++, nextClick++) {
      int i = nextClick;
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
    int clickRecords = clickValues.values().stream().mapToInt(List::size).sum();
    clickBatches = (clickRecords + LEFT_PER_BATCH - 1) / LEFT_PER_BATCH;
    long last = START + nextClick * 3L * MINUTE;
    for (int k = 0;
        purchaseValues.values().stream().mapToInt(List::size).sum()
            <= (clickBatches + 1) * RIGHT_PER_BATCH;
        k++) {
      add(
          purchases,
          k % 2,
          new JoinOracle.Event("walk-in", last + k * MINUTE, "t" + nextClick + "-" + k),
          purchaseValues);
    }
    clickValues.forEach((p, values) -> broker.send(clicks, p, values));
    purchaseValues.forEach((p, values) -> broker.send(purchases, p, values));
  }

  private void add(
      String topic, int partition, JoinOracle.Event e, Map<Integer, List<String>> values) {
    List<JoinOracle.Event> events =
        sent.computeIfAbsent(topic, t -> new HashMap<>())
            .computeIfAbsent(partition, p -> new ArrayList<>());
    events.add(e);
    values.computeIfAbsent(partition, p -> new ArrayList<>()).add(json(e, events.size()));
  }

  /** A record's value; a malformed one is either not JSON or cut short, by its position. */
  private static String json(JoinOracle.Event e, int position) {
    if (e == null) {
      return position % 2 == 0 ? "not json " + position : "{\"user_id\": \"u1\", \"event_ts\": ";
    }
    return "{\"user_id\":"
        + (e.user() == null ? "null" : "\"" + e.user() + "\"")
        + ",\"event_ts\":\""
        + Times.instant(e.micros())
        + "\",\"id\":\""
        + e.id()
        + "\"}";
  }

  /** Every malformed record as {@code <input> <topic>/<partition>/<offset>}. */
  private List<String> malformed() {
    List<String> bad = new ArrayList<>();
    sent.forEach(
        (topic, partitions) ->
            partitions.forEach(
                (p, events) -> {
                  for (int o = 0; o < events.size(); o++) {
                    if (events.get(o) == null) {
                      bad.add(
                          (topic.equals(purchases) ? QUARANTINE_JOIN : QUARANTINE_MAIN)
                              + " "
                              + topic
                              + "/"
                              + p
                              + "/"
                              + o);
                    }
                  }
                }));
    return bad;
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

  /**
   * A table's rows, each as text: every column (the Kafka provenance, the late watermark, the
   * quarantine's error and batch id…) but the quarantine's pipeline name and time of quarantining,
   * which differ between the two pipelines by nature.
   */
  private static List<String> rows(Path pipeline, String table) throws Exception {
    try (ObjectStore store = table(pipeline, table)) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int at = schema.indexOf("quarantined_at");
      int name = schema.indexOf("pipeline");
      List<String> out = new ArrayList<>();
      for (Object[] row : TableContents.rows(store)) {
        for (int c : new int[] {at, name}) {
          if (c >= 0) {
            row[c] = null;
          }
        }
        out.add(Arrays.deepToString(row));
      }
      return out;
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
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int[] columns =
          Arrays.stream(
                  new String[] {"user_id", "event_ts", "id", "p_user_id", "p_event_ts", "p_id"})
              .mapToInt(schema::indexOf)
              .toArray();
      assertThat(columns).doesNotContain(-1);
      List<List<Object>> got = new ArrayList<>();
      for (Object[] row : TableContents.rows(store)) {
        List<Object> values = new ArrayList<>();
        for (int c : columns) {
          values.add(row[c] instanceof Instant || row[c] == null ? row[c] : row[c].toString());
        }
        got.add(values);
      }
      return got;
    }
  }

  private static ObjectStore table(Path pipeline, String table) throws Exception {
    return ObjectStores.open(pipeline.resolveSibling("tables").resolve(table).toString(), null);
  }

  /** Something read from a pipeline's checkpoint. */
  @FunctionalInterface
  private interface CheckpointRead<T> {
    T from(Checkpoint checkpoint) throws Exception;
  }

  private static <T> T read(Path pipeline, CheckpointRead<T> read) throws Exception {
    PipelineSpec spec = PipelineParser.parse(pipeline, Map.of());
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      return read.from(Checkpoint.open(store, spec.id(), spec.checkpointIdentity()));
    }
  }

  /** Every offsets entry, from batch 0 on; checked to be whole (none purged). */
  private static List<OffsetsEntry> offsets(Checkpoint checkpoint) throws Exception {
    List<OffsetsEntry> entries = new ArrayList<>();
    for (long b = 0; checkpoint.offsets(b).isPresent(); b++) {
      entries.add(checkpoint.offsets(b).get());
    }
    assertThat(entries.size() - 1L)
        .as("no entry purged: the cut is whole")
        .isEqualTo(checkpoint.latestOffsets().orElseThrow().batchId());
    return entries;
  }

  /** Per batch: its ranges, its two watermarks and the per-input watermarks it committed. */
  private static List<String> cut(Path pipeline) throws Exception {
    return read(
        pipeline,
        checkpoint -> {
          List<String> out = new ArrayList<>();
          for (OffsetsEntry e : offsets(checkpoint)) {
            out.add(e.ranges() + " " + e.watermarkMicros() + " " + e.lateWatermarkMicros());
            out.add(
                String.valueOf(
                    checkpoint
                        .commit(e.batchId())
                        .map(c -> c.extras().get(StreamJoinProcessor.WATERMARK_INPUTS))));
          }
          return out;
        });
  }

  /** The last progress line a child run printed. */
  private static JsonNode lastProgress(Path log) throws Exception {
    JsonNode last = null;
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("{") && line.contains("\"batchId\"")) {
        last = JSON.readTree(line);
      }
    }
    assertThat(last).as("a progress line in %s", log).isNotNull();
    return last;
  }

  private record Expected(List<List<Object>> rows, List<String> lateIds) {}

  /** The oracle over every batch the checkpoint recorded (its ranges and watermarks). */
  private Expected expected(Path pipeline) throws Exception {
    List<JoinOracle.Batch> batches = new ArrayList<>();
    for (OffsetsEntry entry : read(pipeline, StreamJoinCrashIT::offsets)) {
      List<JoinOracle.Event> left = new ArrayList<>();
      List<JoinOracle.Event> right = new ArrayList<>();
      entry
          .ranges()
          .forEach(
              (p, r) -> {
                boolean second = p.topic().startsWith(CompositeSource.TOPIC_PREFIX);
                String topic =
                    second ? p.topic().substring(CompositeSource.TOPIC_PREFIX.length()) : p.topic();
                List<JoinOracle.Event> events =
                    sent.getOrDefault(topic, Map.of()).getOrDefault(p.partition(), List.of());
                for (long o = r.start(); o < r.end(); o++) {
                  JoinOracle.Event e = events.get((int) o);
                  if (e != null) {
                    (second ? right : left).add(e);
                  }
                }
              });
      batches.add(
          new JoinOracle.Batch(
              left,
              right,
              entry.watermarkMicros().orElse(0),
              entry.lateWatermarkMicros().orElse(0)));
    }
    assertThat(batches.stream().mapToInt(b -> b.left().size() + b.right().size()).sum())
        .as("every well-formed record of both topics in one batch")
        .isEqualTo(
            sent.values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(l -> l.stream().filter(e -> e != null).count())
                .sum());
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

  /** The seed's state watermark: {@code W − bound − 1 ms}, Spark's arithmetic (S3r). */
  private static OptionalLong seedState(long evict, long bound) {
    long ms = (long) ((evict / 1000 * 1000.0 - bound) / 1000.0) - 1;
    return OptionalLong.of(ms * 1000);
  }
}
