package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.JoinOracle.seedState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A window aggregation after a stream-stream join end to end (issue 25, step 8): clicks joined with
 * purchases on {@code user_id} and {@code p_event_ts >= event_ts} (inner), then a 5-minute tumbling
 * window count of the pairs per user on the click time, from a YAML pipeline against the real
 * broker into a Delta table, run available-now in several batches. The table equals {@link
 * JoinWindowOracle} over {@link JoinOracle}'s pairs on the batch cut the checkpoint recorded, with
 * the join's output watermark (D1: the clicks have no state watermark, so {@code max(0, min(W − 1
 * ms, W))}); a restart continues and still equals it. The condition has no upper bound on purpose:
 * a new purchase pairs with old clicks whose windows the output watermark passed, so the
 * late-events table holds both the join's late clicks ({@code _late_operator = join}, purchase
 * columns null) and the pairs the window dropped ({@code aggregate}), each once. (After the seed's
 * bounded condition no pair can be late for the window: {@code StreamJoinAggregatePipelineTest}.)
 */
class StreamJoinAggregateIT {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String clicksTopic;
  private String purchasesTopic;
  private Path file;

  /** Each topic's events by partition in offset order (null: a bad record). */
  private final Map<String, Map<Integer, List<JoinOracle.Event>>> sent = new HashMap<>();

  @BeforeEach
  void topicsAndPipeline() throws Exception {
    clicksTopic = broker.createTopic("clicks", 2);
    purchasesTopic = broker.createTopic("purchases", 1);
    file = dir.resolve("attribution-counts.yaml");
    Files.writeString(
        file,
        """
        pipeline: attribution-counts
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 9
        format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
        join:
          - stream:
              source: { kafka: { topics: [%s], max-offsets-per-trigger: 6 } }
              format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
              watermark: { column: event_ts, delay: 10 minutes }
              prefix: p_
            on: [user_id]
            time: "p_event_ts >= event_ts"
            type: inner
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [user_id]
          measures: { n: count() }
        sink: { delta: { path: "%s/tables/counts" } }
        quarantine: { delta: { path: "%s/tables/quarantine" } }
        late-events: { delta: { path: "%s/tables/late" } }
        checkpoint: "%s/checkpoint"
        """
            .formatted(broker.bootstrapServers(), clicksTopic, purchasesTopic, dir, dir, dir, dir));
  }

  @Test
  void aWindowCountAfterTheJoinEqualsTheOracleAndARestartContinues() throws Exception {
    Random random = new Random(2026);
    send(random, 0, 50);
    List<BatchProgress> first = runAvailableNow();
    assertThat(first.size()).as("batches of the first run").isGreaterThan(3);
    Map<String, Long> state = first.get(first.size() - 1).state();
    assertThat(state)
        .containsKeys("join.left.rows", "join.pairs", "aggregate.keys", "aggregate.lateRows");
    assertThat(state.get("rows"))
        .isEqualTo(
            state.get("join.left.rows")
                + state.get("join.right.rows")
                + state.get("aggregate.keys"));
    assertSinkIsTheOracles();

    send(random, 50, 100);
    List<BatchProgress> second = runAvailableNow();
    assertThat(second).as("batches of the restarted run").isNotEmpty();
    Expected expected = assertSinkIsTheOracles();

    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/late").toString(), null)) {
      StructType late = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int operator = late.indexOf(LateEvents.OPERATOR);
      int id = late.indexOf("id");
      int pid = late.indexOf("p_id");
      assertThat(pid).as("the late-events table has the joined rows' columns").isPositive();
      List<String> got = new ArrayList<>();
      for (Object[] r : TableContents.rows(store)) {
        got.add(r[operator] + " " + r[id] + " " + r[pid]);
      }
      assertThat(got).containsExactlyInAnyOrderElementsOf(expected.late());
      assertThat(got)
          .anyMatch(s -> s.startsWith("join "))
          .anyMatch(s -> s.startsWith("aggregate "));
    }
  }

  private List<BatchProgress> runAvailableNow() throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress.last(1000);
  }

  /**
   * Clicks every ~2 minutes of 4 users (some 45 minutes late, some null keys), zero to two
   * purchases around each.
   */
  private void send(Random random, int from, int to) {
    Map<Integer, List<String>> clicks = new HashMap<>();
    List<String> purchases = new ArrayList<>();
    for (int i = from; i < to; i++) {
      long t = START + i * 2 * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 45 * MINUTE;
      }
      String user = i % 23 == 7 ? null : "u" + random.nextInt(4);
      add(clicksTopic, i % 2, new JoinOracle.Event(user, t, "c" + i), clicks);
      if (i % 13 == 4) {
        add(clicksTopic, i % 2, null, clicks);
      }
      for (int k = random.nextInt(3); k > 0; k--) {
        long p = t + (random.nextInt(46) - 5) * MINUTE;
        purchases.add(
            json(record(purchasesTopic, 0, new JoinOracle.Event(user, p, "p" + i + "." + k))));
      }
    }
    clicks.forEach((p, values) -> broker.send(clicksTopic, p, values));
    broker.send(purchasesTopic, 0, purchases);
  }

  private void add(
      String topic, int partition, JoinOracle.Event e, Map<Integer, List<String>> values) {
    values
        .computeIfAbsent(partition, p -> new ArrayList<>())
        .add(json(record(topic, partition, e)));
  }

  private JoinOracle.Event record(String topic, int partition, JoinOracle.Event e) {
    sent.computeIfAbsent(topic, t -> new HashMap<>())
        .computeIfAbsent(partition, p -> new ArrayList<>())
        .add(e);
    return e;
  }

  private static String json(JoinOracle.Event e) {
    if (e == null) {
      return "not json";
    }
    return "{\"user_id\":"
        + (e.user() == null ? "null" : "\"" + e.user() + "\"")
        + ",\"event_ts\":\""
        + Times.instant(e.micros())
        + "\",\"id\":\""
        + e.id()
        + "\"}";
  }

  /**
   * @param windows {@code [window_start, window_end, user_id, n]}
   * @param late {@code "<operator> <click id> <purchase id>"} per late-events row
   */
  private record Expected(List<List<Object>> windows, List<String> late) {}

  /** The oracles over every batch the checkpoint recorded. */
  private Expected expected() throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    List<JoinOracle.Batch> batches = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("checkpoint").toString(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      for (long b = 0; checkpoint.offsets(b).isPresent(); b++) {
        OffsetsEntry entry = checkpoint.offsets(b).get();
        List<JoinOracle.Event> left = new ArrayList<>();
        List<JoinOracle.Event> right = new ArrayList<>();
        entry
            .ranges()
            .forEach(
                (p, r) -> {
                  boolean second = p.topic().startsWith("stream.0:");
                  String topic = second ? p.topic().substring("stream.0:".length()) : p.topic();
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
    }
    JoinOracle.Expected joined =
        JoinOracle.compute(
            JoinOracle.Kind.INNER,
            new JoinOracle.SideRules(true, StreamJoinDefinition.Side.NEVER),
            new JoinOracle.SideRules(true, w -> seedState(w, 0)),
            (l, r) -> l <= r,
            false,
            batches);
    JoinWindowOracle.Watermarks wm =
        JoinWindowOracle.downstream(
            batches, w -> Math.max(0, Math.min(w, seedState(w, 0).getAsLong())));
    JoinWindowOracle.Counted counted =
        JoinWindowOracle.windowCount(joined.output(), wm, 1, 0, 5 * MINUTE);
    List<String> late = new ArrayList<>();
    joined.late().forEach(b -> b.forEach(e -> late.add("join " + e.id() + " null")));
    counted.late().forEach(r -> late.add("aggregate " + r.get(2) + " " + r.get(5)));
    return new Expected(counted.rows(), late);
  }

  private Expected assertSinkIsTheOracles() throws Exception {
    Expected expected = expected();
    assertThat(expected.windows()).hasSizeGreaterThan(10);
    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/counts").toString(), null)) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      assertThat(schema.fieldNames()).containsExactly("window_start", "window_end", "user_id", "n");
      List<List<Object>> got = new ArrayList<>();
      for (Object[] row : TableContents.rows(store)) {
        got.add(List.of(row[0], row[1], row[2], ((Number) row[3]).longValue()));
      }
      assertThat(got).containsExactlyInAnyOrderElementsOf(expected.windows());
    }
    return expected;
  }
}
