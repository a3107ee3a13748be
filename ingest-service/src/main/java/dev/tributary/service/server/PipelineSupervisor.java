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
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
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
 * so the time grows).
 */
public final class PipelineSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineSupervisor.class);
  private static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  /** The phases in which a run without progress is stuck: opening may legitimately take long. */
  private static final Set<RunActivity.Phase> STALLABLE =
      EnumSet.of(
          RunActivity.Phase.PLANNING, RunActivity.Phase.READING, RunActivity.Phase.COMMITTING);

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

  /** Why a pipeline is DEGRADED: a failed run or a run without progress. */
  private sealed interface Trouble {
    RunActivity.Phase phase();
  }

  private record FailedRun(RunActivity.Phase phase, String description, int attempt, Duration delay)
      implements Trouble {}

  private record NoProgress(RunActivity.Phase phase, Instant quietSince) implements Trouble {}

  /**
   * An outage in progress.
   *
   * @param since when it began: the run went quiet in the phase that failed or stalled
   * @param mark the run's activity when the trouble was noticed: a later snapshot that has moved on
   *     from it shows the run works again
   */
  private record Outage(Instant since, RunActivity.Snapshot mark, Trouble trouble) {}

  private final String id;
  private final PipelineLauncher launcher;
  private final SupervisorSettings settings;
  private final PipelineLifecycle lifecycle;
  private final ProgressLog progress;
  private final RunActivity activity;
  private final Secrets secrets;
  private final String source;
  private final String sink;
  private final Clock clock;
  private final Observer observer;

  private final Object lock = new Object();
  // Guarded by lock.
  private PipelineLauncher.ActiveRun current;
  private boolean stopRequested;
  private boolean backingOff;
  private Outage outage;
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
    this.source = ServerMessages.source(spec);
    this.sink = spec.sink().path();
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
      end(
          stopped || trigger instanceof TriggerSpec.ProcessingTime
              ? PipelineState.STOPPED
              : PipelineState.IDLE,
          null);
    }
    LOG.info("Pipeline {} {}", id, stopped ? "stopped" : "finished its run");
    return stopped ? Ending.STOPPED : Ending.FINISHED;
  }

  /**
   * Records a failed run; for a transient failure, waits the backoff delay. Returns null to try
   * again, or how the pipeline ended; throws a permanent failure or {@link OutageLimitException}.
   */
  private Ending afterFailure(Throwable failure, int attempt) throws Exception {
    boolean permanent = Failures.permanent(failure) || failure instanceof VirtualMachineError;
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
      outage =
          new Outage(
              outage == null ? seen.quietSince() : outage.since(),
              seen,
              new FailedRun(seen.phase(), description, attempt, delay));
      giveUpIfTooLong(now);
      if (gaveUp != null) {
        end(PipelineState.FAILED, gaveUp);
        LOG.error("{}", gaveUp);
        throw new OutageLimitException(gaveUp);
      }
      lifecycle.moveTo(PipelineState.DEGRADED, reason(now));
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
        if (outage != null && movedOn(seen)) {
          Duration lasted = Duration.between(outage.since(), now);
          outage = null;
          lifecycle.moveTo(PipelineState.RUNNING, null);
          // WARN like the outage itself: whoever saw that warning needs to see it is over.
          LOG.warn("{}", secrets.mask(ServerMessages.recovered(id, lasted)));
          return;
        }
        if (stalled(seen, now)) {
          outage =
              new Outage(
                  outage == null ? seen.quietSince() : outage.since(),
                  seen,
                  new NoProgress(seen.phase(), seen.quietSince()));
          if (lifecycle.state() != PipelineState.DEGRADED) {
            lifecycle.moveTo(PipelineState.DEGRADED, reason(now));
            LOG.warn("Pipeline {} DEGRADED: {}", id, secrets.mask(reason(now)));
          }
        }
      }
      if (outage != null && lifecycle.state() == PipelineState.DEGRADED) {
        lifecycle.moveTo(PipelineState.DEGRADED, reason(now));
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

  /** Holding the lock: whether {@code seen} shows the run working since the outage was noticed. */
  private boolean movedOn(RunActivity.Snapshot seen) {
    RunActivity.Snapshot mark = outage.mark();
    return seen.batches() > mark.batches()
        || seen.phase() == RunActivity.Phase.WAITING && seen.changes() > mark.changes();
  }

  /** Holding the lock: a stall not noticed yet. */
  private boolean stalled(RunActivity.Snapshot seen, Instant now) {
    if (!STALLABLE.contains(seen.phase())
        || Duration.between(seen.quietSince(), now).compareTo(settings.stallAfter()) < 0) {
      return false;
    }
    return outage == null
        || !(outage.trouble() instanceof NoProgress known
            && known.quietSince().equals(seen.quietSince()));
  }

  /** Holding the lock: sets {@link #gaveUp} if the outage reached the limit. */
  private void giveUpIfTooLong(Instant now) {
    if (settings.maxOutage().isEmpty() || outage == null) {
      return;
    }
    Duration lasted = Duration.between(outage.since(), now);
    if (lasted.compareTo(settings.maxOutage().get()) >= 0) {
      gaveUp =
          secrets.mask(
              ServerMessages.outageLimit(
                  id, lasted, settings.maxOutage().get(), describe(now, Restart.UNSAID)));
    }
  }

  /** Holding the lock: the DEGRADED reason of the outage in progress, as of {@code now}. */
  private String reason(Instant now) {
    return describe(now, Restart.SAID);
  }

  /** Whether a reason tells the next restart attempt (not when giving up: there is none). */
  private enum Restart {
    SAID,
    UNSAID
  }

  /** Holding the lock: the outage in progress, as of {@code now}. */
  private String describe(Instant now, Restart restart) {
    Trouble trouble = outage.trouble();
    String detail;
    if (trouble instanceof FailedRun f) {
      detail =
          restart == Restart.SAID
              ? ServerMessages.failedRun(f.description(), f.attempt(), f.delay())
              : f.description();
    } else {
      detail =
          ServerMessages.noProgress(
              trouble.phase(), Duration.between(((NoProgress) trouble).quietSince(), now));
    }
    return ServerMessages.degraded(
        ServerMessages.target(trouble.phase(), source, sink),
        Duration.between(outage.since(), now),
        detail);
  }

  /** Holding the lock: the final state of this start. */
  private void end(PipelineState state, String why) {
    outage = null;
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
