package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.QuarantineLimit;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.QuarantineLimitExceededException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rejected share: in the progress record, as a gauge, and a threshold failure is permanent. */
class QuarantinedFractionMetricTest {
  @Test
  void theLastBatchsShareIsAGaugeAndAFieldOfTheProgressRecord() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PipelineMetrics metrics =
        new PipelineMetrics(
            registry,
            "orders",
            "/tmp/none/orders",
            () -> PipelineState.values()[0],
            Clock.systemUTC());
    assertThat(
            registry
                .get(MetricNames.QUARANTINED_FRACTION)
                .tag(MetricNames.PIPELINE, "orders")
                .gauge()
                .value())
        .isZero();

    metrics.batchDone(progress(200, 50));
    assertThat(registry.get(MetricNames.QUARANTINED_FRACTION).gauge().value()).isEqualTo(0.25);
    metrics.batchDone(progress(0, 0));
    assertThat(registry.get(MetricNames.QUARANTINED_FRACTION).gauge().value()).isZero();

    assertThat(progress(200, 50).quarantinedFraction()).isEqualTo(0.25);
    assertThat(ProgressLog.toJson(progress(200, 50))).contains("\"quarantinedFraction\":0.25");
  }

  @Test
  void exceedingTheThresholdIsAPermanentFailureThatNamesEverything() {
    var e =
        new QuarantineLimitExceededException(
            "orders",
            12,
            "orders/0 offsets [1200, 1300)",
            80,
            100,
            new QuarantineLimit(0.05),
            "field 'amount': expected long");
    assertThat(Failures.permanent(e)).isTrue();
    assertThat(e)
        .hasMessage(
            "Pipeline orders: batch 12 (orders/0 offsets [1200, 1300)) quarantined 80 of 100"
                + " records (fraction 0.8000), more than quarantine.max-fraction 0.05 allows; nothing of the batch was"
                + " committed. First error: field 'amount': expected long. Look at what the producer changed, then fix"
                + " the declaration (format.json.schema, schema-evolution) or raise quarantine.max-fraction; the batch is"
                + " replayed with the same offsets at the next start.");
  }

  private static BatchProgress progress(long in, long quarantined) {
    return new BatchProgress(
        "orders",
        1,
        false,
        Instant.now(),
        in,
        in - quarantined,
        quarantined,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        List.of(),
        2,
        null,
        List.of(),
        Map.of(),
        0,
        0);
  }
}
