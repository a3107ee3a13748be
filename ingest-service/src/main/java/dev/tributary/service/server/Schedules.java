package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

/**
 * The cron schedules declared in the pipeline files: {@code maintenance.compaction.schedule},
 * {@code maintenance.vacuum.schedule} and {@code backfill.schedule} (an available-now run). A tick
 * whose previous run is still going is skipped, with a log line and the {@code skipped} outcome of
 * the operation's metric, never queued.
 */
final class Schedules {
  private static final Logger LOG = LoggerFactory.getLogger(Schedules.class);

  /** How long a stop waits for a maintenance run in progress to end before it goes on. */
  private static final int STOP_WAIT_SECONDS = 30;

  private final Collection<ManagedPipeline> pipelines;
  private final Function<ManagedPipeline, PipelineMetrics> metrics;
  private final Maintenance maintenance;
  private final List<ScheduledFuture<?>> scheduled = new ArrayList<>();
  private ThreadPoolTaskScheduler scheduler;

  Schedules(
      Collection<ManagedPipeline> pipelines,
      Function<ManagedPipeline, PipelineMetrics> metrics,
      Maintenance maintenance) {
    this.pipelines = pipelines;
    this.metrics = metrics;
    this.maintenance = maintenance;
  }

  void start() {
    scheduler = new ThreadPoolTaskScheduler();
    scheduler.setPoolSize(2);
    scheduler.setThreadNamePrefix("tributary-schedule-");
    scheduler.setDaemon(true);
    // Spring's default shutdown interrupts running tasks: a compaction cut short at stop would be
    // logged and counted as failed (harmless, it commits optimistically, but untrue). Let it end.
    scheduler.setWaitForTasksToCompleteOnShutdown(true);
    scheduler.setAwaitTerminationSeconds(STOP_WAIT_SECONDS);
    scheduler.initialize();
    for (ManagedPipeline p : pipelines) {
      if (!p.runnable()) {
        continue;
      }
      PipelineSpec spec = p.spec().get();
      spec.maintenance()
          .compaction()
          .ifPresent(c -> schedule(p, Maintenance.COMPACTION, c.schedule(), () -> compact(p)));
      spec.maintenance()
          .vacuum()
          .ifPresent(v -> schedule(p, Maintenance.VACUUM, v.schedule(), () -> vacuum(p)));
      spec.backfill().ifPresent(b -> schedule(p, "backfill", b.schedule(), () -> backfill(p)));
    }
  }

  /** Cancels the schedules; a run in progress may end (up to {@value #STOP_WAIT_SECONDS} s). */
  void stop() {
    scheduled.forEach(f -> f.cancel(false));
    scheduled.clear();
    if (scheduler != null) {
      scheduler.shutdown();
    }
  }

  private void schedule(ManagedPipeline p, String operation, String cron, Runnable task) {
    // The parser validated the expression; a failure here would be a bug, reported with the
    // pipeline.
    scheduled.add(scheduler.schedule(task, new CronTrigger(cron)));
    LOG.info("Pipeline {}: {} scheduled at '{}'", p.id(), operation, cron);
  }

  void compact(ManagedPipeline p) {
    try {
      maintenance.compact(p, metrics.apply(p));
    } catch (Maintenance.BusyException e) {
      skipped(p, Maintenance.COMPACTION, MetricNames.COMPACTION_RUNS);
    } catch (Exception e) {
      LOG.error(
          ServerMessages.maintenanceFailed(
              p.id(),
              Maintenance.COMPACTION,
              p.mask(String.join(", ", p.spec().get().sinkLocations())),
              p.describe(e)));
    }
  }

  void vacuum(ManagedPipeline p) {
    try {
      maintenance.vacuum(p, metrics.apply(p), false);
    } catch (Maintenance.BusyException e) {
      skipped(p, Maintenance.VACUUM, MetricNames.VACUUM_RUNS);
    } catch (Exception e) {
      LOG.error(
          ServerMessages.maintenanceFailed(
              p.id(),
              Maintenance.VACUUM,
              p.mask(String.join(", ", p.spec().get().sinkLocations())),
              p.describe(e)));
    }
  }

  void backfill(ManagedPipeline p) {
    ManagedPipeline.StartOutcome outcome = p.start(new TriggerSpec.AvailableNow());
    if (outcome == ManagedPipeline.StartOutcome.STARTED) {
      metrics.apply(p).run(MetricNames.BACKFILL_RUNS, "started");
      LOG.info("Pipeline {}: scheduled backfill (available-now run) started", p.id());
    } else {
      skipped(p, "backfill", MetricNames.BACKFILL_RUNS);
    }
  }

  private void skipped(ManagedPipeline p, String operation, String metric) {
    metrics.apply(p).run(metric, "skipped");
    LOG.warn(
        "Pipeline {}: scheduled {} skipped because the previous run is still going",
        p.id(),
        operation);
  }
}
