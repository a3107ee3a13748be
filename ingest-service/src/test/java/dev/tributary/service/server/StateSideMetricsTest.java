package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.BatchProgress;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The state gauges' {@code side} tag: a stream-stream join's sides are series of their own ({@code
 * left}, {@code right}, from the progress record's {@code join.*} counters), the other operators'
 * stores (after the join, or all of a pipeline without one) are {@code none}; summed over the
 * sides, the pipeline's total.
 */
class StateSideMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PipelineMetrics metrics =
      new PipelineMetrics(
          registry, "attribution", "/lake/a", () -> PipelineState.RUNNING, Clock.systemUTC());

  @Test
  void aJoinsSidesAreSeriesOfTheirOwnAndTheOperatorsAfterItAreNone() {
    metrics.batchDone(
        progress(
            Map.of(
                "join.left.rows", 10L,
                "join.left.bytes", 1000L,
                "join.right.rows", 3L,
                "join.right.bytes", 300L,
                "aggregate.keys", 7L,
                "rows", 20L,
                "bytes", 1500L)));
    assertThat(rows("left")).isEqualTo(10);
    assertThat(rows("right")).isEqualTo(3);
    assertThat(rows("none")).isEqualTo(7);
    assertThat(bytes("left")).isEqualTo(1000);
    assertThat(bytes("right")).isEqualTo(300);
    assertThat(bytes("none")).isEqualTo(200);
    assertThat(registry.get(MetricNames.STATE_ROWS).gauges()).hasSize(3);
  }

  @Test
  void withoutAJoinTheWholeStateIsSideNone() {
    metrics.batchDone(progress(Map.of("keys", 42L, "bytes", 4096L)));
    assertThat(rows("none")).isEqualTo(42);
    assertThat(bytes("none")).isEqualTo(4096);
    assertThat(registry.get(MetricNames.STATE_ROWS).gauges()).hasSize(1);
  }

  private double rows(String side) {
    return registry
        .get(MetricNames.STATE_ROWS)
        .tag(MetricNames.PIPELINE, "attribution")
        .tag(MetricNames.SIDE, side)
        .gauge()
        .value();
  }

  private double bytes(String side) {
    return registry
        .get(MetricNames.STATE_BYTES)
        .tag(MetricNames.PIPELINE, "attribution")
        .tag(MetricNames.SIDE, side)
        .gauge()
        .value();
  }

  private static BatchProgress progress(Map<String, Long> state) {
    Instant t = Instant.parse("2026-03-01T10:00:00Z");
    return new BatchProgress(
        "attribution",
        1,
        false,
        t,
        1,
        1,
        0,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        List.of(new BatchProgress.PartitionProgress("clicks", 0, 0, 10, 10)),
        2,
        null,
        List.of(),
        state,
        0,
        0,
        Map.of(),
        Map.of(),
        null);
  }
}
