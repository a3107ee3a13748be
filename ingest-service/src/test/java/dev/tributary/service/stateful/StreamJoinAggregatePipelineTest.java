package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.JoinOracle.seedState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Operators after a stream-stream join (issue 25, step 8), in process: the seed inner join of two
 * in-memory topics followed by a 5-minute tumbling window count per user, and a join followed by a
 * deduplication; the sink equals {@link JoinWindowOracle} composed with {@link JoinOracle} on the
 * batch cut the checkpoint recorded, across a restart, and after a crash at every point of a batch.
 */
class StreamJoinAggregatePipelineTest {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z

  @TempDir Path dir;

  private static final String WINDOW =
      """
      pipeline: attribution-counts
      source: { kafka: { bootstrap-servers: "localhost:1", topics: [clicks] } }
      format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
      join:
        - stream:
            source: { kafka: { topics: [purchases] } }
            format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
            watermark: { column: event_ts, delay: 10 minutes }
            prefix: p_
          on: [user_id]
          time: "%s"
          type: inner
      watermark: { column: event_ts, delay: 10 minutes }
      aggregate:
        window: { column: event_ts, size: %s }
        group-by: [user_id]
        measures: { n: count() }
      sink: { delta: { path: /memory/sink } }
      quarantine: { delta: { path: /memory/quarantine } }
      checkpoint: /memory/checkpoint
      """;

  /** The right input has no watermark, so a deduplication after the join is allowed (D2). */
  private static final String DEDUP =
      """
      pipeline: attribution-firsts
      source: { kafka: { bootstrap-servers: "localhost:1", topics: [clicks] } }
      format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
      join:
        - stream:
            source: { kafka: { topics: [purchases] } }
            format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
            prefix: p_
          on: [user_id]
          time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
          type: inner
      watermark: { column: event_ts, delay: 10 minutes }
      deduplicate: { keys: [id, event_ts] }
      sink: { delta: { path: /memory/sink } }
      quarantine: { delta: { path: /memory/quarantine } }
      checkpoint: /memory/checkpoint
      """;

  /** The seed's condition: both sides evicted. */
  private static final String SEED_TIME =
      "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES";

  /** No upper bound on the purchase: clicks are never evicted, so old clicks pair late. */
  private static final String OPEN_TIME = "p_event_ts >= event_ts";

  private static String window(String size) {
    return WINDOW.formatted(SEED_TIME, size);
  }

  /** A topic's events by partition, in offset order (null: a bad record). */
  private record Topic(InMemorySource.Log log, Map<Integer, List<JoinOracle.Event>> events) {
    Topic(String name, int partitions) {
      this(new InMemorySource.Log(name, partitions), new HashMap<>());
    }

    void append(int partition, JoinOracle.Event e) {
      events.computeIfAbsent(partition, p -> new ArrayList<>()).add(e);
      log.append(
          partition,
          e == null
              ? "not json"
              : "{\"user_id\":"
                  + (e.user() == null ? "null" : "\"" + e.user() + "\"")
                  + ",\"event_ts\":\""
                  + Times.instant(e.micros())
                  + "\",\"id\":\""
                  + e.id()
                  + "\"}");
    }

    List<JoinOracle.Event> range(SourcePartition p, OffsetRange r) {
      List<JoinOracle.Event> out = new ArrayList<>();
      for (long o = r.start(); o < r.end(); o++) {
        JoinOracle.Event e = events.get(p.partition()).get((int) o);
        if (e != null) {
          out.add(e);
        }
      }
      return out;
    }
  }

  private final Topic clicks = new Topic("clicks", 2);
  private final Topic purchases = new Topic("purchases", 1);

  /**
   * Clicks of 4 users over hours of event time with jitter (some late by 45 minutes, null keys, bad
   * records), purchases 5 minutes before to 40 after a click (several per click sometimes), some
   * without a click.
   */
  private void generate(Random random, int from, int to) {
    for (int i = from; i < to; i++) {
      long t = START + i * 2 * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 45 * MINUTE; // late for the join or for the window, once the watermark moved
      }
      String user = i % 23 == 7 ? null : "u" + random.nextInt(4);
      clicks.append(i % 2, new JoinOracle.Event(user, t, "c" + i));
      if (i % 13 == 4) {
        clicks.append(i % 2, null);
      }
      for (int k = random.nextInt(3); k > 0; k--) {
        long p = t + (random.nextInt(46) - 5) * MINUTE;
        purchases.append(0, new JoinOracle.Event(user, p, "p" + i + "." + k));
      }
      if (i % 11 == 3) {
        purchases.append(0, null);
      }
    }
  }

  /**
   * The seed join, then the window on the click time. The join's output watermark is a lower bound
   * of the times it still outputs (the clicks it keeps are after their state watermark), so no pair
   * is ever late for the window: the oracle says so too.
   */
  @Test
  void aWindowCountAfterTheJoinEqualsTheOracleAcrossARestart() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(window("5 minutes"), dir);
    Random random = new Random(8);
    generate(random, 0, 50);
    Map<String, Long> state = runToEnd(pipeline);
    assertThat(state).containsKeys("join.left.rows", "aggregate.keys", "aggregate.lateRows");
    generate(random, 50, 100);
    runToEnd(pipeline); // a new process: both stores and the watermarks from the checkpoint

    JoinWindowOracle.Counted expected = windowOracle(pipeline, true);
    assertThat(expected.rows()).as("windows").hasSizeGreaterThan(20);
    assertThat(expected.late()).as("nothing is late after the seed join (D1)").isEmpty();
    assertThat(windowRows(pipeline)).containsExactlyInAnyOrderElementsOf(expected.rows());
  }

  /**
   * A join whose clicks are never evicted ({@code p_event_ts >= event_ts}): the output watermark is
   * the purchases' state watermark {@code W − 1 ms}, and a new purchase pairs with clicks whose
   * windows it already passed: those pairs are late for the window and left out, as the oracle
   * says.
   */
  @Test
  void pairsOfOldClicksAreLateForTheWindow() throws Exception {
    MemoryPipeline pipeline =
        MemoryPipeline.declared(WINDOW.formatted(OPEN_TIME, "5 minutes"), dir);
    generate(new Random(9), 0, 60);
    runToEnd(pipeline);

    JoinWindowOracle.Counted expected = windowOracle(pipeline, false);
    assertThat(expected.rows()).as("windows").hasSizeGreaterThan(20);
    assertThat(expected.late()).as("pairs late for the window").isNotEmpty();
    assertThat(windowRows(pipeline)).containsExactlyInAnyOrderElementsOf(expected.rows());
  }

  /**
   * The operators after the join are part of the checkpoint's identity, as for any pipeline: a
   * restart with another window is refused, naming what changed.
   */
  @Test
  void anotherWindowOnTheSameCheckpointIsRefused() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(window("5 minutes"), dir);
    generate(new Random(3), 0, 20);
    runToEnd(pipeline);
    assertThatThrownBy(
            () ->
                PipelineFactory.checkpoint(
                    PipelineParser.parse(window("10 minutes"), "memory.yaml", Map.of()),
                    pipeline.checkpointStore))
        .hasMessageContaining("aggregate.window");
  }

  /**
   * Deduplication by (click id, click time) after a join whose right input has no watermark: each
   * click with a joined row that is not late comes out once, whatever its number of purchases.
   */
  @Test
  void aDeduplicationAfterTheJoinKeepsEachJoinedClickOnce() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(DEDUP, dir);
    Random random = new Random(5);
    generate(random, 0, 50);
    Map<String, Long> state = runToEnd(pipeline);
    assertThat(state).containsKeys("dedup.keys", "dedup.lateRows");
    generate(random, 50, 90);
    runToEnd(pipeline);

    List<JoinOracle.Batch> batches = batches(pipeline);
    JoinOracle.Expected joined =
        JoinOracle.compute(
            JoinOracle.Kind.INNER,
            new JoinOracle.SideRules(true, StreamJoinDefinition.Side.NEVER),
            new JoinOracle.SideRules(false, StreamJoinDefinition.Side.NEVER),
            (l, r) -> l <= r && r <= l + 30 * MINUTE,
            false,
            batches);
    // neither side is evicted (the right has no watermark): the output watermark is W itself
    JoinWindowOracle.Watermarks wm = JoinWindowOracle.downstream(batches, w -> Math.max(0, w));
    List<List<Object>> want =
        new ArrayList<>(JoinWindowOracle.dedupKeys(joined.output(), wm, 1, 2, 1));
    assertThat(want).hasSizeGreaterThan(20);
    StructType out = pipeline.compiled().outputSchema();
    int id = out.indexOf("id");
    int ts = out.indexOf("event_ts");
    List<List<Object>> got =
        pipeline.sinkRows().stream().map(r -> List.<Object>of(r[id].toString(), r[ts])).toList();
    assertThat(got).containsExactlyInAnyOrderElementsOf(want);
  }

  /**
   * A process killed at a point of a batch and restarted ends with the windows, the batch cut and
   * the watermarks of a run that never crashed, including between the join's store commit and the
   * aggregation's ({@code after-join-state-commit}): the replay rebuilds both from version N-1 and
   * adopts what the first attempt committed.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("crashPoints")
  void aCrashAnywhereEndsAsTheUncrashedRun(CrashAt crash) throws Exception {
    generate(new Random(11), 0, 60);
    MemoryPipeline reference =
        MemoryPipeline.declared(window("5 minutes"), dir.resolve("reference"));
    runToEnd(reference);

    MemoryPipeline crashed = MemoryPipeline.declared(window("5 minutes"), dir.resolve("crashed"));
    MemoryPipeline.Process first = open(crashed);
    assertThat(
            crash.runCrashing(
                () -> {
                  first.loop().run(new TriggerSpec.AvailableNow());
                  return null;
                }))
        .as("crashed at " + crash)
        .isTrue();
    first.close();
    runToEnd(crashed);

    assertThat(cut(crashed)).isEqualTo(cut(reference));
    assertThat(windowRows(crashed)).containsExactlyInAnyOrderElementsOf(windowRows(reference));
    assertThat(windowRows(crashed))
        .containsExactlyInAnyOrderElementsOf(windowOracle(crashed, true).rows());
  }

  static Stream<CrashAt> crashPoints() {
    return Stream.of(
        new CrashAt(CrashPoints.AFTER_PLAN, 3),
        new CrashAt(CrashPoints.AFTER_OFFSETS_LOG, 4),
        new CrashAt(CrashPoints.MID_BATCH, 30),
        new CrashAt(CrashPoints.AFTER_FIRST_INPUT, 3),
        new CrashAt(CrashPoints.AFTER_DATA_FILES, 4),
        new CrashAt(CrashPoints.AFTER_QUARANTINE_COMMIT, 2),
        new CrashAt(CrashPoints.AFTER_SINK_COMMIT, 5),
        new CrashAt(CrashPoints.AFTER_JOIN_STATE_COMMIT, 5),
        new CrashAt(CrashPoints.AFTER_STATE_COMMIT, 6),
        new CrashAt(CrashPoints.AFTER_COMMITS_LOG, 7));
  }

  /** Per batch: its ranges and its two watermarks. */
  private static List<String> cut(MemoryPipeline pipeline) throws Exception {
    Checkpoint checkpoint = PipelineFactory.checkpoint(pipeline.spec(), pipeline.checkpointStore);
    List<String> out = new ArrayList<>();
    for (long b = 0; checkpoint.offsets(b).isPresent(); b++) {
      OffsetsEntry e = checkpoint.offsets(b).get();
      out.add(e.ranges() + " " + e.watermarkMicros() + " " + e.lateWatermarkMicros());
      out.add(
          String.valueOf(
              checkpoint.commit(b).map(c -> c.extras().get(StreamJoinProcessor.WATERMARK_INPUTS))));
    }
    return out;
  }

  private MemoryPipeline.Process open(MemoryPipeline pipeline) throws Exception {
    return pipeline.open(
        new CompositeSource(
            InMemorySource.of(clicks.log(), 4), InMemorySource.of(purchases.log(), 3)),
        MemoryPipeline.Model.WRITE_AHEAD_LOG);
  }

  /** Runs a new process to the end; returns its last batch's state metrics. */
  private Map<String, Long> runToEnd(MemoryPipeline pipeline) throws Exception {
    MemoryPipeline.Process process = open(pipeline);
    try {
      process.loop().run(new TriggerSpec.AvailableNow());
      return process.processor().stateMetrics();
    } finally {
      process.close();
    }
  }

  /** The cut the checkpoint recorded, as the oracle's batches (no-data batches included). */
  private List<JoinOracle.Batch> batches(MemoryPipeline pipeline) throws Exception {
    Checkpoint checkpoint = PipelineFactory.checkpoint(pipeline.spec(), pipeline.checkpointStore);
    List<JoinOracle.Batch> batches = new ArrayList<>();
    for (long b = 0; ; b++) {
      Optional<OffsetsEntry> entry = checkpoint.offsets(b);
      if (entry.isEmpty()) {
        break;
      }
      List<JoinOracle.Event> left = new ArrayList<>();
      List<JoinOracle.Event> right = new ArrayList<>();
      entry
          .get()
          .ranges()
          .forEach(
              (p, r) -> {
                if (p.topic().equals("clicks")) {
                  left.addAll(clicks.range(p, r));
                } else {
                  right.addAll(purchases.range(p, r));
                }
              });
      batches.add(
          new JoinOracle.Batch(
              left,
              right,
              entry.get().watermarkMicros().orElse(0),
              entry.get().lateWatermarkMicros().orElse(0)));
    }
    assertThat(batches.size()).as("batches").isGreaterThan(5);
    return batches;
  }

  /**
   * The join's pairs ({@link JoinOracle}) counted per 5-minute window of the click time and user,
   * with the join's output watermark: for the seed ({@code bounded}) {@code max(0, min(W − 30 min −
   * 1 ms, W − 1 ms, W))}; for {@link #OPEN_TIME}, whose clicks have no state watermark, {@code
   * max(0, min(W − 1 ms, W))}.
   */
  private JoinWindowOracle.Counted windowOracle(MemoryPipeline pipeline, boolean bounded)
      throws Exception {
    List<JoinOracle.Batch> batches = batches(pipeline);
    JoinOracle.Expected joined =
        JoinOracle.compute(
            JoinOracle.Kind.INNER,
            new JoinOracle.SideRules(
                true, bounded ? w -> seedState(w, 30 * MINUTE) : StreamJoinDefinition.Side.NEVER),
            new JoinOracle.SideRules(true, w -> seedState(w, 0)),
            bounded ? (l, r) -> l <= r && r <= l + 30 * MINUTE : (l, r) -> l <= r,
            false,
            batches);
    JoinWindowOracle.Watermarks wm =
        JoinWindowOracle.downstream(
            batches,
            w -> {
              long min = Math.min(w, seedState(w, 0).getAsLong());
              if (bounded) {
                min = Math.min(min, seedState(w, 30 * MINUTE).getAsLong());
              }
              return Math.max(0, min);
            });
    return JoinWindowOracle.windowCount(joined.output(), wm, 1, 0, 5 * MINUTE);
  }

  /** The sink's window rows as {@code [window_start, window_end, user_id, n]}. */
  private static List<List<Object>> windowRows(MemoryPipeline pipeline) throws Exception {
    StructType out = pipeline.compiled().outputSchema();
    assertThat(out.fieldNames()).containsExactly("window_start", "window_end", "user_id", "n");
    List<List<Object>> got = new ArrayList<>();
    for (Object[] row : pipeline.sinkRows()) {
      got.add(Arrays.asList(row[0], row[1], row[2], ((Number) row[3]).longValue()));
    }
    return got;
  }
}
