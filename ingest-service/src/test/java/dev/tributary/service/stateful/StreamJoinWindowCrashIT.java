package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.JoinRunFiles.cut;
import static dev.tributary.service.stateful.JoinRunFiles.read;
import static dev.tributary.service.stateful.JoinRunFiles.rows;
import static dev.tributary.service.stateful.JoinRunFiles.runInProcess;
import static dev.tributary.service.stateful.JoinRunFiles.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.StreamJoinInputs;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at every step of the batches of a join followed by a window aggregation, with a Delta
 * table as the join's second input (issue 25, steps 7 and 8; docs/DESIGN.md "Exactly once: crash
 * points and the kill -9 test"). Clicks from a Kafka topic (3 partitions, malformed records among
 * them) inner join purchases read from a Delta table ({@code max-files-per-trigger: 1}, one commit
 * of {@value #PURCHASES_PER_COMMIT} rows a batch) with the seed's condition, then a 5-minute count
 * per user on the click time — declared in YAML and run by the command line in child JVMs halted at
 * crash points ({@code Runtime.halt(137)}, the same as kill -9).
 *
 * <p><b>A chain of halts.</b> Everything is written first (the topic and the table). Each run halts
 * at the next point of {@link #HALTS} — its second occurrence, so the first falls in the batch the
 * restart replays (or the first new one) and the halt in the batch after it: every point of a batch
 * of this pipeline is halted at, {@code after-join-state-commit} (the join's store committed, the
 * window's not) among them, and a {@code mid-batch} halt inside the table's rows. The last run
 * drains both inputs. The run's log and exit status say it halted at its point ({@link
 * CrashRuns#assertHaltedAt}).
 *
 * <p><b>Asserted at the end:</b> the same batch cut and watermarks as an uncrashed reference run of
 * the same pipeline; the window table, the quarantine (each malformed click once) and the
 * late-events table equal to the reference's as multisets; the windows equal to {@link
 * JoinWindowOracle} over {@link JoinOracle}'s pairs on the recorded cut (the table's part of each
 * batch read again by a fresh source, as a replay would).
 */
class StreamJoinWindowCrashIT {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z
  private static final int CLICKS_PER_BATCH = 12;
  private static final int PURCHASES_PER_COMMIT = 8;
  private static final int CLICKS = 240;
  private static final String CRASHED_ID = "join-window-crash";

  /** A halt: its point and which occurrence of it in the run. */
  private record Halt(String point, int occurrence) {
    @Override
    public String toString() {
      return point + ":" + occurrence;
    }
  }

  /**
   * Every point a batch of this pipeline passes. {@code after-commits-log} first comes before the
   * {@code mid-batch} halt in the table's rows: the run after it starts a new batch (no replay), so
   * its {@code mid-batch} occurrence past the batch's {@value #CLICKS_PER_BATCH} clicks lies among
   * the table's rows.
   */
  private static final List<Halt> HALTS =
      List.of(
          new Halt(CrashPoints.AFTER_PLAN, 2),
          new Halt(CrashPoints.AFTER_OFFSETS_LOG, 2),
          new Halt(CrashPoints.MID_BATCH, 17),
          new Halt(CrashPoints.AFTER_FIRST_INPUT, 2),
          new Halt(CrashPoints.AFTER_COMMITS_LOG, 2),
          new Halt(CrashPoints.MID_BATCH, CLICKS_PER_BATCH + 4),
          new Halt(CrashPoints.AFTER_DATA_FILES, 2),
          new Halt(CrashPoints.AFTER_QUARANTINE_COMMIT, 2),
          new Halt(CrashPoints.AFTER_SINK_COMMIT, 2),
          new Halt(CrashPoints.AFTER_JOIN_STATE_COMMIT, 2),
          new Halt(CrashPoints.AFTER_STATE_COMMIT, 2),
          new Halt(CrashPoints.AFTER_COMMITS_LOG, 2));

  private static final StructType PURCHASES =
      StructType.of(
          StructField.nullable("user_id", PrimitiveType.STRING),
          StructField.nullable("event_ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("id", PrimitiveType.STRING));

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Random random = new Random(20261204L);

  @TempDir Path dir;
  private String clicks;
  private SentEvents sent;
  private Path purchasesTable;
  private int purchaseCount;

  @Test
  void aWindowAfterAJoinWithATableInputIsExactAfterAHaltAtEveryPoint() throws Exception {
    clicks = broker.createTopic("clicks", 3);
    sent = new SentEvents(clicks, "no-second-topic");
    purchasesTable = dir.resolve("purchases");
    writeInputs();
    Path crashed = pipeline("crashed", CRASHED_ID);
    Path reference = pipeline("reference", CRASHED_ID + "-reference");
    List<String> jvm =
        List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dtributary.state.dir=" + dir.resolve("state"));

    long lastHaltBatch = -1;
    for (int h = 0; h < HALTS.size(); h++) {
      String crashAt = HALTS.get(h).toString();
      List<String> options = new ArrayList<>(jvm);
      options.add("-Dtributary.test.crash-at=" + crashAt);
      Path log = dir.resolve("halt-" + h + ".log");
      CrashRuns.assertHaltedAt(JoinRunFiles.start(options, crashed, log, dir), crashAt, log);
      long batch = read(crashed, c -> c.latestOffsets().orElseThrow().batchId());
      assertThat(batch)
          .as("halt %d (%s) is not behind the one before", h, crashAt)
          .isGreaterThanOrEqualTo(lastHaltBatch);
      lastHaltBatch = batch;
    }
    assertThat(lastHaltBatch).as("the chain went through many batches").isGreaterThanOrEqualTo(8);
    Path drain = dir.resolve("drain.log");
    CrashRuns.assertFinished(JoinRunFiles.start(jvm, crashed, drain, dir), drain);
    runInProcess(reference);

    assertThat(cut(crashed))
        .as("the same batch cut, watermarks and per-input watermarks as the uncrashed run")
        .isEqualTo(cut(reference));
    for (String t : List.of("sink", "quarantine", "late")) {
      assertThat(rows(crashed, t))
          .as("the %s table equals the uncrashed run's, as a multiset", t)
          .containsExactlyInAnyOrderElementsOf(rows(reference, t));
    }
    assertThat(quarantined(crashed))
        .as("each malformed click once")
        .containsExactlyInAnyOrderElementsOf(sent.malformed())
        .isNotEmpty();
    assertThat(rows(crashed, "late")).as("late clicks").isNotEmpty();

    JoinWindowOracle.Counted expected = JoinWindowOracle.afterSeedInnerJoin(batches(crashed));
    assertThat(expected.rows()).as("windows").hasSizeGreaterThan(30);
    assertThat(windows(crashed))
        .as("the windows equal the oracle's on the recorded cut")
        .containsExactlyInAnyOrderElementsOf(expected.rows());
  }

  /**
   * Clicks every ~3 minutes with ±4 minutes of jitter over 3 partitions, every 17th 90 minutes
   * behind (late), a few null keys and malformed records; purchases of about two clicks in three, 5
   * minutes before to 40 after their click, committed to the table {@value #PURCHASES_PER_COMMIT}
   * at a time, in click order.
   */
  private void writeInputs() throws Exception {
    Map<Integer, List<String>> clickValues = new HashMap<>();
    List<JoinOracle.Event> purchases = new ArrayList<>();
    for (int i = 0; i < CLICKS; i++) {
      long t = START + i * 3L * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 90 * MINUTE;
      }
      String user = i % 23 == 7 ? null : "u" + random.nextInt(6);
      JoinOracle.Event click = new JoinOracle.Event(user, t, "c" + i);
      clickValues
          .computeIfAbsent(i % 3, p -> new ArrayList<>())
          .add(sent.add(clicks, i % 3, click));
      if (i % 13 == 4) {
        int p = (i + 1) % 3;
        clickValues.computeIfAbsent(p, q -> new ArrayList<>()).add(sent.add(clicks, p, null));
      }
      if (random.nextInt(3) > 0) {
        purchases.add(new JoinOracle.Event(user, t + (random.nextInt(46) - 5) * MINUTE, "p" + i));
      }
    }
    clickValues.forEach((p, values) -> broker.send(clicks, p, values));
    purchaseCount = purchases.size();
    try (ObjectStore store = ObjectStores.open(purchasesTable.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(PURCHASES, List.of(), Map.of());
      for (int from = 0, commit = 1; from < purchases.size(); from += PURCHASES_PER_COMMIT) {
        try (AppendTransaction tx = table.newAppend(new TransactionId("shop", commit++))) {
          for (JoinOracle.Event e :
              purchases.subList(from, Math.min(purchases.size(), from + PURCHASES_PER_COMMIT))) {
            tx.write(new Object[] {e.user(), Times.instant(e.micros()), e.id()});
          }
          tx.commit(Map.of());
        }
      }
    }
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
              source: { delta: { path: "%s", max-files-per-trigger: 1 } }
              watermark: { column: event_ts, delay: 10 minutes }
              prefix: p_
            on: [user_id]
            time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
            type: inner
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [user_id]
          measures: { n: count() }
        sink: { delta: { path: "%s/tables/sink" } }
        quarantine: { delta: { path: "%s/tables/quarantine" } }
        late-events: { delta: { path: "%s/tables/late" } }
        checkpoint: "%s/checkpoint"
        """
            .formatted(
                id,
                broker.bootstrapServers(),
                clicks,
                CLICKS_PER_BATCH,
                purchasesTable,
                home,
                home,
                home,
                home));
    return file;
  }

  /** The join's inputs per recorded batch: clicks by their offsets, purchases read again. */
  private List<JoinOracle.Batch> batches(Path pipeline) throws Exception {
    PipelineSpec spec = PipelineParser.parse(pipeline, Map.of());
    List<JoinOracle.Batch> batches = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(purchasesTable.toString(), null)) {
      for (OffsetsEntry entry : read(pipeline, JoinRunFiles::offsets)) {
        JoinOracle.Batch clicksOnly = sent.batch(entry);
        List<JoinOracle.Event> purchases;
        try (DeltaTableSource source = StreamJoinInputs.secondTable(spec, store, false)) {
          purchases =
              JoinOracle.tableEvents(source, CompositeSource.secondPart(BatchRange.of(entry)));
        }
        batches.add(
            new JoinOracle.Batch(
                clicksOnly.left(), purchases, clicksOnly.evict(), clicksOnly.late()));
      }
    }
    assertThat(batches.stream().mapToInt(b -> b.right().size()).sum())
        .as("every purchase in one batch")
        .isEqualTo(purchaseCount);
    return batches;
  }

  /** The quarantine rows as {@code <input> <topic>/<partition>/<offset>}. */
  private static List<String> quarantined(Path pipeline) throws Exception {
    try (ObjectStore store = table(pipeline, "quarantine")) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int input = schema.indexOf("input");
      int topic = schema.indexOf("topic");
      int partition = schema.indexOf("partition");
      int offset = schema.indexOf("offset");
      return TableContents.rows(store).stream()
          .map(r -> r[input] + " " + r[topic] + "/" + r[partition] + "/" + r[offset])
          .toList();
    }
  }

  /** The sink's window rows as {@code [window_start, window_end, user_id, n]}. */
  private static List<List<Object>> windows(Path pipeline) throws Exception {
    try (ObjectStore store = table(pipeline, "sink")) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      assertThat(schema.fieldNames()).containsExactly("window_start", "window_end", "user_id", "n");
      List<List<Object>> got = new ArrayList<>();
      for (Object[] row : TableContents.rows(store)) {
        got.add(Arrays.asList(row[0], row[1], row[2], ((Number) row[3]).longValue()));
      }
      return got;
    }
  }
}
