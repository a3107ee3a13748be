package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.ProgressLog;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Supervises one served pipeline on its own thread. Protocol of a start: open a run, run it; when
 * it throws, a permanent failure ({@link Failures#permanent}) ends in {@link PipelineState#FAILED}
 * with the reason, a transient one waits {@link Backoff#delay} and opens a new run (the attempt
 * count restarts once a run completes a batch). {@link #stop()} lets the batch in progress finish:
 * the engine stops between batches, so nothing is left half committed. A failure here never reaches
 * another pipeline: each has its own thread, progress log and run.
 */
final class ManagedPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(ManagedPipeline.class);
  static final int PROGRESS_KEPT = 100;

  private final String id;
  private final Path file;
  private final Optional<PipelineSpec> spec;
  private final Optional<PipelineLauncher> launcher;
  private final Backoff backoff;
  private final Clock clock;
  private final Secrets secrets;
  private final ProgressLog progress;
  private final AtomicLong batches = new AtomicLong();
  private final Object lock = new Object();
  private PipelineMetrics metrics;

  // Guarded by lock.
  private PipelineState state;
  private String reason;
  private Instant since;
  private int restarts;
  private TriggerSpec trigger;
  private Thread worker;
  private PipelineLauncher.ActiveRun current;
  private boolean stopRequested;

  private ManagedPipeline(
      String id,
      Path file,
      Optional<PipelineSpec> spec,
      Optional<PipelineLauncher> launcher,
      Backoff backoff,
      Clock clock,
      PipelineState state,
      String reason) {
    this.id = id;
    this.file = file;
    this.spec = spec;
    this.secrets = spec.map(PipelineSpec::secrets).orElse(Secrets.NONE);
    this.progress = new ProgressLog(PROGRESS_KEPT, secrets);
    this.launcher = launcher;
    this.backoff = backoff;
    this.clock = clock;
    this.state = state;
    this.reason = secrets.mask(reason);
    this.since = clock.instant();
    progress.addListener(p -> batches.incrementAndGet());
  }

  /** A pipeline that can run; {@link PipelineState#STOPPED} until {@link #start}. */
  static ManagedPipeline runnable(
      PipelineSpec spec, Path file, PipelineLauncher launcher, Backoff backoff, Clock clock) {
    return new ManagedPipeline(
        spec.id(),
        file,
        Optional.of(spec),
        Optional.of(launcher),
        backoff,
        clock,
        PipelineState.STOPPED,
        null);
  }

  /** A pipeline whose file could not be loaded: FAILED for good, with the reason. */
  static ManagedPipeline invalid(
      String id, Path file, Optional<PipelineSpec> spec, String reason, Clock clock) {
    return new ManagedPipeline(
        id,
        file,
        spec,
        Optional.empty(),
        new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)),
        clock,
        PipelineState.FAILED,
        reason);
  }

  /** Attaches the meters; call once, before {@link #start}. */
  void attach(PipelineMetrics pipelineMetrics) {
    this.metrics = pipelineMetrics;
    progress.addListener(
        p -> {
          try {
            pipelineMetrics.batchDone(p);
          } catch (RuntimeException e) {
            // The batch is committed: a metrics problem must not turn it into a pipeline failure.
            LOG.warn(
                "Pipeline {}: metrics of batch {} not recorded: {}",
                id,
                p.batchId(),
                secrets.mask(e.toString()));
          }
        });
  }

  String id() {
    return id;
  }

  Path file() {
    return file;
  }

  Optional<PipelineSpec> spec() {
    return spec;
  }

  /** Masks the declaration's secrets in a text about this pipeline (see {@link Secrets#mask}). */
  String mask(String text) {
    return secrets.mask(text);
  }

  /** Describes a failure of this pipeline, its secrets masked. */
  String describe(Throwable failure) {
    return Failures.describe(failure, secrets);
  }

  /** False for a pipeline whose file could not be loaded. */
  boolean runnable() {
    return launcher.isPresent();
  }

  ProgressLog progress() {
    return progress;
  }

  PipelineState state() {
    synchronized (lock) {
      return state;
    }
  }

  /** Whether a run (or a wait before the next attempt) is in progress. */
  boolean active() {
    synchronized (lock) {
      return runActive();
    }
  }

  /**
   * Holding the lock: the worker is alive and has not reached a final state. The final state is its
   * last step (after the run is closed), so a worker thread that is only finishing its last log
   * line counts as done.
   */
  private boolean runActive() {
    return worker != null
        && worker.isAlive()
        && state != PipelineState.STOPPED
        && state != PipelineState.IDLE
        && state != PipelineState.FAILED;
  }

  /**
   * Starts a run with {@code runTrigger} on the pipeline's thread unless one is active.
   *
   * @return {@link StartOutcome#STARTED}, {@link StartOutcome#ALREADY_ACTIVE}, or {@link
   *     StartOutcome#NOT_RUNNABLE} for a pipeline whose file could not be loaded
   */
  StartOutcome start(TriggerSpec runTrigger) {
    if (launcher.isEmpty()) {
      return StartOutcome.NOT_RUNNABLE;
    }
    synchronized (lock) {
      if (runActive()) {
        return StartOutcome.ALREADY_ACTIVE;
      }
      stopRequested = false;
      trigger = runTrigger;
      change(PipelineState.STARTING, null);
      worker = new Thread(() -> supervise(runTrigger), "pipeline-" + id);
      // Daemon: a stuck run must never keep the JVM alive after shutdown gave up waiting for it.
      worker.setDaemon(true);
      worker.start();
      return StartOutcome.STARTED;
    }
  }

  /** What {@link #start} did. */
  enum StartOutcome {
    STARTED,
    ALREADY_ACTIVE,
    NOT_RUNNABLE
  }

  /**
   * Asks the active run to stop after its batch in progress (or cancels a backoff wait); returns at
   * once. Returns false if nothing was active.
   */
  boolean stop() {
    synchronized (lock) {
      if (!runActive()) {
        return false;
      }
      stopRequested = true;
      if (current != null) {
        current.stop();
      }
      lock.notifyAll();
      return true;
    }
  }

  /** Waits for the active run to end; true if it ended within {@code timeout}. */
  boolean awaitInactive(Duration timeout) throws InterruptedException {
    Thread t;
    synchronized (lock) {
      t = worker;
    }
    if (t == null) {
      return true;
    }
    t.join(Math.max(1, timeout.toMillis()));
    return !t.isAlive();
  }

  private void supervise(TriggerSpec runTrigger) {
    int attempt = 0;
    while (true) {
      long batchesBefore = batches.get();
      PipelineLauncher.ActiveRun run = null;
      try {
        run = launcher.orElseThrow().open(runTrigger, progress);
        if (metrics != null) {
          // before the run polls: its first assignment is a rebalance too
          run.groups().forEach(g -> g.onRebalance(metrics::rebalanced));
        }
        synchronized (lock) {
          if (stopRequested) {
            closeQuietly(run);
            change(PipelineState.STOPPED, null);
            return;
          }
          current = run;
          change(PipelineState.RUNNING, null);
        }
        LOG.info("Pipeline {} running ({})", id, ServerMessages.trigger(runTrigger));
        run.run();
        // Closed before the state says STOPPED or IDLE: a start or stop that sees it may rely on
        // the run's consumer, state stores and files being released.
        closeQuietly(run);
        run = null;
        boolean stopped;
        synchronized (lock) {
          current = null;
          stopped = stopRequested; // read under the lock: a new start() may reset it right after
          change(
              stopped || runTrigger instanceof TriggerSpec.ProcessingTime
                  ? PipelineState.STOPPED
                  : PipelineState.IDLE,
              null);
        }
        LOG.info("Pipeline {} {}", id, stopped ? "stopped" : "finished its run");
        return;
      } catch (Throwable failure) {
        closeQuietly(run);
        run = null;
        synchronized (lock) {
          current = null;
        }
        if (batches.get() > batchesBefore) {
          attempt = 0;
        }
        if (!retryAfter(failure, ++attempt)) {
          return;
        }
      }
    }
  }

  private void closeQuietly(PipelineLauncher.ActiveRun run) {
    if (run == null) {
      return;
    }
    try {
      run.close();
    } catch (RuntimeException e) {
      LOG.warn("Pipeline {}: run did not close cleanly: {}", id, secrets.mask(e.toString()));
    }
  }

  /**
   * Records a failed run; waits the backoff delay for a transient one. False if the loop must end.
   */
  private boolean retryAfter(Throwable failure, int attempt) {
    boolean permanent = Failures.permanent(failure);
    if (metrics != null) {
      metrics.failure(permanent);
    }
    String description = describe(failure);
    synchronized (lock) {
      if (stopRequested) {
        change(PipelineState.STOPPED, null);
        LOG.warn("Pipeline {} stopped; its last run failed: {}", id, description);
        return false;
      }
      if (permanent || failure instanceof VirtualMachineError) {
        change(PipelineState.FAILED, description);
        LOG.error("Pipeline {} FAILED and will not be restarted: {}", id, description);
        return false;
      }
      Duration delay = backoff.delay(attempt);
      change(PipelineState.RETRYING, ServerMessages.retrying(description, attempt, delay));
      LOG.warn(
          "Pipeline {} failed (attempt {}), restarting in {}: {}", id, attempt, delay, description);
      long deadline = System.nanoTime() + delay.toNanos();
      try {
        for (long left = delay.toNanos();
            left > 0 && !stopRequested;
            left = deadline - System.nanoTime()) {
          lock.wait(Math.max(1, left / 1_000_000));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopRequested = true;
      }
      if (stopRequested) {
        change(PipelineState.STOPPED, null);
        return false;
      }
      restarts++;
      change(PipelineState.STARTING, reason);
    }
    if (metrics != null) {
      metrics.restarted();
    }
    return true;
  }

  private void change(PipelineState next, String why) {
    if (state != next) {
      since = clock.instant();
    }
    state = next;
    reason = secrets.mask(why);
  }

  /**
   * The consumer groups the active run is a member of, with this instance's member id and
   * assignment (group assignment; empty in exclusive assignment or without an active run).
   */
  List<GroupMember.Snapshot> groupMembers() {
    PipelineLauncher.ActiveRun run;
    synchronized (lock) {
      run = current;
    }
    return run == null ? List.of() : run.groups().stream().map(GroupMember::snapshot).toList();
  }

  /** A consistent snapshot for the REST API and health. */
  PipelineStatus status() {
    List<BatchProgress> last = progress.last(1);
    synchronized (lock) {
      return PipelineStatus.of(
          this,
          state,
          reason,
          since,
          restarts,
          trigger == null ? spec.map(PipelineSpec::trigger).orElse(null) : trigger,
          last.isEmpty() ? null : last.get(0));
    }
  }
}
