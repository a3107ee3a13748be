package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.service.pipeline.PipelineFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark's per-operator late rules, on hand-checked inputs: a window aggregation judges each (row,
 * window) pair by the window's end ({@code end <= watermark}), the late watermark is the one the
 * previous batch evicted with (two watermarks per batch), complete mode ignores the watermark, a
 * session row is late when its own session ends at or before the watermark.
 */
class LateRulesTest {
  private static final Instant NOON = Instant.parse("2026-01-01T12:00:00Z");
  @TempDir Path dir;

  private static final String TUMBLING =
      """
      watermark: { column: event_ts, delay: 10 minutes }
      aggregate:
        window: { column: event_ts, size: 5 minutes }
        measures: { n: count() }
      output-mode: %s
      """;

  private QueryRunner runner(String query, String work) throws Exception {
    return new QueryRunner(
        PipelineFactory.compile(StatefulOperatorsTest.spec(query)).stateful().orElseThrow(),
        dir.resolve(work));
  }

  /** An event at 12:mm:ss. */
  private static Object[] at(String id, int minute, int second) {
    return new Object[] {id, "u", "click", time(minute, second), null, 1, "events", 0, 0L, NOON};
  }

  private static Instant time(int minute, int second) {
    return NOON.plusSeconds(60L * minute + second);
  }

  private static List<Object[]> rows(Object[]... rows) {
    return new ArrayList<>(Arrays.asList(rows));
  }

  private static List<Object> window(int fromMinute, int toMinute, long n) {
    return List.of(time(fromMinute, 0), time(toMinute, 0), n);
  }

  /** The late row's id, operator, watermark and window, as the late-events table gets them. */
  private static List<String> late(QueryRunner r) {
    return r.late().stream()
        .map(l -> l.get(0) + " " + l.get(10) + " " + l.get(11) + " " + l.get(12) + "-" + l.get(13))
        .toList();
  }

  /**
   * The picture: delay 10 minutes, max event 12:20, so the watermark is 12:10. The window
   * 12:00-12:05 is final; an event at 12:03 arriving now is dropped. By Spark's rule (window end at
   * or before the watermark) 12:05-12:10 is closed too, so 12:07 is dropped as well.
   */
  @Test
  void atWatermarkTwelveTenTheWindowsEndingAtOrBeforeItAreClosed() throws Exception {
    try (QueryRunner r = runner(TUMBLING.formatted("append"), "picture")) {
      r.batch(rows(at("a", 1, 0), at("b", 20, 0)), QueryRunner.Crash.NONE);
      assertThat(r.watermark()).hasValue(Oracle.micros(time(10, 0)));
      r.drain(); // the no-data batch evicts with 12:10
      assertThat(r.table()).containsExactly(window(0, 5, 1));
      r.batch(
          rows(at("late-03", 3, 0), at("late-07", 7, 0), at("on-time-10", 10, 0)),
          QueryRunner.Crash.NONE);
      assertThat(late(r))
          .containsExactlyInAnyOrder(
              "late-03 aggregate " + time(10, 0) + " " + time(0, 0) + "-" + time(5, 0),
              "late-07 aggregate " + time(10, 0) + " " + time(5, 0) + "-" + time(10, 0));
      r.batch(rows(at("c", 40, 0)), QueryRunner.Crash.NONE);
      r.drain();
      assertThat(r.table())
          .containsExactlyInAnyOrder(window(0, 5, 1), window(10, 15, 1), window(20, 25, 1));
    }
  }

  /**
   * The same picture one second earlier: at watermark 12:09:59 the window 12:05-12:10 still counts
   * 12:07.
   */
  @Test
  void belowTwelveTenAnEventAtTwelveOhSevenIsStillCounted() throws Exception {
    try (QueryRunner r = runner(TUMBLING.formatted("append"), "picture-earlier")) {
      r.batch(rows(at("a", 1, 0), at("b", 19, 59)), QueryRunner.Crash.NONE);
      assertThat(r.watermark()).hasValue(Oracle.micros(time(9, 59)));
      r.drain();
      r.batch(rows(at("late-03", 3, 0), at("counted-07", 7, 0)), QueryRunner.Crash.NONE);
      assertThat(late(r))
          .containsExactly(
              "late-03 aggregate " + time(9, 59) + " " + time(0, 0) + "-" + time(5, 0));
      r.batch(rows(at("c", 40, 0)), QueryRunner.Crash.NONE);
      r.drain();
      assertThat(r.table()).contains(window(0, 5, 1), window(5, 10, 1));
    }
  }

  /**
   * Two watermarks (SPARK-40925): batch N evicts with W_N and judges late rows with W_N-1. A row
   * whose window ends in (W_N-1, W_N] arriving in batch N is counted, and its window emitted by
   * batch N itself.
   */
  @Test
  void aRowWhoseWindowEndsBetweenTheTwoWatermarksIsCountedAndEmittedInTheSameBatch()
      throws Exception {
    try (QueryRunner r = runner(TUMBLING.formatted("append"), "two-watermarks")) {
      r.batch(rows(at("a", 20, 0)), QueryRunner.Crash.NONE); // W_1 = 12:10, W_0 = the epoch
      r.batch(rows(at("b", 7, 0)), QueryRunner.Crash.NONE); // window 12:05-12:10: end in (W_0, W_1]
      assertThat(r.late()).isEmpty();
      assertThat(r.table()).containsExactly(window(5, 10, 1));
    }
  }

  /**
   * A sliding window judges each window: a row is dropped from its closed windows and counted in
   * the open ones.
   */
  @Test
  void aSlidingRowIsDroppedFromItsClosedWindowsOnly() throws Exception {
    try (QueryRunner r =
        runner(
            """
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 10 minutes, slide: 5 minutes }
          measures: { n: count() }
        output-mode: update
        """,
            "sliding")) {
      r.batch(rows(at("a", 20, 0)), QueryRunner.Crash.NONE);
      r.drain();
      r.batch(
          rows(at("b", 7, 0)),
          QueryRunner.Crash.NONE); // windows 12:00-12:10 (closed) and 12:05-12:15
      assertThat(late(r))
          .containsExactly("b aggregate " + time(10, 0) + " " + time(0, 0) + "-" + time(10, 0));
      assertThat(r.table()).contains(window(5, 15, 1)).doesNotContain(window(0, 10, 1));
    }
  }

  /**
   * Complete mode keeps every window and ignores the watermark for late rows, as Spark's
   * StateStoreSaveExec.
   */
  @Test
  void completeModeCountsRowsBehindTheWatermark() throws Exception {
    try (QueryRunner r = runner(TUMBLING.formatted("complete"), "complete")) {
      r.batch(rows(at("a", 20, 0)), QueryRunner.Crash.NONE);
      r.batch(rows(at("b", 21, 0)), QueryRunner.Crash.NONE);
      r.batch(
          rows(at("c", 3, 0)), QueryRunner.Crash.NONE); // judged against 12:10: its window ended
      assertThat(r.late()).isEmpty();
      assertThat(r.table()).containsExactlyInAnyOrder(window(0, 5, 1), window(20, 25, 2));
    }
  }

  /**
   * A session row is late when its own session [t, t + gap) ends at or before the late watermark.
   */
  @Test
  void aSessionRowIsLateWhenItsOwnSessionEndsAtOrBeforeTheWatermark() throws Exception {
    try (QueryRunner r =
        runner(
            """
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, session-gap: 5 minutes }
          group-by: [user_id]
          measures: { n: count() }
        output-mode: append
        """,
            "session")) {
      r.batch(rows(at("a", 20, 0)), QueryRunner.Crash.NONE);
      r.drain(); // evicts with 12:10
      r.batch(
          rows(at("late", 5, 0), at("kept", 5, 1)),
          QueryRunner.Crash.NONE); // 12:10 <= 12:10; 12:10:01 > 12:10
      assertThat(late(r))
          .containsExactly("late aggregate " + time(10, 0) + " " + time(5, 0) + "-" + time(10, 0));
      r.batch(rows(at("b", 59, 0)), QueryRunner.Crash.NONE);
      r.drain();
      assertThat(r.table()).contains(List.of(time(5, 1), time(10, 1), "u", 1L));
    }
  }

  /**
   * A window on another column than the watermark's carries no watermark: nothing is late, nothing
   * evicted.
   */
  @Test
  void aWindowOnAnotherColumnThanTheWatermarksDropsNothing() throws Exception {
    String yaml =
        """
        pipeline: other-column
        source: { kafka: { bootstrap-servers: "localhost:9092", topics: [events] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp, ingest_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: ingest_ts, size: 5 minutes }
          measures: { n: count() }
        output-mode: update
        sink: { delta: { path: /tmp/unused } }
        checkpoint: /tmp/unused-checkpoint
        """;
    StatefulPlan plan =
        PipelineFactory.compile(PipelineParser.parse(yaml, "o.yaml", Map.of()))
            .stateful()
            .orElseThrow();
    try (QueryRunner r = new QueryRunner(plan, dir.resolve("other-column"))) {
      r.batch(
          rows(new Object[] {"a", time(20, 0), time(1, 0), "events", 0, 0L, NOON}),
          QueryRunner.Crash.NONE);
      r.drain();
      // event time behind the watermark (12:10), ingest time 12:02: counted in the ingest-time
      // window
      r.batch(
          rows(new Object[] {"b", time(3, 0), time(2, 0), "events", 0, 1L, NOON}),
          QueryRunner.Crash.NONE);
      assertThat(r.late()).isEmpty();
      assertThat(r.table()).containsExactly(window(0, 5, 2));
      assertThat(r.metrics()).containsEntry("aggregate.windowsEvicted", 0L);
    }
  }
}
