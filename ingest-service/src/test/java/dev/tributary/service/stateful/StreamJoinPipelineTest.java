package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.pipeline.PipelineFactory;
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
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    MemoryPipeline.Process process =
        pipeline.open(
            new CompositeSource(
                InMemorySource.of(clicks.log(), 4), InMemorySource.of(purchases.log(), 3)),
            MemoryPipeline.Model.WRITE_AHEAD_LOG);
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

  /** The seed's state watermark: {@code W − bound − 1 ms}, Spark's arithmetic (S3r). */
  private static OptionalLong seedState(long evict, long bound) {
    long ms = (long) ((evict / 1000 * 1000.0 - bound) / 1000.0) - 1;
    return OptionalLong.of(ms * 1000);
  }
}
