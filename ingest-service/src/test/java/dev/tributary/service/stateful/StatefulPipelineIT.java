package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.stateful.EventStream.Event;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The example stateful pipelines from YAML against the real broker, end to end into local Delta
 * tables, in two available-now runs (the second restores the state the first committed). One
 * partition and 50 offsets per batch make the batches known, so the tables must equal the {@link
 * Oracle}'s result for the same batches.
 */
class StatefulPipelineIT {
  private static final int PER_BATCH = 50;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  private PipelineSpec spec(String name, String topic) throws Exception {
    String yaml =
        Files.readString(Path.of("../pipelines/" + name + ".yaml"))
            .replace(
                "starting-offsets: earliest",
                "starting-offsets: earliest\n    max-offsets-per-trigger: " + PER_BATCH);
    return PipelineParser.parse(
        yaml,
        name + ".yaml",
        Map.of(
            "KAFKA_BOOTSTRAP",
            broker.bootstrapServers(),
            "EVENTS_TOPIC",
            topic,
            "TRIBUTARY_DATA",
            dir.toString()));
  }

  private static String json(Event e) {
    return "{\"event_id\":\""
        + e.id()
        + "\",\"user_id\":\""
        + e.user()
        + "\",\"event_type\":\""
        + e.type()
        + "\",\"event_ts\":\""
        + e.ts()
        + "\",\"amount\":"
        + (e.amount() == null ? "null" : e.amount().toPlainString())
        + ",\"quantity\":"
        + e.quantity()
        + "}";
  }

  private List<BatchProgress> run(PipelineSpec spec) throws Exception {
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress.last(1000);
  }

  private List<List<Object>> table(String path, int width) throws Exception {
    try (ObjectStore store = ObjectStores.open(path, null)) {
      List<List<Object>> out = new ArrayList<>();
      for (Object[] r : TableContents.rows(store)) {
        out.add(Arrays.asList(Arrays.copyOf(r, width)));
      }
      return out;
    }
  }

  private static List<List<Event>> chunks(List<Event> events) {
    List<List<Event>> out = new ArrayList<>();
    for (int i = 0; i < events.size(); i += PER_BATCH) {
      out.add(events.subList(i, Math.min(events.size(), i + PER_BATCH)));
    }
    return out;
  }

  /** The oracle's input rows name the topic "events"; the real one has a unique name. */
  private static List<List<Object>> withTopic(
      List<List<Object>> rows, List<String> columns, String topic) {
    int at = columns.indexOf("_kafka_topic");
    List<List<Object>> out = new ArrayList<>();
    for (List<Object> r : rows) {
      List<Object> copy = new ArrayList<>(r);
      if (copy.size()
          >= columns.size()) { // an input row, or a late row (input row + why it was late)
        copy.set(at, topic);
      }
      out.add(copy);
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "stateful-tumbling-append",
        "stateful-sliding-update",
        "stateful-session-append",
        "stateful-tumbling-complete",
        "stateful-dedup-within-watermark",
        "stateful-running-update"
      })
  void examplePipelineMatchesTheOracleAcrossARestart(String name) throws Exception {
    String topic = broker.createTopic(name, 1);
    PipelineSpec spec = spec(name, topic);
    StatefulPlan plan = PipelineFactory.compile(spec).stateful().orElseThrow();
    List<String> columns = plan.inputSchema().fieldNames();
    List<Event> events = EventStream.generate(name.length(), 420);
    List<Event> firstPart = events.subList(0, 230);
    List<Event> secondPart = events.subList(230, events.size());
    broker.send(topic, 0, firstPart.stream().map(StatefulPipelineIT::json).toList());
    List<BatchProgress> first = run(spec);
    broker.send(topic, 0, secondPart.stream().map(StatefulPipelineIT::json).toList());
    List<BatchProgress> second = run(spec);

    List<List<Event>> batches = new ArrayList<>(chunks(firstPart));
    // where the first run may have ended with a no-data batch (an empty batch changes nothing
    // otherwise)
    batches.add(List.of());
    batches.addAll(chunks(secondPart));
    Oracle.Expected oracle = Oracle.compute(spec, columns, batches);
    Oracle.Expected expected =
        new Oracle.Expected(
            withTopic(oracle.table(), columns, topic), withTopic(oracle.late(), columns, topic));
    int width = plan.outputSchema().size();
    if (plan.aggregates()) {
      assertThat(table(spec.sink().path(), width))
          .containsExactlyInAnyOrderElementsOf(expected.table());
    } else {
      // the Kafka timestamp is the broker's: compare everything before it
      assertThat(table(spec.sink().path(), width - 1))
          .containsExactlyInAnyOrderElementsOf(
              expected.table().stream().map(r -> r.subList(0, width - 1)).toList());
    }
    assertThat(expected.table()).isNotEmpty();
    long lateCounted =
        first.stream().mapToLong(BatchProgress::lateRows).sum()
            + second.stream().mapToLong(BatchProgress::lateRows).sum();
    assertThat(lateCounted).isEqualTo(expected.late().size());
    List<BatchProgress> all = new ArrayList<>(first);
    all.addAll(second);
    long perOperator =
        all.stream()
            .mapToLong(
                b ->
                    b.state().getOrDefault("dedup.lateRows", 0L)
                        + b.state().getOrDefault("aggregate.lateRows", 0L))
            .sum();
    assertThat(perOperator)
        .as("late rows per operator in the state metrics")
        .isEqualTo(lateCounted);
    if (spec.outputMode() == OutputMode.COMPLETE) {
      assertThat(lateCounted)
          .as("a tumbling window in complete mode ignores the watermark (Spark)")
          .isZero();
    } else {
      assertThat(lateCounted).isPositive();
    }
    if (spec.lateEvents().isPresent()) {
      // the input columns but the broker's Kafka timestamp (the last), then operator, watermark,
      // window
      int kafkaTimestamp = columns.size() - 1;
      List<List<Object>> lateTable = table(spec.lateEvents().get().path(), columns.size() + 4);
      assertThat(lateTable.stream().map(r -> withoutColumn(r, kafkaTimestamp)).toList())
          .containsExactlyInAnyOrderElementsOf(
              expected.late().stream().map(r -> withoutColumn(r, kafkaTimestamp)).toList());
    }
    assertThat(second.get(0).replayed()).isFalse();
    assertThat(second.get(second.size() - 1).state()).containsKey("keys");
    assertTwoWatermarksPerBatch(spec, first.size() + second.size());
  }

  /**
   * Every batch's offsets entry holds the watermark it evicts with (the previous commit's next
   * watermark) and the one it judges late rows with (the previous batch's), across the restart.
   */
  private static void assertTwoWatermarksPerBatch(PipelineSpec spec, int batches) throws Exception {
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      Checkpoint checkpoint = PipelineFactory.checkpoint(spec, store);
      for (long n = 1; n < batches; n++) {
        var entry = checkpoint.offsets(n).orElseThrow();
        assertThat(entry.watermarkMicros())
            .isEqualTo(checkpoint.commit(n - 1).orElseThrow().nextWatermarkMicros());
        // the previous batch's, or the epoch when that batch had none (batch 0 of a new checkpoint)
        long previous = checkpoint.offsets(n - 1).orElseThrow().watermarkMicros().orElse(0);
        assertThat(entry.lateWatermarkMicros()).hasValue(previous);
      }
      assertThat(checkpoint.offsets(batches - 1).orElseThrow().watermarkMicros()).isPresent();
    }
  }

  private static List<Object> withoutColumn(List<Object> row, int column) {
    List<Object> out = new ArrayList<>(row);
    out.remove(column);
    return out;
  }

  @Test
  void theNoDataBatchARunStoppedBeforeRunsAtTheNextStart() throws Exception {
    String name = "stateful-tumbling-append";
    String topic = broker.createTopic(name + "-stopped", 1);
    PipelineSpec spec = spec(name, topic);
    List<String> columns =
        PipelineFactory.compile(spec).stateful().orElseThrow().inputSchema().fieldNames();
    List<Event> events = EventStream.generate(11, 140);
    broker.send(topic, 0, events.stream().map(StatefulPipelineIT::json).toList());

    // The first run stops as soon as the last batch with data is committed: the no-data batch
    // that would emit the windows its watermark passed does not run.
    ProgressLog progress = new ProgressLog(1000);
    AtomicLong read = new AtomicLong();
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      progress.addListener(
          p -> {
            if (read.addAndGet(p.inputRows()) == events.size()) {
              run.stop();
            }
          });
      run.run();
    }
    int width = PipelineFactory.compile(spec).stateful().orElseThrow().outputSchema().size();
    List<List<Object>> afterStop = table(spec.sink().path(), width);

    List<BatchProgress> second = run(spec); // no new data

    List<List<Event>> batches = new ArrayList<>(chunks(events));
    batches.add(List.of());
    List<List<Object>> expected = Oracle.compute(spec, columns, batches).table();
    assertThat(second).first().satisfies(b -> assertThat(b.inputRows()).isZero());
    assertThat(table(spec.sink().path(), width)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(afterStop)
        .as("windows only the no-data batch emits")
        .hasSizeLessThan(expected.size());
  }
}
