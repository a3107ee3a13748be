package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a stateful pipeline refuses on an input row before it enters state, and why. */
class InputChecksTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  static InputChecks checks(String query, String partitionBy) {
    String yaml =
        """
        pipeline: checks
        source: { kafka: { bootstrap-servers: "localhost:9092", topics: [events] } }
        format:
          json:
            schema: { event_id: string, user_id: string, region: string, event_ts: timestamp, amount: "decimal(10,2)" }
        %s
        sink: { delta: { path: /tmp/unused, partition-by: %s } }
        checkpoint: /tmp/unused-checkpoint
        """
            .formatted(query, partitionBy);
    PipelineSpec spec = PipelineParser.parse(yaml, "checks.yaml", Map.of());
    StatefulPlan plan = PipelineFactory.compile(spec).stateful().orElseThrow();
    return new InputChecks(plan, plan.partitionColumns());
  }

  static Object[] row(String id, String user, String region, Instant ts) {
    return new Object[] {id, user, region, ts, new BigDecimal("1.00"), "events", 0, 0L, T};
  }

  private static final String AGGREGATE =
      """
      watermark: { column: event_ts, delay: 10 minutes }
      deduplicate: { keys: [event_id, event_ts] }
      aggregate:
        window: { column: event_ts, size: 1 hour, slide: 30 minutes }
        group-by: [region]
        measures: { n: count(), users: count_distinct(user_id), first_user: min(user_id) }
      output-mode: update
      """;

  @Test
  void aGoodRowPassesAndNullsAreNotProblems() {
    InputChecks c = checks(AGGREGATE, "[region]");
    assertThat(c.problem(row("e1", "u1", "eu", T))).isNull();
    assertThat(c.problem(row(null, null, null, T))).isNull();
    assertThat(c.problem(row("e1", "u1", "eu", null))).as("dropped later, like Spark").isNull();
  }

  @Test
  void partitionValuesOfTheOutputAreCheckedOnTheGroupByColumn() {
    InputChecks c = checks(AGGREGATE, "[region]");
    assertThat(c.problem(row("e1", "u1", "E\0U", T)))
        .startsWith("partition column 'region': the value contains a NUL");
    assertThat(c.problem(row("e1", "u1", "x".repeat(300), T)))
        .startsWith("partition column 'region': the value makes");
    // not a partition column: a long value is fine
    assertThat(checks(AGGREGATE, "[]").problem(row("e1", "u1", "x".repeat(300), T))).isNull();
  }

  @Test
  void keysAndCopiedValuesMustBeEncodable() {
    InputChecks c = checks(AGGREGATE, "[]");
    assertThat(c.problem(row("e\uD800", "u1", "eu", T)))
        .startsWith("column 'event_id': the string has an unpaired");
    assertThat(c.problem(row("e1", "\uDC00", "eu", T)))
        .startsWith("column 'user_id': the string has an unpaired");
    assertThat(c.problem(row("e1", "u1", "\uDC00", T)))
        .startsWith("column 'region': the string has an unpaired");
  }

  @Test
  void everyWindowOfTheEventMustEndAndStartInsideYears1To9999() {
    InputChecks c = checks(AGGREGATE, "[]");
    assertThat(c.problem(row("e1", "u1", "eu", Instant.parse("9999-12-31T22:59:59Z")))).isNull();
    assertThat(c.problem(row("e1", "u1", "eu", Instant.parse("9999-12-31T23:30:00Z"))))
        .isEqualTo(
            "column 'event_ts': event time 9999-12-31T23:30:00Z falls in a window whose window_end"
                + " +10000-01-01T00:30:00Z is outside the years 0001-9999 that Delta timestamps hold");
    // sliding: the earliest of the two windows starts half an hour before the event's
    assertThat(c.problem(row("e1", "u1", "eu", Instant.parse("0001-01-01T00:10:00Z"))))
        .contains("window_start 0000-12-31T23:30:00Z");
    assertThat(c.problem(row("e1", "u1", "eu", Instant.parse("0001-01-01T00:30:00Z")))).isNull();
  }

  @Test
  void anEventTimeOutsideTheRangeIsRefusedBeforeTheWatermarkSeesIt() {
    InputChecks c =
        checks(
            """
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id] }
        """,
            "[]");
    assertThat(c.problem(row("e1", "u1", "eu", Instant.ofEpochMilli(Long.MAX_VALUE))))
        .startsWith("column 'event_ts': timestamp");
  }

  @Test
  void withoutAggregationTheInputRowIsTheSinkRow() {
    InputChecks c =
        checks(
            """
        deduplicate: { keys: [event_id] }
        """,
            "[region]");
    assertThat(c.problem(row("e1", "u1\uD800", "eu", T))).startsWith("column 'user_id'");
    assertThat(c.problem(row("e1", "u1", "E\0U", T))).startsWith("partition column 'region'");
  }

  private static final String RUNNING =
      """
      aggregate:
        group-by: [region]
        measures: { n: count(), first_region: first(region), last_user: last(user_id), users: approx_count_distinct(event_id) }
      output-mode: update
      """;

  @Test
  void firstAndLastInputsAreCheckedAsTheOutputColumnTheyBecome() {
    InputChecks c = checks(RUNNING, "[first_region]");
    assertThat(c.problem(row("e1", "u1", "eu", T))).isNull();
    assertThat(c.problem(row("e1", "u1", "E\0U", T)))
        .startsWith("partition column 'first_region': the value contains a NUL");
    assertThat(c.problem(row("e1", "\uDC00", "eu", T)))
        .startsWith("column 'last_user': the string has an unpaired");
    assertThat(c.problem(row("e\uD800", "u1", "eu", T)))
        .startsWith("column 'event_id': the string has an unpaired");
  }

  @Test
  void aRunningAggregationHasNoWindowToCheck() {
    InputChecks c = checks(RUNNING, "[]");
    assertThat(c.problem(row("e1", "u1", "eu", Instant.parse("9999-12-31T23:59:59Z")))).isNull();
    assertThat(c.problem(row("e1", "u1", "eu", null))).isNull();
  }
}
