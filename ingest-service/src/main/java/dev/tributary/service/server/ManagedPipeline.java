package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.RunActivity;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One served pipeline: its declaration, progress log, state and meters, and the start and stop of
 * its runs. A start runs a {@link PipelineSupervisor} on the pipeline's own thread (open a run, run
 * it, ride out transient failures with backoff, FAILED on a permanent one); {@link #stop()} lets
 * the batch in progress finish: the engine stops between batches, so nothing is left half
 * committed. A failure here never reaches another pipeline: each has its own thread, progress log
 * and run.
 */
final class ManagedPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(ManagedPipeline.class);
  static final int PROGRESS_KEPT = 100;

  private final String id;
  private final Path file;
  private final Optional<PipelineSpec> spec;
  private final Optional<PipelineLauncher> launcher;
  private final SupervisorSettings settings;
  private final Clock clock;
  private final Secrets secrets;
  private final ProgressLog progress;
  private final PipelineLifecycle lifecycle;
  private final Object lock = new Object();
  private volatile PipelineMetrics metrics;
  // The newest Kafka record timestamp committed since the service started (status freshness).
  private final AtomicReference<Instant> newestCommitted = new AtomicReference<>();

  // Guarded by lock.
  private TriggerSpec trigger;
  private Thread worker;
  private PipelineSupervisor supervisor;

  private ManagedPipeline(
      String id,
      Path file,
      Optional<PipelineSpec> spec,
      Optional<PipelineLauncher> launcher,
      SupervisorSettings settings,
      Clock clock,
      PipelineState state,
      String reason) {
    this.id = id;
    this.file = file;
    this.spec = spec;
    this.secrets = spec.map(PipelineSpec::secrets).orElse(Secrets.NONE);
    this.progress = new ProgressLog(PROGRESS_KEPT, secrets, new RunActivity(clock));
    this.launcher = launcher;
    this.settings = settings;
    this.clock = clock;
    this.lifecycle = new PipelineLifecycle(id, state, reason, clock, secrets);
    progress.addListener(
        p -> {
          if (p.newestRecordAt() != null) {
            newestCommitted.accumulateAndGet(
                p.newestRecordAt(), (old, now) -> old == null || now.isAfter(old) ? now : old);
          }
        });
  }

  /** A pipeline that can run; {@link PipelineState#STOPPED} until {@link #start}. */
  static ManagedPipeline runnable(
      PipelineSpec spec,
      Path file,
      PipelineLauncher launcher,
      SupervisorSettings settings,
      Clock clock) {
    return new ManagedPipeline(
        spec.id(),
        file,
        Optional.of(spec),
        Optional.of(launcher),
        settings,
        clock,
        PipelineState.STOPPED,
        null);
  }

  /** A pipeline that can run, with the default stall threshold. */
  static ManagedPipeline runnable(
      PipelineSpec spec, Path file, PipelineLauncher launcher, Backoff backoff, Clock clock) {
    return runnable(
        spec,
        file,
        launcher,
        SupervisorSettings.serve(backoff, SupervisorSettings.DEFAULT_STALL_AFTER),
        clock);
  }

  /** A pipeline whose file could not be loaded: FAILED for good, with the reason. */
  static ManagedPipeline invalid(
      String id, Path file, Optional<PipelineSpec> spec, String reason, Clock clock) {
    return new ManagedPipeline(
        id,
        file,
        spec,
        Optional.empty(),
        SupervisorSettings.serve(
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)),
            SupervisorSettings.DEFAULT_STALL_AFTER),
        clock,
        PipelineState.FAILED,
        reason);
  }

  /** Attaches the meters; call once, before {@link #start}. */
  void attach(PipelineMetrics pipelineMetrics) {
    this.metrics = pipelineMetrics;
    pipelineMetrics.commitLag(progress.activity()::uncommittedReads);
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
    return lifecycle.state();
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
    return worker != null && worker.isAlive() && lifecycle.state().active();
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
      trigger = runTrigger;
      lifecycle.moveTo(PipelineState.STARTING, null);
      PipelineSupervisor started =
          new PipelineSupervisor(
              spec.orElseThrow(),
              launcher.get(),
              settings,
              lifecycle,
              progress,
              clock,
              new MetricsObserver());
      supervisor = started;
      worker = new Thread(() -> supervise(started, runTrigger), "pipeline-" + id);
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
    PipelineSupervisor active;
    synchronized (lock) {
      if (!runActive()) {
        return false;
      }
      active = supervisor;
    }
    active.stop();
    return true;
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

  private void supervise(PipelineSupervisor supervisor, TriggerSpec runTrigger) {
    try {
      supervisor.run(runTrigger);
    } catch (Throwable ended) {
      // The supervisor logged it and the state (FAILED) carries the reason; this thread ends here.
      LOG.debug("Pipeline {} ended: {}", id, secrets.mask(ended.toString()));
    }
  }

  /** Reports the supervisor's events to the meters, once they are attached. */
  private final class MetricsObserver implements PipelineSupervisor.Observer {
    @Override
    public void opened(PipelineLauncher.ActiveRun run) {
      PipelineMetrics m = metrics;
      if (m != null) {
        // before the run polls: its first assignment is a rebalance too
        run.groups().forEach(g -> g.onRebalance(m::rebalanced));
      }
    }

    @Override
    public void failed(boolean permanent) {
      PipelineMetrics m = metrics;
      if (m != null) {
        m.failure(permanent);
      }
    }

    @Override
    public void restarted() {
      PipelineMetrics m = metrics;
      if (m != null) {
        m.restarted();
      }
    }
  }

  /**
   * The consumer groups the active run is a member of, with this instance's member id and
   * assignment (group assignment; empty in exclusive assignment or without an active run).
   */
  List<GroupMember.Snapshot> groupMembers() {
    PipelineSupervisor active;
    synchronized (lock) {
      active = supervisor;
    }
    return active == null
        ? List.of()
        : active.groups().stream().map(GroupMember::snapshot).toList();
  }

  /** A consistent snapshot for the REST API and health. */
  PipelineStatus status() {
    List<BatchProgress> last = progress.last(1);
    RunActivity.Snapshot activity = progress.activity().snapshot();
    PipelineLifecycle.Snapshot now = lifecycle.snapshot();
    TriggerSpec shown;
    synchronized (lock) {
      shown = trigger == null ? spec.map(PipelineSpec::trigger).orElse(null) : trigger;
    }
    return PipelineStatus.of(
        this,
        now,
        shown,
        last.isEmpty() ? null : last.get(0),
        activity,
        new PipelineStatus.Freshness(newestCommitted.get(), progress.activity().uncommittedReads()),
        clock.instant());
  }
}
