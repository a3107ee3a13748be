package dev.tributary.service.engine;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.TriggerSpec;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One pipeline's batches as a {@link TriggerLoop.Step}: a {@link ProgressModel} fixes each batch,
 * the {@link BatchBody} runs it. {@link #start} replays the batch a crash cut short (if the model
 * keeps one) and fixes the end of a bounded run; each {@link #step} plans one batch and runs it.
 */
public final class BatchEngine implements TriggerLoop.Step {
  private final ProgressModel model;
  private final BatchBody body;
  private volatile boolean inBatch;

  public BatchEngine(ProgressModel model, BatchBody body) {
    this.model = Objects.requireNonNull(model, "model");
    this.body = Objects.requireNonNull(body, "body");
  }

  /** A loop running this pipeline's batches. */
  public static TriggerLoop loop(ProgressModel model, BatchBody body, TriggerLoop.OnMoved onMoved) {
    return new TriggerLoop(
        body.settings().pipelineId(),
        new BatchEngine(model, body),
        onMoved,
        body.settings().clock());
  }

  /**
   * The loop of a pipeline whose progress is its checkpoint's write-ahead log: exclusive
   * assignment, or (with an agreed watermark) a sub-pipeline of a stateful group pipeline. A lost
   * race for a checkpoint entry ends the run.
   *
   * @param startAfter where a checkpoint without batches starts, per partition (empty: the declared
   *     starting point)
   */
  public static TriggerLoop writeAheadLog(
      BatchBody.Settings settings,
      Checkpoint checkpoint,
      TableTxns txns,
      Map<SourcePartition, Long> startAfter,
      WriteAheadLog.Tables tables,
      WatermarkPolicy watermarks) {
    WriteAheadLog model =
        new WriteAheadLog(
            checkpoint,
            txns,
            startAfter,
            tables,
            settings.source(),
            settings.processor(),
            watermarks,
            settings.clock());
    return loop(model, new BatchBody(settings), TriggerLoop.OnMoved.END_RUN);
  }

  /**
   * The loop of one instance of a stateless pipeline in consumer-group mode: progress is the sink
   * table's positions, and a batch another instance got to first is dropped.
   */
  public static TriggerLoop tablePositions(
      BatchBody.Settings settings, TableTxns txns, TableSink sink, TableSink quarantine) {
    TablePositions model =
        new TablePositions(txns, sink, quarantine, settings.source(), settings.processor());
    return loop(model, new BatchBody(settings), TriggerLoop.OnMoved.DROP_BATCH);
  }

  @Override
  public void start(TriggerSpec trigger) throws Exception {
    PhaseTimer timer = new PhaseTimer(body.settings().clock());
    timer.start();
    Optional<Batch> replay = model.recover(timer);
    if (replay.isPresent()) {
      run(replay.get(), timer);
    }
    if (!(trigger instanceof TriggerSpec.ProcessingTime)) {
      body.settings().source().boundToAvailableNow();
    }
  }

  @Override
  public boolean step() throws Exception {
    PhaseTimer timer = new PhaseTimer(body.settings().clock());
    timer.start();
    Optional<Batch> next = model.next(timer);
    if (next.isEmpty()) {
      return false;
    }
    run(next.get(), timer);
    return true;
  }

  private void run(Batch batch, PhaseTimer timer) throws Exception {
    inBatch = true;
    try {
      body.run(batch, model, timer);
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
