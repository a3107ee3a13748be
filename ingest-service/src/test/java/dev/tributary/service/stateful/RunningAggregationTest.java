package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineValidationException;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import dev.tributary.table.types.StructField;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Running aggregations ({@code aggregate} without a window): the plan, each output mode over a real
 * state store across batches, restarts and replays, the watermark's (absent) effect, and the
 * measures first, last and approx_count_distinct in them.
 */
class RunningAggregationTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;

  private static final String UPDATE =
      """
      aggregate:
        group-by: [event_type]
        measures: { events: count(), amount: sum(amount), first_q: first(quantity), last_q: last(quantity),
                    first_ts: first(event_ts), users: approx_count_distinct(user_id) }
      output-mode: update
      """;

  private static StatefulPlan plan(String query) {
    return PipelineFactory.compile(StatefulOperatorsTest.spec(query)).stateful().orElseThrow();
  }

  private static Object[] event(
      String id, String user, String type, int minute, String amount, Integer quantity) {
    return StatefulOperatorsTest.event(id, user, type, minute, amount, quantity);
  }

  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  private static Instant at(int minute) {
    return T.plusSeconds(60L * minute);
  }

  @Test
  void theOutputIsGroupByThenMeasuresAndUpdateMergesByTheGroupByColumns() {
    StatefulPlan plan = plan(UPDATE);
    assertThat(plan.runningAggregation()).isTrue();
    assertThat(plan.outputSchema().fields())
        .extracting(f -> f.name() + " " + f.type().deltaName())
        .containsExactly(
            "event_type string",
            "events long",
            "amount decimal(20,2)",
            "first_q integer",
            "last_q integer",
            "first_ts timestamp",
            "users long");
    assertThat(plan.keyColumns()).containsExactly("event_type");
    assertThat(plan(UPDATE.replace("group-by: [event_type]", "group-by: []")).keyColumns())
        .isEmpty();
    assertThat(plan.outputSchema().fields())
        .extracting(StructField::name)
        .doesNotContain("window_start");
  }

  @Test
  void appendIsRefusedBecauseNoRunningRowIsEverFinal() {
    assertThatThrownBy(
            () ->
                StatefulOperatorsTest.spec(
                    UPDATE.replace("output-mode: update", "output-mode: append")
                        + "watermark: { column: event_ts, delay: 1 minute }\n"))
        .isInstanceOf(PipelineValidationException.class)
        .hasMessageContaining(
            "output-mode: output-mode append (the default) cannot write an aggregation without a"
                + " window: a running aggregation's rows change with every new event and are never final")
        .hasMessageContaining("Declare output-mode: update");
  }

  @Test
  void lateEventsAreRefusedWhereNothingCanBeLate() {
    String query =
        "watermark: { column: event_ts, delay: 1 minute }\nlate-events: { delta: { path: /tmp/late } }\n"
            + UPDATE;
    assertThatThrownBy(() -> PipelineFactory.compile(StatefulOperatorsTest.spec(query)))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining(
            "late-events: no row can be late for a running aggregation (aggregate without window)"
                + " without deduplicate");
    assertThat(plan(query + "deduplicate: { keys: [event_id, event_ts] }\n").runningAggregation())
        .isTrue();
  }

  @Test
  void updateModeWritesTheChangedKeysOfEachBatchAndKeepsEveryKeyAcrossRestarts() throws Exception {
    try (Direct q = new Direct(plan(UPDATE))) {
      assertThat(
              q.batch(
                  event("a", "u1", "click", 1, "1.50", null),
                  event("b", "u2", "view", 2, "2.00", 4),
                  event("c", "u2", "click", 3, null, 7)))
          .containsExactlyInAnyOrder(
              row("click", 2L, new BigDecimal("1.50"), null, 7, at(1), 2L),
              row("view", 1L, new BigDecimal("2.00"), 4, 4, at(2), 1L));
      q.restart();
      // Only the key this batch changed; first_q stays the null of the first row, from state.
      assertThat(q.batch(event("d", "u1", "click", 0, "1.00", null)))
          .containsExactly(row("click", 3L, new BigDecimal("2.50"), null, null, at(1), 2L));
      q.restart();
      assertThat(q.batch(event("e", "u3", "click", 9, "1.00", 2)))
          .containsExactly(row("click", 4L, new BigDecimal("3.50"), null, 2, at(1), 3L));
      assertThat(q.query.metrics())
          .containsEntry("aggregate.keys", 2L)
          .containsEntry("aggregate.windowsEvicted", 0L);
    }
  }

  @Test
  void aReplayedBatchYieldsTheSameRowsAndState() throws Exception {
    StatefulPlan plan = plan(UPDATE);
    try (QueryRunner r = new QueryRunner(plan, dir)) {
      r.batch(
          List.<Object[]>of(event("a", "u1", "click", 1, "1.00", 1)),
          QueryRunner.Crash.BEFORE_STATE_COMMIT);
      r.batch(
          List.<Object[]>of(event("b", "u2", "click", 2, "1.00", 2)),
          QueryRunner.Crash.BEFORE_SINK_COMMIT);
      r.restart();
      r.batch(
          List.<Object[]>of(event("c", "u1", "view", 3, "1.00", 3)),
          QueryRunner.Crash.BEFORE_STATE_COMMIT);
      assertThat(r.table())
          .containsExactlyInAnyOrder(
              row("click", 2L, new BigDecimal("2.00"), 1, 2, at(1), 2L),
              row("view", 1L, new BigDecimal("1.00"), 3, 3, at(3), 1L));
    }
  }

  @Test
  void completeModeWritesEveryKeyEachBatch() throws Exception {
    try (Direct q =
        new Direct(plan(UPDATE.replace("output-mode: update", "output-mode: complete")))) {
      q.batch(event("a", "u1", "click", 1, "1.00", 1), event("b", "u1", "view", 1, "1.00", 1));
      q.restart();
      assertThat(q.batch(event("c", "u2", "buy", 2, "1.00", 1)))
          .containsExactlyInAnyOrder(
              row("buy", 1L, new BigDecimal("1.00"), 1, 1, at(2), 1L),
              row("click", 1L, new BigDecimal("1.00"), 1, 1, at(1), 1L),
              row("view", 1L, new BigDecimal("1.00"), 1, 1, at(1), 1L));
      assertThat(q.batch()).hasSize(3);
    }
  }

  @Test
  void theWatermarkMakesNothingLateAndEvictsNothingInARunningAggregation() throws Exception {
    String query = "watermark: { column: event_ts, delay: 1 minute }\n" + UPDATE;
    try (Direct q = new Direct(plan(query))) {
      q.batch(event("a", "u1", "click", 60, "1.00", 1));
      // 50 minutes behind the watermark, and one without event time: both counted, as in Spark.
      assertThat(
              q.batch(
                  event("b", "u1", "click", 10, "1.00", 2),
                  event("c", "u1", "click", 0, "1.00", 3)))
          .containsExactly(row("click", 3L, new BigDecimal("3.00"), 1, 3, at(60), 1L));
      Object[] noTime = event("d", "u1", "click", 0, "1.00", 4);
      noTime[3] = null;
      assertThat(q.batch(noTime))
          .containsExactly(row("click", 4L, new BigDecimal("4.00"), 1, 4, at(60), 1L));
      assertThat(q.late).isEmpty();
      assertThat(q.watermark).hasValue(Oracle.micros(at(59)));
    }
  }

  @Test
  void aDeduplicationBeforeARunningAggregationStillUsesTheWatermark() throws Exception {
    String query =
        "watermark: { column: event_ts, delay: 1 minute }\ndeduplicate: { keys: [event_id, event_ts] }\n"
            + UPDATE;
    try (Direct q = new Direct(plan(query))) {
      q.batch(event("a", "u1", "click", 60, "1.00", 1));
      // The no-data batch Spark runs next: it evicts with 00:59 and still judges lateness by the
      // first batch's watermark (the epoch); only the batch after it drops rows behind 00:59.
      assertThat(q.batch()).isEmpty();
      assertThat(
              q.batch(
                  event("b", "u1", "click", 10, "1.00", 2),
                  event("a", "u1", "click", 60, "1.00", 1)))
          .isEmpty();
      assertThat(q.late).extracting(r -> r[0]).containsExactly("b");
    }
  }

  @Test
  void aGlobalAggregationIsOneRowWrittenEveryBatch() throws Exception {
    String query = UPDATE.replace("group-by: [event_type]", "group-by: []");
    try (Direct q = new Direct(plan(query))) {
      assertThat(q.batch()).containsExactly(row(0L, null, null, null, null, 0L));
      assertThat(
              q.batch(
                  event("a", "u1", "click", 1, "1.00", 5),
                  event("b", "u2", "view", 2, "2.00", null)))
          .containsExactly(row(2L, new BigDecimal("3.00"), 5, null, at(1), 2L));
      q.restart();
      assertThat(q.batch()).containsExactly(row(2L, new BigDecimal("3.00"), 5, null, at(1), 2L));
      assertThat(q.query.metrics()).containsEntry("aggregate.keys", 1L);
    }
  }

  /** Drives a {@link StatefulQuery} batch by batch, collecting each batch's output rows. */
  private final class Direct implements AutoCloseable {
    private final StatefulPlan plan;
    private final ObjectStore checkpoint;
    private StatefulQuery query;
    private long batch;
    private OptionalLong watermark = OptionalLong.empty();
    private OptionalLong lateWatermark = OptionalLong.empty();
    final List<Object[]> late = new ArrayList<>();

    Direct(StatefulPlan plan) throws Exception {
      this.plan = plan;
      this.checkpoint =
          ObjectStores.open(dir.resolve("checkpoint").toString(), S3Settings.defaults());
      this.query = new StatefulQuery(plan, checkpoint, dir.resolve("local"));
    }

    List<List<Object>> batch(Object[]... rows) throws Exception {
      List<Object[]> out = new ArrayList<>();
      Emitter emitter =
          new Emitter() {
            @Override
            public void output(Object[] row) {
              out.add(row);
            }

            @Override
            public void late(Object[] row, Late why) {
              late.add(row);
            }

            @Override
            public void filtered() {}
          };
      query.begin(batch, watermark, lateWatermark);
      for (Object[] row : rows) {
        query.accept(row, 0, emitter);
      }
      query.end(emitter);
      lateWatermark = watermark;
      watermark = query.nextWatermark();
      query.commit(batch++);
      return QueryRunner.rowsOf(out);
    }

    void restart() {
      query.close();
      query = new StatefulQuery(plan, checkpoint, dir.resolve("local"));
    }

    @Override
    public void close() throws Exception {
      query.close();
      checkpoint.close();
    }
  }
}
