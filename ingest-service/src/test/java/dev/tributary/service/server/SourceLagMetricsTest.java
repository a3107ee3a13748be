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
 * A source's own lag measures (a Delta source's versions, files and bytes behind) become gauges.
 */
class SourceLagMetricsTest {
  @Test
  void eachSourceLagMeasureIsAGaugeTaggedWithItsName() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PipelineMetrics metrics =
        new PipelineMetrics(
            registry,
            "silver",
            "/tmp/none/silver",
            () -> PipelineState.values()[0],
            Clock.systemUTC());
    metrics.batchDone(progress(Map.of("versionsBehind", 3L, "bytesBehind", 4096L)));
    metrics.batchDone(progress(Map.of("versionsBehind", 1L, "bytesBehind", 100L)));

    assertThat(
            registry
                .get(MetricNames.SOURCE_LAG)
                .tag(MetricNames.MEASURE, "versionsBehind")
                .gauge()
                .value())
        .isEqualTo(1);
    assertThat(
            registry
                .get(MetricNames.SOURCE_LAG)
                .tag(MetricNames.MEASURE, "bytesBehind")
                .gauge()
                .value())
        .isEqualTo(100);
  }

  @Test
  void partitionsOwnedIsTheNumberOfPartitionsTheLastBatchPlanned() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PipelineMetrics metrics =
        new PipelineMetrics(
            registry,
            "clicks",
            "/tmp/none/clicks",
            () -> PipelineState.values()[0],
            Clock.systemUTC());
    metrics.batchDone(progress(Map.of()));

    assertThat(
            registry
                .get(MetricNames.PARTITIONS_OWNED)
                .tag(MetricNames.PIPELINE, "clicks")
                .gauge()
                .value())
        .isEqualTo(1);
  }

  private static BatchProgress progress(Map<String, Long> sourceLag) {
    return new BatchProgress(
        "silver",
        1,
        false,
        Instant.now(),
        10,
        10,
        0,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        List.of(new BatchProgress.PartitionProgress("/lake/bronze", 0, 3, 4, 7)),
        2,
        null,
        List.of(),
        Map.of(),
        0,
        0,
        sourceLag,
        Map.of());
  }
}
