package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.retry.RetryPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The retry counters of every site, known before or after, become tributary.retries{site}. */
class RetryMetricsTest {
  private static int flaky(int attempt) {
    if (attempt < 3) {
      throw new IllegalStateException("not yet");
    }
    return attempt;
  }

  @Test
  void eachRetrySiteIsACounterTaggedWithItsName() throws Exception {
    RetryPolicy early =
        RetryPolicy.named("test.metrics-early")
            .withMaxAttempts(3)
            .retryingOn(IllegalStateException.class::isInstance);
    early.call(RetryMetricsTest::flaky);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    try (RetryMetrics metrics = new RetryMetrics(registry)) {
      RetryPolicy late =
          RetryPolicy.named("test.metrics-late")
              .withMaxAttempts(3)
              .retryingOn(IllegalStateException.class::isInstance);
      assertThat(registry.get(MetricNames.RETRIES).tag(MetricNames.SITE, "test.metrics-late"))
          .satisfies(meter -> assertThat(meter.functionCounter().count()).isZero());

      late.call(RetryMetricsTest::flaky);
      early.call(RetryMetricsTest::flaky);
    }

    assertThat(
            registry
                .get(MetricNames.RETRIES)
                .tag(MetricNames.SITE, "test.metrics-early")
                .functionCounter()
                .count())
        .isEqualTo(4);
    assertThat(
            registry
                .get(MetricNames.RETRIES)
                .tag(MetricNames.SITE, "test.metrics-late")
                .functionCounter()
                .count())
        .isEqualTo(2);
  }
}
