package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.Measure;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each operator on small hand-checked inputs: watermark, dedup, tumbling/sliding/session windows,
 * modes.
 */
class StatefulOperatorsTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;

  static PipelineSpec spec(String query) {
    String yaml =
        """
        pipeline: ops
        source: { kafka: { bootstrap-servers: "localhost:9092", topics: [events] } }
        format:
          json:
            schema: { event_id: string, user_id: string, event_type: string, event_ts: timestamp,
                      amount: "decimal(10,2)", quantity: int }
        %s
        sink: { delta: { path: /tmp/unused } }
        checkpoint: /tmp/unused-checkpoint
        """
            .formatted(query);
    return PipelineParser.parse(yaml, "ops.yaml", Map.of());
  }

  private QueryRunner runner(String query) throws Exception {
    return new QueryRunner(PipelineFactory.compile(spec(query)).stateful().orElseThrow(), dir);
  }

  /** A row of the plan's input schema: the six declared columns, then the Kafka columns. */
  static Object[] event(
      String id, String user, String type, int minute, String amount, Integer quantity) {
    return new Object[] {
      id,
      user,
      type,
      T.plusSeconds(60L * minute),
      amount == null ? null : new BigDecimal(amount),
      quantity,
      "events",
      0,
      0L,
      T
    };
  }

  private static List<Object[]> rows(Object[]... rows) {
    return new ArrayList<>(Arrays.asList(rows));
  }

  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  private static Instant at(int minute) {
    return T.plusSeconds(60L * minute);
  }

  private static final String SEED =
      """
      watermark: { column: event_ts, delay: 10 minutes }
      deduplicate: { keys: [event_id, event_ts] }
      aggregate:
        window: { column: event_ts, size: 5 minutes }
        group-by: [event_type]
        measures: { events: count(), amount: sum(amount) }
      output-mode: append
      """;

  @Test
  void watermarkTrailsTheMaxEventTimeAndNeverGoesBack() throws Exception {
    try (QueryRunner r = runner(SEED)) {
      r.batch(rows(event("a", "u", "click", 30, "1.00", 1)), QueryRunner.Crash.NONE);
      assertThat(r.watermark()).hasValue(Oracle.micros(at(20)));
      // evicts with 20 but judges late rows with the previous batch's watermark (the epoch): c is
      // kept
      r.batch(
          rows(event("b", "u", "click", 25, "1.00", 1), event("c", "u", "click", 15, "1.00", 1)),
          QueryRunner.Crash.NONE);
      assertThat(r.watermark()).hasValue(Oracle.micros(at(20)));
      assertThat(r.late()).isEmpty();
      // now late rows are judged with 20: at or behind it (Spark's <=) is late for dedup
      r.batch(
          rows(
              event("d", "u", "click", 19, "1.00", 1),
              event("e", "u", "click", 20, "1.00", 1),
              event("f", "u", "click", 21, "1.00", 1)),
          QueryRunner.Crash.NONE);
      assertThat(r.late())
          .extracting(l -> l.get(0) + "/" + l.get(10) + "/" + l.get(11))
          .containsExactly("d/deduplicate/" + at(20), "e/deduplicate/" + at(20));
    }
  }

  @Test
  void appendEmitsAWindowOnceTheWatermarkPassesItsEndThenEvictsIt() throws Exception {
    try (QueryRunner r = runner(SEED)) {
      r.batch(
          rows(
              event("a", "u", "click", 1, "1.50", 1),
              event("b", "u", "click", 4, "2.25", 1),
              event("a", "u", "click", 1, "1.50", 1),
              event("c", "u", "view", 6, null, 1)),
          QueryRunner.Crash.NONE);
      assertThat(r.table()).isEmpty();
      r.batch(rows(event("d", "u", "buy", 16, "3.00", 1)), QueryRunner.Crash.NONE);
      assertThat(r.table())
          .isEmpty(); // the watermark of this batch was 6 - 10 minutes: nothing closed yet
      r.drain(); // a no-data batch applies watermark 16 - 10 = 6: [0, 5) is closed
      assertThat(r.table()).containsExactly(row(at(0), at(5), "click", 2L, new BigDecimal("3.75")));
      assertThat(r.metrics())
          .containsEntry("aggregate.windowsEvicted", 1L)
          .containsEntry("aggregate.keys", 2L);
      r.batch(rows(event("e", "u", "view", 40, "1.00", 1)), QueryRunner.Crash.NONE);
      r.drain();
      assertThat(r.table())
          .contains(
              row(at(5), at(10), "view", 1L, null),
              row(at(15), at(20), "buy", 1L, new BigDecimal("3.00")));
    }
  }

  @Test
  void dedupWithEventTimeForgetsKeysTheWatermarkPassed() throws Exception {
    try (QueryRunner r = runner(SEED)) {
      r.batch(
          rows(
              event("a", "u", "click", 1, "1", 1),
              event("a", "u", "click", 1, "1", 1),
              event("a", "u", "click", 2, "1", 1)),
          QueryRunner.Crash.NONE);
      assertThat(r.metrics()).containsEntry("dedup.duplicatesDropped", 1L);
      r.batch(rows(event("z", "u", "click", 30, "1", 1)), QueryRunner.Crash.NONE);
      r.drain();
      // evicted by the no-data batch (watermark 20): a@1 and a@2; left: z@30 (its key holds its
      // expiry)
      assertThat(r.metrics())
          .containsEntry("dedup.keysEvicted", 2L)
          .containsEntry("dedup.keys", 1L);
    }
  }

  @Test
  void withinWatermarkDedupLetsAKeyAgainOnceTheFirstOccurrencePlusDelayIsPassed() throws Exception {
    try (QueryRunner r =
        runner(
            """
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id], within-watermark: true }
        """)) {
      r.batch(
          rows(event("a", "u", "click", 0, "1", 1), event("a", "u", "view", 5, "1", 1)),
          QueryRunner.Crash.NONE);
      // evicts with 5 - 10 = -5, floored at the epoch (Spark's watermark starts at 0 and never goes
      // below)
      r.batch(rows(event("b", "u", "click", 25, "1", 1)), QueryRunner.Crash.NONE);
      r.batch(
          rows(), QueryRunner.Crash.NONE); // a no-data batch evicts with 15 >= 0 + 10: "a" expires
      r.batch(rows(event("a", "u", "buy", 20, "1", 1)), QueryRunner.Crash.NONE);
      assertThat(r.table())
          .extracting(x -> x.get(0) + "/" + x.get(2))
          .containsExactly("a/click", "b/click", "a/buy");
    }
  }

  @Test
  void aLongSumBeyondTheLongRangeIsNullNotWrappedAndComesBackWhenItFitsAgain() {
    Measures m =
        new Measures(
            new LinkedHashMap<>(Map.of("total", Measure.parse("sum(n)"))),
            StructType.of(StructField.nullable("n", PrimitiveType.LONG)),
            new ArrayList<>());
    Object[] buffer = m.newBuffer();
    m.add(buffer, new Object[] {Long.MAX_VALUE});
    m.add(buffer, new Object[] {1L});
    assertThat(m.results(buffer)).containsExactly((Object) null);
    Object[] decoded = m.decode(m.encode(buffer), 0); // the exact sum survives the state store
    m.add(decoded, new Object[] {-2L});
    assertThat(m.results(decoded)).containsExactly(Long.MAX_VALUE - 1);
  }

  @Test
  void slidingWindowCountsAnEventInEveryWindowThatHoldsIt() throws Exception {
    try (QueryRunner r =
        runner(
            """
        aggregate:
          window: { column: event_ts, size: 10 minutes, slide: 5 minutes }
          measures: { n: count(), low: min(quantity), high: max(quantity), mean: avg(quantity) }
        output-mode: update
        """)) {
      r.batch(
          rows(event("a", "u", "click", 7, null, 2), event("b", "u", "click", 8, null, 5)),
          QueryRunner.Crash.NONE);
      r.batch(rows(event("c", "u", "click", 12, null, null)), QueryRunner.Crash.NONE);
      assertThat(r.table())
          .containsExactlyInAnyOrder(
              row(at(0), at(10), 2L, 2, 5, 3.5),
              row(at(5), at(15), 3L, 2, 5, 3.5),
              row(at(10), at(20), 1L, null, null, null));
    }
  }

  @Test
  void sessionsMergeWhenAnEventBridgesThemAndRecountDistinctValues() throws Exception {
    try (QueryRunner r =
        runner(
            """
        aggregate:
          window: { column: event_ts, session-gap: 5 minutes }
          group-by: [user_id]
          measures: { n: count(), types: count_distinct(event_type) }
        output-mode: complete
        """)) {
      r.batch(
          rows(
              event("a", "u1", "click", 0, null, 1),
              event("b", "u1", "view", 8, null, 1),
              event("c", "u2", "view", 1, null, 1)),
          QueryRunner.Crash.NONE);
      assertThat(r.table())
          .containsExactlyInAnyOrder(
              row(at(0), at(5), "u1", 1L, 1L),
              row(at(8), at(13), "u1", 1L, 1L),
              row(at(1), at(6), "u2", 1L, 1L));
      r.batch(rows(event("d", "u1", "click", 4, null, 1)), QueryRunner.Crash.NONE);
      assertThat(r.table())
          .containsExactlyInAnyOrder(
              row(at(0), at(13), "u1", 3L, 2L), row(at(1), at(6), "u2", 1L, 1L));
      // a session ending exactly where the next event starts is merged with it (Spark: start <=
      // end)
      r.batch(rows(event("e", "u2", "click", 6, null, 1)), QueryRunner.Crash.NONE);
      assertThat(r.table())
          .containsExactlyInAnyOrder(
              row(at(0), at(13), "u1", 3L, 2L), row(at(1), at(11), "u2", 2L, 2L));
    }
  }

  @Test
  void updateModeEmitsOnlyTheGroupsABatchChanged() throws Exception {
    try (QueryRunner r =
        runner(
            """
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures: { n: count() }
        output-mode: update
        """)) {
      r.batch(
          rows(event("a", "u", "click", 1, null, 1), event("b", "u", "view", 1, null, 1)),
          QueryRunner.Crash.NONE);
      r.batch(rows(event("c", "u", "click", 2, null, 1)), QueryRunner.Crash.NONE);
      assertThat(r.table())
          .containsExactlyInAnyOrder(row(at(0), at(5), "click", 2L), row(at(0), at(5), "view", 1L));
    }
  }

  @Test
  void oldStateFilesArePurgedAndTheLatestVersionStillLoads() throws Exception {
    try (QueryRunner r = runner(SEED)) {
      for (int b = 0; b < 45; b++) {
        r.batch(rows(event("e" + b, "u", "click", b, "1", 1)), QueryRunner.Crash.NONE);
      }
      r.restart();
      r.batch(rows(event("e44", "u", "click", 44, "1", 1)), QueryRunner.Crash.NONE);
      assertThat(r.metrics()).containsEntry("dedup.duplicatesDropped", 1L);
    }
    try (Stream<Path> files = Files.list(dir.resolve("checkpoint/state/dedup-by-time"))) {
      // file names are <version, 20 digits>.delta|.snapshot; the purge at batch 40 keeps what
      // version 20 needs
      List<Long> versions =
          files.map(p -> Long.parseLong(p.getFileName().toString().split("\\.")[0])).toList();
      assertThat(versions).isNotEmpty().allMatch(v -> v >= 9).contains(44L);
    }
  }

  @Test
  void declarationsThatCannotRunAreRefusedWithTheKeyConcerned() {
    assertThatThrownBy(
            () ->
                PipelineFactory.compile(
                    spec(
                        """
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          measures: { total: sum(event_type) }
        output-mode: update
        """)))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining(
            "aggregate.measures.total: sum needs a numeric column but 'event_type' is string");
    assertThatThrownBy(
            () ->
                PipelineFactory.compile(
                    spec(
                        """
        watermark: { column: event_ts, delay: 1 minute }
        aggregate:
          window: { column: event_ts, session-gap: 5 minutes }
          measures: { n: count() }
        output-mode: update
        """)))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("output-mode: update is not supported with session windows");
  }

  @Test
  void outputColumnsAreWindowGroupByThenMeasures() {
    StatefulPlan plan = PipelineFactory.compile(spec(SEED)).stateful().orElseThrow();
    assertThat(plan.outputSchema().fieldNames())
        .containsExactly("window_start", "window_end", "event_type", "events", "amount");
    assertThat(plan.outputSchema().fields().get(4).type().deltaName()).isEqualTo("decimal(20,2)");
    assertThat(new ArrayList<>(plan.keyColumns()))
        .containsExactly("window_start", "window_end", "event_type");
  }
}
