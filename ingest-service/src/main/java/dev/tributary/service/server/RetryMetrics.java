package dev.tributary.service.server;

import dev.tributary.storage.retry.RetryCounters;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Publishes {@link RetryCounters} as {@link MetricNames#RETRIES}, one counter per retry site: the
 * sites known when it starts and each one that appears later (a site appears when the code path
 * first builds its policy). The counters read {@link RetryCounters} when scraped; nothing is
 * copied.
 */
final class RetryMetrics implements AutoCloseable {
  private final AutoCloseable watching;

  RetryMetrics(MeterRegistry registry) {
    this.watching =
        // The meter holds its site weakly; the name is a key of RetryCounters, so it stays alive.
        RetryCounters.watch(
            site ->
                FunctionCounter.builder(MetricNames.RETRIES, site, RetryCounters::retries)
                    .tag(MetricNames.SITE, site)
                    .description("retries of this retry site in this process")
                    .register(registry));
  }

  /** Stops registering new sites (the registry keeps those it has). */
  @Override
  public void close() throws Exception {
    watching.close();
  }
}
