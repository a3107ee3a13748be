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
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed query end to end (issue 25, step 5): clicks joined with purchases on {@code user_id}
 * with {@code p.event_ts BETWEEN c.event_ts AND c.event_ts + INTERVAL 30 MINUTES}, left outer, from
 * a YAML pipeline against the real broker into a Delta table, run available-now in several batches
 * (per-input {@code max-offsets-per-trigger}); the table equals {@link JoinOracle} on the batch cut
 * the checkpoint recorded. Then more events arrive and a new run (a restart: state, watermarks and
 * per-input watermarks from the checkpoint) continues, and the whole table still equals the oracle
 * over all batches. Bad records of both topics are in the quarantine with their provenance; late
 * clicks are in the late-events table with {@code _late_operator = join}.
 */
class StreamJoinPipelineIT {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String clicksTopic;
  private String purchasesTopic;
  private Path file;

  /** Each topic's events by partition in offset order (null: a bad record). */
  private SentEvents sent;

  @BeforeEach
  void topicsAndPipeline() throws Exception {
    clicksTopic = broker.createTopic("clicks", 2);
    purchasesTopic = broker.createTopic("purchases", 1);
    sent = new SentEvents(clicksTopic, purchasesTopic);
    file = dir.resolve("attribution.yaml");
    Files.writeString(
        file,
        """
        pipeline: attribution
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 9
        format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
        join:
          - stream:
              source: { kafka: { topics: [%s], max-offsets-per-trigger: 5 } }
              format: { json: { schema: { user_id: string, event_ts: timestamp, id: string } } }
              watermark: { column: event_ts, delay: 10 minutes }
              prefix: p_
            on: [user_id]
            time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
            type: left
        watermark: { column: event_ts, delay: 10 minutes }
        sink: { delta: { path: "%s/tables/attribution" } }
        quarantine: { delta: { path: "%s/tables/quarantine" } }
        late-events: { delta: { path: "%s/tables/late" } }
        checkpoint: "%s/checkpoint"
        """
            .formatted(broker.bootstrapServers(), clicksTopic, purchasesTopic, dir, dir, dir, dir));
  }

  @Test
  void theSeedLeftOuterJoinEqualsTheOracleAndARestartContinues() throws Exception {
    Random random = new Random(2025);
    send(random, 0, 40);
    List<BatchProgress> first = runAvailableNow();
    assertThat(first.size()).as("batches of the first run").isGreaterThan(3);
    assertThat(first.get(first.size() - 1).state())
        .containsKeys("join.left.rows", "join.right.rows", "join.pairs", "join.outerRows");
    Map<String, Long> state = first.get(first.size() - 1).state();
    assertThat(state.get("rows"))
        .isEqualTo(state.get("join.left.rows") + state.get("join.right.rows"))
        .isPositive();
    assertSinkIsTheOracles();

    send(random, 40, 80);
    List<BatchProgress> second = runAvailableNow();
    assertThat(second).as("batches of the restarted run").isNotEmpty();
    assertSinkIsTheOracles();
    assertThat(readToTheEnd()).as("every sent record is in a recorded batch").isTrue();

    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/quarantine").toString(), null)) {
      int input =
          dev.tributary.table.DeltaTable.open(store, dev.tributary.table.TableOptions.defaults())
              .snapshot()
              .schema()
              .indexOf("input");
      List<String> bad =
          TableContents.rows(store).stream()
              .map(r -> r[input] + " " + r[0] + "/" + r[1] + "/" + r[2])
              .toList();
      assertThat(bad).containsExactlyInAnyOrderElementsOf(sent.malformed());
    }
    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/late").toString(), null)) {
      StructType late =
          dev.tributary.table.DeltaTable.open(store, dev.tributary.table.TableOptions.defaults())
              .snapshot()
              .schema();
      int operator = late.indexOf(LateEvents.OPERATOR);
      int id = late.indexOf("id");
      List<Object[]> rows = TableContents.rows(store);
      assertThat(rows).isNotEmpty();
      assertThat(rows).allSatisfy(r -> assertThat(r[operator]).isEqualTo("join"));
      assertThat(rows.stream().map(r -> r[id]).toList())
          .containsExactlyInAnyOrderElementsOf(expected().lateIds());
      assertThat(
              Stream.concat(first.stream(), second.stream())
                  .mapToLong(b -> b.state().get("join.left.lateRows"))
                  .sum())
          .as("late clicks counted")
          .isEqualTo(rows.size());
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

  /** Clicks every ~3 minutes of 6 users (some late, some null keys), purchases around them. */
  private void send(Random random, int from, int to) {
    Map<Integer, List<String>> clicks = new HashMap<>();
    List<String> purchases = new ArrayList<>();
    for (int i = from; i < to; i++) {
      long t = START + i * 3 * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 45 * MINUTE;
      }
      String user = i % 23 == 7 ? null : "u" + random.nextInt(6);
      add(clicksTopic, i % 2, new JoinOracle.Event(user, t, "c" + i), clicks);
      if (i % 13 == 4) {
        add(clicksTopic, i % 2, null, clicks);
      }
      if (random.nextInt(3) > 0) {
        long p = t + (random.nextInt(46) - 5) * MINUTE;
        purchases.add(sent.add(purchasesTopic, 0, new JoinOracle.Event(user, p, "p" + i)));
      }
      if (i % 11 == 3) {
        purchases.add(sent.add(purchasesTopic, 0, null));
      }
    }
    clicks.forEach((p, values) -> broker.send(clicksTopic, p, values));
    broker.send(purchasesTopic, 0, purchases);
  }

  private void add(
      String topic, int partition, JoinOracle.Event e, Map<Integer, List<String>> values) {
    values.computeIfAbsent(partition, p -> new ArrayList<>()).add(sent.add(topic, partition, e));
  }

  private record Expected(List<List<Object>> rows, List<String> lateIds) {}

  /** The oracle over every batch the checkpoint recorded. */
  private Expected expected() throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    List<JoinOracle.Batch> batches = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("checkpoint").toString(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      for (long b = 0; checkpoint.offsets(b).isPresent(); b++) {
        batches.add(sent.batch(checkpoint.offsets(b).get()));
      }
    }
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

  private void assertSinkIsTheOracles() throws Exception {
    Expected expected = expected();
    assertThat(expected.rows()).isNotEmpty();
    assertThat(expected.rows()).as("some clicks matched nothing").anyMatch(r -> r.get(3) == null);
    try (ObjectStore store =
        ObjectStores.open(dir.resolve("tables/attribution").toString(), null)) {
      assertThat(DeltaTable.open(store, TableOptions.defaults()).snapshot().schema().fieldNames())
          .doesNotContain("p__kafka_topic");
      List<List<Object>> got = JoinOracle.sinkRows(store);
      assertThat(got).containsExactlyInAnyOrderElementsOf(expected.rows());
    }
  }

  /** Whether the latest offsets entry ends at every partition's end, both inputs. */
  private boolean readToTheEnd() throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    try (ObjectStore store = ObjectStores.open(dir.resolve("checkpoint").toString(), null)) {
      OffsetsEntry last =
          Checkpoint.open(store, spec.id(), spec.checkpointIdentity())
              .latestOffsets()
              .orElseThrow();
      Map<String, Long> ends = new HashMap<>();
      last.ranges().forEach((p, r) -> ends.put(p.topic() + "/" + p.partition(), r.end()));
      return ends.equals(sent.ends());
    }
  }
}
