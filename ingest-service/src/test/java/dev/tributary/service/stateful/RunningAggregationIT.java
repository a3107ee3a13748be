package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Running aggregations against the real broker, end to end into local Delta tables, in two
 * available-now runs (the second restores the state the first committed): update mode merges one
 * row per key into the table across batches and runs (partitioned by the group-by column, and with
 * no key at all for a global aggregation), complete mode rewrites the result. The tables must equal
 * {@link OracleAggregates}'s result over all events.
 */
class RunningAggregationIT {
  private static final int PER_BATCH = 40;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  private static final String MEASURES =
      """
        measures: { events: count(), total: sum(amount), first_ts: first(event_ts), last_quantity: last(quantity),
                    users: approx_count_distinct(user_id) }
      """;

  private PipelineSpec spec(String name, String topic, String query, String partitionBy) {
    String yaml =
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: ${KAFKA_BOOTSTRAP}
            topics: [%s]
            starting-offsets: earliest
            max-offsets-per-trigger: %d
        format:
          json:
            schema: { event_id: string, user_id: string, event_type: string, event_ts: timestamp,
                      amount: "decimal(10,2)", quantity: int }
        %s
        sink: { delta: { path: %s, partition-by: %s } }
        checkpoint: %s
        """
            .formatted(
                name,
                topic,
                PER_BATCH,
                query,
                dir.resolve(name + "-table"),
                partitionBy,
                dir.resolve(name + "-checkpoint"));
    return PipelineParser.parse(
        yaml, name + ".yaml", Map.of("KAFKA_BOOTSTRAP", broker.bootstrapServers()));
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

  /** The table's rows in the pipeline's output column order (partition columns included). */
  private static List<List<Object>> table(PipelineSpec spec) throws Exception {
    try (ObjectStore store = ObjectStores.open(spec.sink().path(), null)) {
      List<String> columns =
          DeltaTable.open(store, TableOptions.defaults()).snapshot().schema().fieldNames();
      assertThat(columns).containsExactlyElementsOf(spec.outputColumns());
      List<List<Object>> out = new ArrayList<>();
      for (Object[] r : TableContents.rows(store)) {
        out.add(Arrays.asList(r));
      }
      return out;
    }
  }

  /** Sends the events in two parts with a run after each; returns the progress of both runs. */
  private List<BatchProgress> twoRuns(PipelineSpec spec, String topic, List<Event> events)
      throws Exception {
    broker.send(topic, 0, events.subList(0, 130).stream().map(RunningAggregationIT::json).toList());
    List<BatchProgress> progress = new ArrayList<>(run(spec));
    broker.send(
        topic,
        0,
        events.subList(130, events.size()).stream().map(RunningAggregationIT::json).toList());
    progress.addAll(run(spec));
    return progress;
  }

  @Test
  void updateModeMergesOneRowPerKeyAcrossBatchesAndRunsIntoAPartitionedTable() throws Exception {
    String topic = broker.createTopic("running-update", 1);
    PipelineSpec spec =
        spec(
            "running-update",
            topic,
            """
        aggregate:
          group-by: [event_type]
        """
                + MEASURES
                + "output-mode: update\n",
            "[event_type]");
    List<Event> events = EventStream.generate(7, 300);
    List<BatchProgress> progress = twoRuns(spec, topic, events);

    assertThat(progress).hasSizeGreaterThanOrEqualTo(300 / PER_BATCH);
    List<List<Object>> expected = OracleAggregates.running(spec.aggregate().orElseThrow(), events);
    assertThat(expected).hasSize(3);
    assertThat(table(spec)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(progress.get(progress.size() - 1).state()).containsEntry("aggregate.keys", 3L);
  }

  @Test
  void aGlobalAggregationIsOneRowReplacedEveryBatch() throws Exception {
    String topic = broker.createTopic("running-global", 1);
    PipelineSpec spec =
        spec("running-global", topic, "aggregate:\n" + MEASURES + "output-mode: update\n", "[]");
    List<Event> events = EventStream.generate(8, 200);
    twoRuns(spec, topic, events);

    assertThat(table(spec))
        .containsExactlyElementsOf(
            OracleAggregates.running(spec.aggregate().orElseThrow(), events));
  }

  @Test
  void completeModeRewritesEveryKeyEachBatch() throws Exception {
    String topic = broker.createTopic("running-complete", 1);
    PipelineSpec spec =
        spec(
            "running-complete",
            topic,
            """
        aggregate:
          group-by: [user_id, event_type]
        """
                + MEASURES
                + "output-mode: complete\n",
            "[]");
    List<Event> events = EventStream.generate(9, 250);
    twoRuns(spec, topic, events);

    List<List<Object>> expected = OracleAggregates.running(spec.aggregate().orElseThrow(), events);
    assertThat(expected).hasSizeGreaterThan(10);
    assertThat(table(spec)).containsExactlyInAnyOrderElementsOf(expected);
  }
}
