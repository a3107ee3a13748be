package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.backfill.BackfillPlan;
import dev.tributary.service.backfill.BackfillSummary;
import dev.tributary.service.backfill.ReplaceSummary;
import dev.tributary.service.engine.ProgressLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One range backfill of serve mode on a thread of its own: {@link Work} (the backfill of {@code
 * service/backfill}, with its own checkpoint and txn app id) runs beside the live pipeline, which
 * keeps running and whose checkpoint it never opens. The job moves from RUNNING to SUCCEEDED,
 * FAILED or STOPPED exactly once, when the work returns or throws. {@link #stop()} asks the run to
 * stop after its batch in progress, as Ctrl-C does to {@code tributary backfill}; a stop that comes
 * before the run is open stops it as soon as it opens.
 */
final class BackfillJob {
  private static final Logger LOG = LoggerFactory.getLogger(BackfillJob.class);

  /** What a job runs: a planned backfill to its end. */
  interface Work {
    /**
     * Runs the backfill to its end, or until the stop handed to {@code stoppable} is run.
     *
     * @param progress receives a record per committed batch
     * @param stoppable receives, once the run is open, what stops it after its batch in progress
     * @return what the backfill did
     * @throws Exception whatever ended the backfill (a refusal, the source or store failing)
     */
    Done run(ProgressLog progress, Consumer<Runnable> stoppable) throws Exception;
  }

  /**
   * What a finished backfill did: the run's summary ({@code into}; for {@code replace} the staging
   * run's, absent when an earlier run had already swapped the range) and, for {@code replace}, the
   * swap's.
   *
   * @param run the run's summary, or null
   * @param replaced the replace's summary, or null for {@code into}
   */
  record Done(BackfillSummary run, ReplaceSummary replaced) {
    /** An {@code into} backfill's outcome. */
    static Done into(BackfillSummary run) {
      return new Done(run, null);
    }

    /** A {@code replace} backfill's outcome. */
    static Done replaced(ReplaceSummary replaced) {
      return new Done(replaced.staging().orElse(null), replaced);
    }

    /** The summary as {@code tributary backfill} prints it. */
    String render() {
      return replaced != null ? replaced.render() : run.render();
    }
  }

  /**
   * A backfill ready to start: its plan (ids, locations, range) and the work that runs it.
   *
   * @param plan the backfill's declaration and range
   * @param work what runs it
   */
  record Planned(BackfillPlan plan, Work work) {}

  private final String id;
  private final String pipeline;
  private final BackfillRequest request;
  private final BackfillPlan plan;
  private final Secrets secrets;
  private final Clock clock;
  private final Instant startedAt;
  private final AtomicInteger batches = new AtomicInteger();
  private final Thread thread;

  // Guarded by this.
  private BackfillJobState state = BackfillJobState.RUNNING;
  private Instant endedAt;
  private Done done;
  private String message;
  private Runnable stopRun;
  private boolean stopRequested;

  private BackfillJob(
      String id,
      String pipeline,
      BackfillRequest request,
      Planned planned,
      Secrets secrets,
      Clock clock) {
    this.id = id;
    this.pipeline = pipeline;
    this.request = request;
    this.plan = planned.plan();
    this.secrets = secrets;
    this.clock = clock;
    this.startedAt = clock.instant();
    this.thread = new Thread(() -> runToEnd(planned.work()), "backfill-" + pipeline + "-" + id);
    // Daemon: a stuck backfill must never keep the JVM alive after shutdown gave up waiting.
    thread.setDaemon(true);
  }

  /** Starts {@code planned} on its own thread. */
  static BackfillJob start(
      String id,
      String pipeline,
      BackfillRequest request,
      Planned planned,
      Secrets secrets,
      Clock clock) {
    BackfillJob job = new BackfillJob(id, pipeline, request, planned, secrets, clock);
    LOG.info(
        "Backfill job {} of pipeline {}: {} into {} started ({})",
        id,
        pipeline,
        planned.plan().range(),
        secrets.mask(planned.plan().target()),
        planned.plan().id());
    job.thread.start();
    return job;
  }

  String id() {
    return id;
  }

  /** The backfill's declaration (its locations, for the one-owner check of later jobs). */
  PipelineSpec spec() {
    return plan.spec();
  }

  /** The range and table, as messages name them. */
  String describe() {
    return plan.range() + " into " + secrets.mask(plan.target());
  }

  synchronized BackfillJobState state() {
    return state;
  }

  /**
   * Asks the run to stop after its batch in progress; returns at once.
   *
   * @return false if the job had already ended
   */
  synchronized boolean stop() {
    if (state.ended()) {
      return false;
    }
    stopRequested = true;
    if (stopRun != null) {
      stopRun.run();
    }
    return true;
  }

  /** Waits for the job's thread to end; true if it ended within {@code timeout}. */
  boolean awaitEnd(Duration timeout) throws InterruptedException {
    thread.join(Math.max(1, timeout.toMillis()));
    return !thread.isAlive();
  }

  private synchronized void stoppable(Runnable stop) {
    stopRun = stop;
    if (stopRequested) {
      stop.run();
    }
  }

  private void runToEnd(Work work) {
    ProgressLog progress = new ProgressLog(1, secrets);
    progress.addListener(p -> batches.incrementAndGet());
    Done done = null;
    Throwable failure = null;
    try {
      done = work.run(progress, this::stoppable);
    } catch (Throwable e) { // an Error included: it ends this job, never the service
      failure = e;
    }
    finish(done, failure);
  }

  private synchronized void finish(Done done, Throwable failure) {
    endedAt = clock.instant();
    this.done = done;
    if (stopRequested) {
      // Whatever the run ended with after a stop (a stop before the first commit leaves no table
      // to summarize), the job ends as asked: the same request continues it.
      state = BackfillJobState.STOPPED;
      message = ServerMessages.backfillStopped(pipeline);
      LOG.info(
          "Backfill job {} of pipeline {} stopped{}",
          id,
          pipeline,
          failure == null ? "" : " (" + Failures.describe(failure, secrets) + ")");
    } else if (failure != null) {
      state = BackfillJobState.FAILED;
      message = Failures.describe(failure, secrets);
      LOG.error("Backfill job {} of pipeline {} failed: {}", id, pipeline, message);
    } else {
      state = BackfillJobState.SUCCEEDED;
      LOG.info(
          "Backfill job {} of pipeline {} succeeded: {}",
          id,
          pipeline,
          secrets.mask(done.render()));
    }
  }

  /** A consistent view for the REST API, the pipeline's secrets masked. */
  synchronized BackfillJobStatus status() {
    return new BackfillJobStatus(
        id,
        pipeline,
        state,
        request.from(),
        request.to(),
        request.into() == null ? null : secrets.mask(request.into()),
        request.replacing(),
        plan.id(),
        secrets.mask(plan.spec().checkpoint()),
        startedAt,
        endedAt,
        batches.get(),
        done == null || done.run() == null ? null : summary(done.run()),
        done == null || done.replaced() == null ? null : swap(done.replaced()),
        message);
  }

  private BackfillJobStatus.Swap swap(ReplaceSummary r) {
    var m = r.swap();
    return new BackfillJobStatus.Swap(
        secrets.mask(r.liveTable()),
        r.version(),
        r.alreadySwapped(),
        m.map(x -> x.rowsRemoved()).orElse(0L),
        m.map(x -> x.filesRemoved()).orElse(0),
        m.map(x -> x.filesRewritten()).orElse(0),
        m.map(x -> x.rowsKept()).orElse(0L),
        m.map(x -> x.rowsAdded()).orElse(0L),
        m.map(x -> x.filesAdded()).orElse(0),
        r.attempts(),
        secrets.mask(r.stagingTable()));
  }

  private BackfillJobStatus.Summary summary(BackfillSummary s) {
    return new BackfillJobStatus.Summary(
        secrets.mask(s.target()),
        secrets.mask(s.rule()),
        s.batches(),
        s.rowsAdded(),
        s.rowsOutside(),
        s.files(),
        s.version(),
        s.resumed(),
        secrets.mask(s.checkpoint()),
        secrets.mask(s.read()),
        s.edges().stream().map(e -> secrets.mask(e.toString())).toList());
  }
}
