package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.JoinOracle.seedState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.time.Instant;
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
 * The stream-stream join wired into the engine (issue 25, step 5), in process: a YAML pipeline with
 * the seed join reads two in-memory topics through {@link CompositeSource} in small batches, and
 * the sink equals {@link JoinOracle}'s output on the batch cut the checkpoint recorded (ranges and
 * watermarks of each offsets entry); a restart in the middle continues from the persisted per-input
 * watermarks and state, and still matches.
 */
class StreamJoinPipelineTest {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z

  @TempDir Path dir;

  private static String yaml(String type) {
    return """
        pipeline: attribution
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [clicks] } }
        format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
        join:
          - stream:
              source: { kafka: { topics: [purchases] } }
              format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
              watermark: { column: event_ts, delay: 10 minutes }
              prefix: p_
            on: [user_id]
            time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
            type: %s
        watermark: { column: event_ts, delay: 10 minutes }
        sink: { delta: { path: /memory/sink } }
        quarantine: { delta: { path: /memory/quarantine } }
        checkpoint: /memory/checkpoint
        """
        .formatted(type);
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
   * Clicks of 6 users over about 3 hours of event time with jitter (some late, some null keys, bad
   * records), purchases 5 minutes before to 40 after a click, some without a click.
   */
  private void generate(Random random, int from, int to) {
    for (int i = from; i < to; i++) {
      long t = START + i * 3 * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 45 * MINUTE; // late, once the watermark moved
      }
      String user = i % 23 == 7 ? null : "u" + random.nextInt(6);
      clicks.append(i % 2, new JoinOracle.Event(user, t, "c" + i));
      if (i % 13 == 4) {
        clicks.append(i % 2, null);
      }
      if (random.nextInt(3) > 0) {
        long p = t + (random.nextInt(46) - 5) * MINUTE;
        purchases.append(0, new JoinOracle.Event(user, p, "p" + i));
      }
      if (i % 11 == 3) {
        purchases.append(0, null);
      }
    }
  }

  @Test
  void leftOuterSeedJoinEqualsTheOracleAcrossARestart() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(yaml("left"), dir);
    Random random = new Random(25);
    generate(random, 0, 40);
    runToEnd(pipeline);
    generate(random, 40, 80);
    runToEnd(pipeline); // a new process: state, watermarks and per-input values from the checkpoint

    assertSinkIsTheOracles(pipeline, JoinOracle.Kind.LEFT);
    assertThat(pipeline.quarantineRows()).hasSize(countBad());
    Checkpoint checkpoint = PipelineFactory.checkpoint(pipeline.spec(), pipeline.checkpointStore);
    CommitEntry last = checkpoint.latestCommit().orElseThrow();
    assertThat(last.extras().get(StreamJoinProcessor.WATERMARK_INPUTS)).matches("\\d+,\\d+");
  }

  @Test
  void innerSeedJoinEqualsTheOracle() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(yaml("inner"), dir);
    generate(new Random(7), 0, 60);
    runToEnd(pipeline);
    assertSinkIsTheOracles(pipeline, JoinOracle.Kind.INNER);
  }

  /**
   * A process killed at a point of a batch and restarted ends with the table, the batch cut and the
   * watermarks of a run that never crashed: the replayed batch reads both ranges again from state
   * N-1, and the next watermarks come from the persisted per-input values (W-persist), which Spark
   * would lose (a restart with {@code min} would wait for both inputs again).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("crashPoints")
  void aCrashAnywhereEndsAsTheUncrashedRun(CrashAt crash) throws Exception {
    generate(new Random(11), 0, 50);
    MemoryPipeline reference = MemoryPipeline.declared(yaml("left"), dir.resolve("reference"));
    runToEnd(reference);

    MemoryPipeline crashed = MemoryPipeline.declared(yaml("left"), dir.resolve("crashed"));
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
    assertThat(rows(crashed)).containsExactlyInAnyOrderElementsOf(rows(reference));
    assertSinkIsTheOracles(crashed, JoinOracle.Kind.LEFT);
  }

  static Stream<CrashAt> crashPoints() {
    return Stream.of(
        new CrashAt(CrashPoints.AFTER_OFFSETS_LOG, 4),
        new CrashAt(CrashPoints.MID_BATCH, 30),
        new CrashAt(CrashPoints.AFTER_FIRST_INPUT, 3),
        new CrashAt(CrashPoints.AFTER_SINK_COMMIT, 5),
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

  private static List<String> rows(MemoryPipeline pipeline) throws Exception {
    return pipeline.sinkRows().stream().map(Arrays::toString).toList();
  }

  private MemoryPipeline.Process open(MemoryPipeline pipeline) throws Exception {
    return pipeline.open(
        new CompositeSource(
            InMemorySource.of(clicks.log(), 4), InMemorySource.of(purchases.log(), 3)),
        MemoryPipeline.Model.WRITE_AHEAD_LOG);
  }

  private int countBad() {
    int bad = 0;
    for (Topic t : List.of(clicks, purchases)) {
      for (List<JoinOracle.Event> events : t.events().values()) {
        bad += (int) events.stream().filter(e -> e == null).count();
      }
    }
    return bad;
  }

  private void runToEnd(MemoryPipeline pipeline) throws Exception {
    MemoryPipeline.Process process = open(pipeline);
    try {
      process.loop().run(new TriggerSpec.AvailableNow());
      assertThat(process.processor().stateMetrics()).containsKeys("join.left.rows", "join.pairs");
    } finally {
      process.close();
    }
  }

  private void assertSinkIsTheOracles(MemoryPipeline pipeline, JoinOracle.Kind kind)
      throws Exception {
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
                  assertThat(p.topic()).isEqualTo("stream.0:purchases");
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
    JoinOracle.Expected expected =
        JoinOracle.compute(
            kind,
            new JoinOracle.SideRules(true, w -> seedState(w, 30 * MINUTE)),
            new JoinOracle.SideRules(true, w -> seedState(w, 0)),
            (l, r) -> l <= r && r <= l + 30 * MINUTE,
            false,
            batches);
    List<List<Object>> want = new ArrayList<>();
    expected.output().forEach(want::addAll);
    assertThat(want).as("oracle output").isNotEmpty();

    StructType out = pipeline.compiled().outputSchema();
    int[] columns =
        Arrays.stream(new String[] {"user_id", "event_ts", "id", "p_user_id", "p_event_ts", "p_id"})
            .mapToInt(out::indexOf)
            .toArray();
    List<List<Object>> got = new ArrayList<>();
    for (Object[] row : pipeline.sinkRows()) {
      List<Object> values = new ArrayList<>();
      for (int c : columns) {
        values.add(row[c] instanceof Instant || row[c] == null ? row[c] : row[c].toString());
      }
      got.add(values);
    }
    assertThat(got).containsExactlyInAnyOrderElementsOf(want);
  }
}
