package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.Secrets;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.RunActivity;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Freshness and commit lag on a fake clock: the freshness gauge is computed at scrape time, so it
 * rises while nothing commits (a stall) although consumer lag stays where the last batch left it;
 * the commit lag counts what the batch in flight read.
 */
class FreshnessMetricsTest {
  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  private final MutableClock clock = new MutableClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PipelineMetrics metrics =
      new PipelineMetrics(registry, "orders", "/lake/orders", () -> PipelineState.RUNNING, clock);

  @Test
  void freshnessIsNaNBeforeTheFirstCommittedRecordTimestamp() {
    assertThat(freshness()).isNaN();
    metrics.batchDone(progress(null, 0));
    assertThat(freshness()).isNaN();
  }

  @Test
  void freshnessKeepsRisingDuringAStallWhileLagLooksFine() {
    metrics.batchDone(progress(T0.minusSeconds(5), 0));
    assertThat(freshness()).isEqualTo(5.0);
    assertThat(lag()).isZero();

    // No batch commits for ten minutes: consumer lag still says 0, freshness tells the truth.
    clock.advance(Duration.ofMinutes(10));
    assertThat(freshness()).isEqualTo(605.0);
    assertThat(lag()).isZero();

    clock.advance(Duration.ofSeconds(1));
    metrics.batchDone(progress(clock.instant().minusMillis(1500), 0));
    assertThat(freshness()).isEqualTo(1.5);
  }

  @Test
  void anOlderBatchOrAnEmptyOneDoesNotMakeTheTableLookOlderOrFresher() {
    metrics.batchDone(progress(T0.minusSeconds(2), 0));
    metrics.batchDone(progress(T0.minusSeconds(60), 0)); // a replay or a slow partition
    assertThat(freshness()).isEqualTo(2.0);
    clock.advance(Duration.ofSeconds(3));
    metrics.batchDone(progress(null, 0)); // a batch without input commits nothing newer
    assertThat(freshness()).isEqualTo(5.0);
  }

  @Test
  void theGaugesAreTaggedWithPipelineAndTable() {
    metrics.commitLag(() -> 0);
    metrics.batchDone(progress(T0, 0));
    assertThat(
            registry
                .get(MetricNames.FRESHNESS)
                .tag(MetricNames.PIPELINE, "orders")
                .tag(MetricNames.TABLE, "/lake/orders")
                .gauge()
                .value())
        .isZero();
    assertThat(
            registry
                .get(MetricNames.COMMIT_LAG)
                .tag(MetricNames.PIPELINE, "orders")
                .tag(MetricNames.TABLE, "/lake/orders")
                .gauge()
                .value())
        .isZero();
  }

  @Test
  void commitLagCountsTheRecordsReadByTheBatchInFlightUntilItCommits() {
    ProgressLog log = new ProgressLog(5, Secrets.NONE, new RunActivity(clock));
    metrics.commitLag(log.activity()::uncommittedReads);
    assertThat(commitLag()).isZero();
    for (int i = 0; i < 7; i++) {
      log.activity().progressed();
    }
    assertThat(commitLag()).isEqualTo(7);
    clock.advance(Duration.ofMinutes(5)); // a stuck commit: still read, still not committed
    assertThat(commitLag()).isEqualTo(7);
    log.add(progress(T0, 7));
    assertThat(commitLag()).isZero();
    log.activity().progressed();
    assertThat(commitLag()).isEqualTo(1);
  }

  @Test
  void theProgressRecordCarriesTheNewestTimestampAndTheFreshnessAtCommit() {
    BatchProgress p = progress(T0.minusMillis(2500), 0); // started at T0, took 5 ms
    assertThat(p.freshnessMs()).isEqualTo(2505);
    assertThat(ProgressLog.toJson(p))
        .contains("\"newestRecordAt\":")
        .contains("\"freshnessMs\":2505");
    assertThat(progress(null, 0).freshnessMs()).isNull();
  }

  private double freshness() {
    return registry.get(MetricNames.FRESHNESS).gauge().value();
  }

  private double commitLag() {
    return registry.get(MetricNames.COMMIT_LAG).gauge().value();
  }

  private double lag() {
    return registry.get(MetricNames.LAG).gauge().value();
  }

  private BatchProgress progress(Instant newest, long in) {
    return new BatchProgress(
        "orders",
        1,
        false,
        T0,
        in,
        in,
        0,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        List.of(new BatchProgress.PartitionProgress("orders", 0, 0, 10, 10)),
        2,
        null,
        List.of(),
        Map.of(),
        0,
        0,
        Map.of(),
        Map.of(),
        newest);
  }

  /** A clock the test moves. */
  private static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant start) {
      this.now = start;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
