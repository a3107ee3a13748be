package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.RunActivity;
import dev.tributary.service.pipeline.CompiledPipeline;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one pipeline through its failures; {@code serve} ({@link ManagedPipeline}) and {@code run}
 * (the command line) share it, so both ride out an outage the same way. One supervisor serves one
 * start: {@link #run} once, {@link #stop} from any thread.
 *
 * <p>Protocol of {@link #run}, on the caller's thread:
 *
 * <ol>
 *   <li>Open a run (its activity {@link RunActivity.Phase#OPENING}); once it is open, STARTING
 *       becomes RUNNING (a DEGRADED pipeline stays DEGRADED until the run shows it works).
 *   <li>Run it until its trigger ends it (IDLE) or {@link #stop} (STOPPED).
 *   <li>When it throws, a permanent failure ({@link Failures#permanent}) ends in FAILED and is
 *       thrown; a transient one makes the pipeline DEGRADED with the reason, waits {@link
 *       Backoff#delay} (the attempts start over once a run completes a batch) and goes back to 1.
 * </ol>
 *
 * <p>Meanwhile a watchdog reads the run's {@link RunActivity} every second: no progress while
 * planning, reading (no record) or committing for {@link SupervisorSettings#stallAfter()} makes the
 * pipeline DEGRADED; a completed batch, or a round that ends waiting for the next trigger, makes it
 * RUNNING again; an outage longer than {@link SupervisorSettings#maxOutage()} stops the run after
 * its batch in progress and ends in FAILED with {@link OutageLimitException}. A DEGRADED reason
 * says what cannot be reached, for how long, and the last failure (rendered again at every check,
 * so the time grows); {@link Outage} keeps that account.
 */
public final class PipelineSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineSupervisor.class);
  private static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  /** One thread checks every supervisor: a check only reads snapshots and changes a state. */
  private static final ScheduledExecutorService WATCHDOG =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tributary-watchdog");
            t.setDaemon(true);
            return t;
          });

  /** How a supervised pipeline ended when it did not fail. */
  public enum Ending {
    /** A finite trigger (available-now, once) ended the run. */
    FINISHED,
    /** {@link #stop} ended it. */
    STOPPED
  }

  /** What the supervisor reports besides the state (serve mode's metrics). */
  interface Observer {
    /** A run is open, before it runs. */
    default void opened(PipelineLauncher.ActiveRun run) {}

    /** A run failed; {@code permanent} as {@link Failures#permanent} judged it. */
    default void failed(boolean permanent) {}

    /** A new attempt starts after a transient failure. */
    default void restarted() {}

    Observer NONE = new Observer() {};
  }

  private final String id;
  private final PipelineLauncher launcher;
  private final SupervisorSettings settings;
  private final PipelineLifecycle lifecycle;
  private final ProgressLog progress;
  private final RunActivity activity;
  private final Secrets secrets;
  private final Clock clock;
  private final Observer observer;

  private final Object lock = new Object();
  // Guarded by lock.
  private final Outage outage;
  private PipelineLauncher.ActiveRun current;
  private boolean stopRequested;
  private boolean backingOff;
  private String gaveUp;
  private boolean ended;

  PipelineSupervisor(
      PipelineSpec spec,
      PipelineLauncher launcher,
      SupervisorSettings settings,
      PipelineLifecycle lifecycle,
      ProgressLog progress,
      Clock clock,
      Observer observer) {
    this.id = spec.id();
    this.launcher = launcher;
    this.settings = settings;
    this.lifecycle = lifecycle;
    this.progress = progress;
    this.activity = progress.activity();
    this.secrets = spec.secrets();
    this.outage =
        new Outage(
            ServerMessages.source(spec),
            String.join(", ", spec.sinkLocations()),
            settings.stallAfter());
    this.clock = clock;
    this.observer = observer;
  }

  /**
   * A supervisor for the command line: the pipeline starts in STARTING; its state changes are
   * logged.
   */
  public static PipelineSupervisor forCommandLine(
      CompiledPipeline pipeline, SupervisorSettings settings, ProgressLog progress) {
    PipelineSpec spec = pipeline.spec();
    Clock clock = Clock.systemUTC();
    return new PipelineSupervisor(
        spec,
        PipelineLauncher.of(pipeline),
        settings,
        new PipelineLifecycle(spec.id(), PipelineState.STARTING, null, clock, spec.secrets()),
        progress,
        clock,
        Observer.NONE);
  }

  /**
   * Runs the pipeline with {@code trigger} until the trigger ends it, {@link #stop} is called, a
   * permanent failure occurs or the outage limit is reached; rides out transient failures in
   * between. Call once; the pipeline must be STARTING.
   *
   * @return how it ended without failing
   * @throws OutageLimitException if an outage lasted {@link SupervisorSettings#maxOutage()}
   * @throws Exception the permanent failure that ended it (an {@link Error} is rethrown as is)
   */
  public Ending run(TriggerSpec trigger) throws Exception {
    ScheduledFuture<?> watchdog =
        WATCHDOG.scheduleWithFixedDelay(
            this::checkQuietly,
            CHECK_EVERY.toMillis(),
            CHECK_EVERY.toMillis(),
            TimeUnit.MILLISECONDS);
    try {
      int attempt = 0;
      while (true) {
        long batchesBefore = activity.snapshot().batches();
        Throwable failure = attempt(trigger);
        if (failure == null) {
          return finish(trigger);
        }
        if (activity.snapshot().batches() > batchesBefore) {
          attempt = 0;
        }
        Ending ending = afterFailure(failure, ++attempt);
        if (ending != null) {
          return ending;
        }
      }
    } finally {
      watchdog.cancel(false);
    }
  }

  /**
   * Asks the run in progress to stop after its batch in progress, or cancels a backoff wait;
   * returns at once.
   */
  public void stop() {
    PipelineLauncher.ActiveRun run;
    synchronized (lock) {
      stopRequested = true;
      run = current;
      lock.notifyAll();
    }
    if (run != null) {
      run.stop();
    }
  }

  /** The pipeline's state now, with its reason, since when, and the restarts. */
  PipelineLifecycle.Snapshot lifecycle() {
    return lifecycle.snapshot();
  }

  /** The consumer groups the open run is a member of (empty without one). */
  List<GroupMember> groups() {
    PipelineLauncher.ActiveRun run;
    synchronized (lock) {
      run = current;
    }
    return run == null ? List.of() : run.groups();
  }

  /** Opens and runs one attempt; the failure that ended it, or null. Always closes the run. */
  private Throwable attempt(TriggerSpec trigger) {
    PipelineLauncher.ActiveRun run = null;
    try {
      activity.enter(RunActivity.Phase.OPENING);
      run = launcher.open(trigger, progress);
      observer.opened(run);
      synchronized (lock) {
        if (stopRequested || gaveUp != null) {
          return null;
        }
        current = run;
        if (lifecycle.state() == PipelineState.STARTING) {
          lifecycle.moveTo(PipelineState.RUNNING, null);
        }
      }
      LOG.info("Pipeline {} running ({})", id, ServerMessages.trigger(trigger));
      run.run();
      return null;
    } catch (Throwable failure) {
      return failure;
    } finally {
      // Closed before the final state is set: a start or stop that sees it may rely on the run's
      // consumer, state stores and files being released.
      closeQuietly(run);
      synchronized (lock) {
        current = null;
      }
    }
  }

  /** After a run that ended without failing: IDLE, STOPPED, or FAILED if the limit was reached. */
  private Ending finish(TriggerSpec trigger) {
    boolean stopped;
    synchronized (lock) {
      if (gaveUp != null) {
        end(PipelineState.FAILED, gaveUp);
        throw new OutageLimitException(gaveUp);
      }
      stopped = stopRequested;
      end(stopped || trigger.unbounded() ? PipelineState.STOPPED : PipelineState.IDLE, null);
    }
    LOG.info("Pipeline {} {}", id, stopped ? "stopped" : "finished its run");
    return stopped ? Ending.STOPPED : Ending.FINISHED;
  }

  /**
   * Records a failed run; for a transient failure, waits the backoff delay. Returns null to try
   * again, or how the pipeline ended; throws a permanent failure or {@link OutageLimitException}.
   */
  private Ending afterFailure(Throwable failure, int attempt) throws Exception {
    boolean permanent =
        Failures.permanent(failure)
            || failure instanceof VirtualMachineError
            || (settings.awaited() == SupervisorSettings.Awaited.FAIL
                && Failures.awaitable(failure));
    observer.failed(permanent);
    String description = Failures.describe(failure, secrets);
    RunActivity.Snapshot seen = activity.snapshot();
    synchronized (lock) {
      if (stopRequested) {
        end(PipelineState.STOPPED, null);
        LOG.warn("Pipeline {} stopped; its last run failed: {}", id, description);
        return Ending.STOPPED;
      }
      if (permanent) {
        end(PipelineState.FAILED, description);
        LOG.error("Pipeline {} FAILED and will not be restarted: {}", id, description);
        throw rethrown(failure);
      }
      Instant now = clock.instant();
      Duration delay = settings.backoff().delay(attempt);
      outage.failed(seen, description, attempt, delay);
      giveUpIfTooLong(now);
      if (gaveUp != null) {
        end(PipelineState.FAILED, gaveUp);
        LOG.error("{}", gaveUp);
        throw new OutageLimitException(gaveUp);
      }
      lifecycle.moveTo(PipelineState.DEGRADED, outage.reason(now));
      LOG.warn(
          "Pipeline {} failed (attempt {}), restarting in {}: {}", id, attempt, delay, description);
      backingOff = true;
      try {
        long deadline = System.nanoTime() + delay.toNanos();
        for (long left = delay.toNanos();
            left > 0 && !stopRequested && gaveUp == null;
            left = deadline - System.nanoTime()) {
          lock.wait(Math.max(1, left / 1_000_000));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopRequested = true;
      } finally {
        backingOff = false;
      }
      if (gaveUp != null) {
        end(PipelineState.FAILED, gaveUp);
        throw new OutageLimitException(gaveUp);
      }
      if (stopRequested) {
        end(PipelineState.STOPPED, null);
        return Ending.STOPPED;
      }
      lifecycle.restarted();
    }
    observer.restarted();
    return null;
  }

  private void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) {
      // A scheduled task that throws is never run again: log and keep watching.
      LOG.warn("Pipeline {}: the activity check failed: {}", id, secrets.mask(e.toString()));
    }
  }

  /**
   * One look at the run's activity (the watchdog's tick; tests call it directly): notices a stall,
   * a recovery, and an outage past its limit, and renders the DEGRADED reason again.
   */
  void check() {
    PipelineLauncher.ActiveRun toStop = null;
    synchronized (lock) {
      if (ended) {
        return;
      }
      Instant now = clock.instant();
      RunActivity.Snapshot seen = activity.snapshot();
      if (current != null && !backingOff) {
        Optional<Duration> ended = outage.endIfMovedOn(seen, now);
        if (ended.isPresent()) {
          lifecycle.moveTo(PipelineState.RUNNING, null);
          // WARN like the outage itself: whoever saw that warning needs to see it is over.
          LOG.warn("{}", secrets.mask(ServerMessages.recovered(id, ended.get())));
          return;
        }
        if (outage.stalled(seen, now) && lifecycle.state() != PipelineState.DEGRADED) {
          lifecycle.moveTo(PipelineState.DEGRADED, outage.reason(now));
          LOG.warn("Pipeline {} DEGRADED: {}", id, secrets.mask(outage.reason(now)));
        }
      }
      if (outage.ongoing() && lifecycle.state() == PipelineState.DEGRADED) {
        lifecycle.moveTo(PipelineState.DEGRADED, outage.reason(now));
        if (gaveUp == null) {
          giveUpIfTooLong(now);
          if (gaveUp != null) {
            LOG.error("{}", gaveUp);
            toStop = current;
            lock.notifyAll(); // ends a backoff wait
          }
        }
      }
    }
    if (toStop != null) {
      toStop.stop();
    }
  }

  /** Holding the lock: sets {@link #gaveUp} if the outage reached the limit. */
  private void giveUpIfTooLong(Instant now) {
    if (settings.maxOutage().isEmpty() || !outage.ongoing()) {
      return;
    }
    Duration lasted = outage.lasted(now);
    if (lasted.compareTo(settings.maxOutage().get()) >= 0) {
      gaveUp =
          secrets.mask(
              ServerMessages.outageLimit(
                  id, lasted, settings.maxOutage().get(), outage.lastReason(now)));
    }
  }

  /** Holding the lock: the final state of this start. */
  private void end(PipelineState state, String why) {
    outage.clear();
    ended = true;
    lifecycle.moveTo(state, why);
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

  private static Exception rethrown(Throwable failure) {
    if (failure instanceof Error e) {
      throw e;
    }
    return failure instanceof Exception e ? e : new IllegalStateException(failure);
  }
}
