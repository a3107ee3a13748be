package dev.tributary.service.engine;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.TriggerSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one run loop of every pipeline (docs/DESIGN.md, "The run loop"): starts the {@link Step}
 * (recovery, a replay, the bound of a bounded run), then runs one step per trigger — a batch, or a
 * round of a stateful group pipeline's two stages — until the trigger ends the run or {@link #stop}
 * is called, waiting between steps as the trigger says.
 *
 * <ul>
 *   <li>{@code processing-time}: a step every interval, the wait spent in {@link Step#idle} (a
 *       consumer-group member keeps its membership while it waits);
 *   <li>{@code available-now} and {@code once}: steps until the step says the bounded run is over
 *       ({@link Step#finished}); a step that did nothing waits {@value #IDLE_MS} ms before the
 *       next, so a run that waits for other instances does not spin;
 *   <li>{@code continuous}: steps one after the other without a wait, each reading records as they
 *       arrive for the interval (the write-ahead log's continuous batches, {@link Batch#readFor}).
 * </ul>
 *
 * <p>A {@link PartitionMovedException} is handled here and only here: a pipeline that shares its
 * input ({@link OnMoved#DROP_BATCH}) logs and counts the dropped batch and goes on; a pipeline that
 * owns its input alone ({@link OnMoved#END_RUN}) ends its run with it. A {@link
 * SourceStoppedException} after a stop ends the run normally (an unfinished batch is replayed at
 * the next start). Not thread-safe: {@link #run} runs on one thread; {@link #stop} may be called
 * from any thread.
 */
public final class TriggerLoop {
  private static final Logger log = LoggerFactory.getLogger(TriggerLoop.class);
  private static final long IDLE_MS = 200;

  /** What the loop runs, one step per trigger. */
  public interface Step {
    /** Prepares a run: recovery, a replay of a batch cut short, the end of a bounded run. */
    void start(TriggerSpec trigger) throws Exception;

    /**
     * Runs one step: plans and, if there is something to do, runs a batch (or a round).
     *
     * @return whether the step read or committed anything
     */
    boolean step() throws Exception;

    /**
     * Whether a bounded run ({@code available-now}, {@code once}) is over after a step.
     *
     * @param didWork what the step returned
     */
    boolean finished(TriggerSpec trigger, boolean didWork) throws Exception;

    /** Waits up to {@code wait} between steps (a group member polls its consumer meanwhile). */
    void idle(Duration wait) throws InterruptedException;

    /**
     * A stop was asked: abort a blocking call between batches (planning, waiting for an unreachable
     * broker) with a {@link SourceStoppedException}; never one inside a batch, which finishes.
     * Thread-safe.
     */
    void interrupt();
  }

  /** What a {@link PartitionMovedException} means to this loop. */
  public enum OnMoved {
    /** The input is shared with other instances: drop the batch, log it, go on. */
    DROP_BATCH,
    /** The input is this loop's alone: another process took over, so the run ends with it. */
    END_RUN
  }

  private final String pipelineId;
  private final Step step;
  private final OnMoved onMoved;
  private final Clock clock;
  private final RunActivity activity;
  private final AtomicBoolean stopRequested = new AtomicBoolean();
  private final AtomicLong dropped = new AtomicLong();

  /**
   * @param activity where the loop reports that it waits for the next trigger (a step reports its
   *     own phases)
   */
  public TriggerLoop(
      String pipelineId, Step step, OnMoved onMoved, Clock clock, RunActivity activity) {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.step = Objects.requireNonNull(step, "step");
    this.onMoved = Objects.requireNonNull(onMoved, "onMoved");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.activity = Objects.requireNonNull(activity, "activity");
  }

  /**
   * Runs steps until the trigger says the run is over or {@link #stop} is called. Returns normally
   * after a clean stop; throws what made a step fail.
   */
  public void run(TriggerSpec trigger) throws Exception {
    try {
      runSteps(trigger);
    } catch (SourceStoppedException e) {
      if (!stopRequested.get()) {
        throw e;
      }
      // stop() interrupted a source call; an unfinished batch is replayed at the next start
      log.info("Pipeline {}: stopped", pipelineId);
    }
  }

  private void runSteps(TriggerSpec trigger) throws Exception {
    step.start(trigger);
    boolean bounded = !trigger.unbounded();
    while (!stopRequested.get()) {
      Instant started = clock.instant();
      boolean didWork;
      try {
        didWork = step.step();
      } catch (PartitionMovedException e) {
        if (onMoved == OnMoved.END_RUN) {
          throw e;
        }
        dropped.incrementAndGet();
        // a warning: this instance was a zombie, or a rebalance cut a batch short (work done twice)
        log.warn(
            "Pipeline {}: a batch was dropped, nothing of it committed: {}",
            pipelineId,
            e.getMessage());
        didWork = true;
      }
      if (bounded && step.finished(trigger, didWork)) {
        return;
      }
      if (trigger instanceof TriggerSpec.ProcessingTime p) {
        activity.enter(RunActivity.Phase.WAITING);
        idleUntil(started.plus(p.interval()));
      } else if (!didWork && !(trigger instanceof TriggerSpec.Continuous)) {
        // a continuous step reads for its interval itself: the next one starts at once
        activity.enter(RunActivity.Phase.WAITING);
        step.idle(Duration.ofMillis(IDLE_MS));
      }
    }
  }

  private void idleUntil(Instant deadline) throws InterruptedException {
    while (!stopRequested.get()) {
      long wait = Duration.between(clock.instant(), deadline).toMillis();
      if (wait <= 0) {
        return;
      }
      step.idle(Duration.ofMillis(Math.min(wait, IDLE_MS)));
    }
  }

  /**
   * Asks the loop to stop after the step in progress; returns at once. Between batches (planning,
   * waiting for the next trigger, or stuck on an unreachable broker) the loop stops promptly.
   */
  public void stop() {
    stopRequested.set(true);
    step.interrupt();
  }

  /** Whether {@link #stop} was called. */
  public boolean stopRequested() {
    return stopRequested.get();
  }

  /**
   * Batches dropped because another instance took their input over ({@link OnMoved#DROP_BATCH}).
   */
  public long droppedBatches() {
    return dropped.get();
  }

  /**
   * One pipeline's batches as a {@link Step}: a {@link ProgressModel} fixes each batch, the {@link
   * BatchBody} runs it. {@link #start} replays the batch a crash cut short (if the model keeps one)
   * and fixes the end of a bounded run; each {@link #step} plans one batch and runs it.
   */
  public static final class Batches implements Step {
    private final ProgressModel model;
    private final BatchBody body;
    private volatile boolean inBatch;

    public Batches(ProgressModel model, BatchBody body) {
      this.model = Objects.requireNonNull(model, "model");
      this.body = Objects.requireNonNull(body, "body");
    }

    /** A loop running this pipeline's batches. */
    public static TriggerLoop loop(ProgressModel model, BatchBody body, OnMoved onMoved) {
      return new TriggerLoop(
          body.settings().pipelineId(),
          new Batches(model, body),
          onMoved,
          body.settings().clock(),
          body.settings().progress().activity());
    }

    /**
     * The loop of a pipeline whose progress is its checkpoint's write-ahead log: exclusive
     * assignment, or (with an agreed watermark) a sub-pipeline of a stateful group pipeline. A lost
     * race for a checkpoint entry ends the run.
     *
     * @param startAfter where a checkpoint without batches starts, per partition (empty: the
     *     declared starting point)
     */
    public static TriggerLoop writeAheadLog(
        BatchBody.Settings settings,
        Checkpoint checkpoint,
        TableTxns txns,
        Map<SourcePartition, Long> startAfter,
        WriteAheadLog.Tables tables,
        WatermarkPolicy watermarks) {
      return logged(settings, checkpoint, txns, startAfter, tables, watermarks, Optional.empty());
    }

    /**
     * The loop of a stateless pipeline on the continuous trigger ({@code trigger: continuous}):
     * progress in the checkpoint's write-ahead log, each batch reading records as they arrive for
     * {@code interval} and written ahead once read, before its commits.
     */
    public static TriggerLoop continuous(
        BatchBody.Settings settings,
        Checkpoint checkpoint,
        TableTxns txns,
        Map<SourcePartition, Long> startAfter,
        WriteAheadLog.Tables tables,
        Duration interval) {
      return logged(
          settings,
          checkpoint,
          txns,
          startAfter,
          tables,
          WatermarkPolicy.OWN,
          Optional.of(interval));
    }

    private static TriggerLoop logged(
        BatchBody.Settings settings,
        Checkpoint checkpoint,
        TableTxns txns,
        Map<SourcePartition, Long> startAfter,
        WriteAheadLog.Tables tables,
        WatermarkPolicy watermarks,
        Optional<Duration> readFor) {
      WriteAheadLog model =
          new WriteAheadLog(
              checkpoint,
              txns,
              startAfter,
              tables,
              settings.source(),
              settings.processor(),
              watermarks,
              settings.clock(),
              readFor);
      return loop(model, new BatchBody(settings), OnMoved.END_RUN);
    }

    /**
     * The loop of one instance of a stateless pipeline in consumer-group mode: progress is the sink
     * table's positions, and a batch another instance got to first is dropped.
     */
    public static TriggerLoop tablePositions(
        BatchBody.Settings settings, TableTxns txns, TableSink sink, TableSink quarantine) {
      TablePositions model =
          new TablePositions(txns, sink, quarantine, settings.source(), settings.processor());
      return loop(model, new BatchBody(settings), OnMoved.DROP_BATCH);
    }

    @Override
    public void start(TriggerSpec trigger) throws Exception {
      PhaseTimer timer = new PhaseTimer(body.settings().clock());
      timer.start();
      Optional<Batch> replay = model.recover(timer);
      if (replay.isPresent()) {
        activity().enter(RunActivity.Phase.READING);
        run(replay.get(), timer);
      }
      if (!trigger.unbounded()) {
        body.settings().source().boundToAvailableNow();
      }
    }

    @Override
    public boolean step() throws Exception {
      PhaseTimer timer = new PhaseTimer(body.settings().clock());
      timer.start();
      activity().enter(RunActivity.Phase.PLANNING);
      Optional<Batch> next = model.next(timer);
      if (next.isEmpty()) {
        return false;
      }
      activity().enter(RunActivity.Phase.READING);
      return run(next.get(), timer);
    }

    private RunActivity activity() {
      return body.settings().progress().activity();
    }

    /** Runs a batch; false for a continuous batch that read nothing. */
    private boolean run(Batch batch, PhaseTimer timer) throws Exception {
      inBatch = true;
      try {
        return body.run(batch, model, timer).isPresent();
      } finally {
        inBatch = false;
      }
    }

    /**
     * {@code available-now} ends with the first step without a batch; {@code once} ends after its
     * batch unless the model wants a batch without input (state the watermark now finalises).
     */
    @Override
    public boolean finished(TriggerSpec trigger, boolean didWork) throws Exception {
      if (trigger instanceof TriggerSpec.Once) {
        return !model.wantsNoDataBatch();
      }
      return !didWork;
    }

    @Override
    public void idle(Duration wait) throws InterruptedException {
      body.settings().source().idle(wait);
    }

    @Override
    public void interrupt() {
      if (!inBatch) {
        body.settings().source().wakeup();
      }
    }
  }
}
