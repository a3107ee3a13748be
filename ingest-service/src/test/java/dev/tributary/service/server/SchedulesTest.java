package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Declared schedules fire, and a tick whose previous run is still going is skipped and counted. */
class SchedulesTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  @TempDir Path dir;
  private ManagedPipeline pipeline;
  private PipelineMetrics metrics;
  private Schedules schedules;

  @AfterEach
  void stop() throws InterruptedException {
    if (schedules != null) {
      schedules.stop();
    }
    pipeline.stop();
    assertThat(pipeline.awaitInactive(Duration.ofSeconds(10))).isTrue();
  }

  /** Runs until stopped for a processing-time trigger; returns at once otherwise. */
  private static final class UntilStopped implements PipelineLauncher {
    @Override
    public ActiveRun open(TriggerSpec trigger, ProgressLog progress) {
      CountDownLatch stopped =
          new CountDownLatch(trigger instanceof TriggerSpec.ProcessingTime ? 1 : 0);
      return new ActiveRun() {
        @Override
        public void run() throws InterruptedException {
          stopped.await();
        }

        @Override
        public void stop() {
          stopped.countDown();
        }

        @Override
        public void close() {}
      };
    }
  }

  private void setUp(String backfillCron, String compactionCron) {
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: nightly
        source:
          kafka:
            bootstrap-servers: localhost:1
            topics: [t]
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/table
        checkpoint: %s/checkpoint
        trigger: { available-now: true }
        backfill: { schedule: "%s" }
        maintenance:
          compaction: { schedule: "%s" }
        """
                .formatted(dir, dir, backfillCron, compactionCron),
            "nightly.yaml",
            Map.of());
    pipeline =
        ManagedPipeline.runnable(
            spec,
            Path.of("nightly.yaml"),
            new UntilStopped(),
            new Backoff(Duration.ofMillis(10), Duration.ofMillis(10)),
            Clock.systemUTC());
    metrics =
        new PipelineMetrics(
            registry, "nightly", spec.sink().path(), pipeline::state, Clock.systemUTC());
    pipeline.attach(metrics);
    schedules = new Schedules(List.of(pipeline), p -> metrics, new Maintenance());
  }

  private double count(String metric, String outcome) {
    var counter = registry.find(metric).tag(MetricNames.OUTCOME, outcome).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void aBackfillTickWhileARunIsActiveIsSkippedAndCounted() {
    setUp("0 0 2 * * *", "0 0 3 * * *");
    pipeline.start(TriggerSpec.DEFAULT); // a continuous run holds the pipeline
    await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.state() == PipelineState.RUNNING);

    schedules.backfill(pipeline);
    assertThat(count(MetricNames.BACKFILL_RUNS, "skipped")).isEqualTo(1);
    assertThat(count(MetricNames.BACKFILL_RUNS, "started")).isZero();
    assertThat(pipeline.state()).isEqualTo(PipelineState.RUNNING);
  }

  @Test
  void theCronStartsAvailableNowRunsAndCompactionSkipsATableNotCreatedYet() {
    setUp("* * * * * *", "* * * * * *");
    schedules.start();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(count(MetricNames.BACKFILL_RUNS, "started")).isGreaterThanOrEqualTo(1);
              assertThat(count(MetricNames.COMPACTION_RUNS, "skipped")).isGreaterThanOrEqualTo(1);
            });
    assertThat(pipeline.status().trigger()).isEqualTo("available-now");
    assertThat(count(MetricNames.COMPACTION_RUNS, "failure")).isZero();
  }
}
