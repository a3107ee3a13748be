package dev.tributary.service.engine;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.RecoveryPlan;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.QuarantineLimit;
import dev.tributary.config.TriggerSpec;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.stream.SourceRow;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a pipeline as a sequence of micro-batches. Each batch goes through the same steps, and the
 * order of the steps is the exactly-once argument (docs/DESIGN.md):
 *
 * <ol>
 *   <li>plan: the {@link Source} plans the batch's {@link BatchRange} within its rate limits;
 *   <li>write-ahead: the plan goes to the checkpoint's offsets log (put-if-absent) BEFORE any data
 *       is read, so a crash from here on replays exactly this range;
 *   <li>process: read exactly the range, parse, transform, write Parquet files;
 *   <li>commit: the quarantine table, then the sink table, each in one Delta commit carrying the
 *       batch's {@link BatchTag} ({@link TableTxns}): a table that already holds the batch skips
 *       it;
 *   <li>mark done: the checkpoint's commits log gets the batch; then, best effort, the source is
 *       told ({@link Source#committed}).
 * </ol>
 *
 * <p>On start, a batch with an offsets entry but no commits entry is replayed with the same range.
 * The engine knows no source or table format: sources and tables sit behind {@link Source} and
 * {@link TableSink}. Not thread-safe: {@link #run} runs on one thread; {@link #stop} may be called
 * from any thread and lets the current batch finish.
 */
public final class MicroBatchEngine implements BatchLoop {
  private static final Logger log = LoggerFactory.getLogger(MicroBatchEngine.class);

  /** How often old offsets/commits entries are deleted (every N batches). */
  private static final int PURGE_EVERY_BATCHES = 20;

  private final String pipelineId;
  private final TableTxns txns;
  private final Map<SourcePartition, Long> startAfter;
  private final Source source;
  private final Checkpoint checkpoint;
  private final RecordProcessor processor;
  private final TableSink sink;
  private final TableSink quarantine;
  private final Optional<TableSink> lateEvents;
  private final ProgressLog progress;
  private final Clock clock;
  private final Optional<QuarantineLimit> quarantineLimit;

  /**
   * Null: the watermark is this engine's own (every pipeline but a stateful group-mode
   * sub-pipeline).
   */
  private final WatermarkAgreement agreement;

  /** The watermark the commits entry before the running batch recorded (see {@link #own}). */
  private OptionalLong ownBefore = OptionalLong.empty();

  private final AtomicBoolean stopRequested = new AtomicBoolean();
  private volatile boolean inBatch;
  private Instant previousBatchStart;

  /**
   * @param txns how this checkpoint's batches are keyed in the tables
   * @param startAfter where a checkpoint without batches starts, per partition (a new checkpoint
   *     continuing after a table, {@code starting-offsets: table}); empty: the declared
   *     starting-offsets. Ignored once the checkpoint has a batch.
   * @param lateEvents the table events behind the watermark go to, if declared
   */
  public MicroBatchEngine(
      TableTxns txns,
      Map<SourcePartition, Long> startAfter,
      Source source,
      Checkpoint checkpoint,
      RecordProcessor processor,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> lateEvents,
      ProgressLog progress,
      Clock clock) {
    this(
        txns,
        startAfter,
        source,
        checkpoint,
        processor,
        sink,
        quarantine,
        lateEvents,
        progress,
        clock,
        Optional.empty());
  }

  /**
   * As the other constructor, failing a batch before it commits anything when it quarantines more
   * than {@code quarantineLimit} of its records ({@link QuarantineLimitExceededException}).
   */
  public MicroBatchEngine(
      TableTxns txns,
      Map<SourcePartition, Long> startAfter,
      Source source,
      Checkpoint checkpoint,
      RecordProcessor processor,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> lateEvents,
      ProgressLog progress,
      Clock clock,
      Optional<QuarantineLimit> quarantineLimit) {
    this(
        txns,
        startAfter,
        source,
        checkpoint,
        processor,
        sink,
        quarantine,
        lateEvents,
        progress,
        clock,
        quarantineLimit,
        null);
  }

  /**
   * As the other constructors, each batch applying the watermark {@code agreement} decides rather
   * than the one the previous batch computed (docs/DESIGN.md, "Stateful pipelines in group mode"):
   * at planning the offsets entry gets {@code agreement.agreed(own)}, where {@code own} is the
   * watermark the latest commits entry recorded, but never less than the one the previous batch
   * applied; a batch without data runs when the agreed watermark is above the one the last batch
   * applied (and then only then: the processor's own no-data wish follows its own watermark, which
   * the agreement replaces). The commits entry records this sub-pipeline's own watermark, which
   * never goes back either.
   *
   * @param agreement null for an engine whose watermark is its own
   */
  public MicroBatchEngine(
      TableTxns txns,
      Map<SourcePartition, Long> startAfter,
      Source source,
      Checkpoint checkpoint,
      RecordProcessor processor,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> lateEvents,
      ProgressLog progress,
      Clock clock,
      Optional<QuarantineLimit> quarantineLimit,
      WatermarkAgreement agreement) {
    this.agreement = agreement;
    this.quarantineLimit = quarantineLimit;
    this.pipelineId = txns.pipelineId();
    this.txns = txns;
    this.startAfter = Map.copyOf(startAfter);
    this.source = source;
    this.checkpoint = checkpoint;
    this.processor = processor;
    this.sink = sink;
    this.quarantine = quarantine;
    this.lateEvents = lateEvents;
    this.progress = progress;
    this.clock = clock;
  }

  /**
   * Asks the engine to stop after the batch in progress; returns at once. Between batches
   * (planning, waiting for the next trigger, or stuck on an unreachable broker) the engine stops
   * promptly.
   */
  @Override
  public void stop() {
    stopRequested.set(true);
    if (!inBatch) {
      source.wakeup();
    }
  }

  public boolean stopRequested() {
    return stopRequested.get();
  }

  /**
   * Runs batches until the trigger says the run is over (available-now, once) or {@link #stop} is
   * called. Returns normally after a clean stop; throws what made a batch fail.
   */
  @Override
  public void run(TriggerSpec trigger) throws Exception {
    try {
      runBatches(trigger);
    } catch (SourceStoppedException e) {
      if (!stopRequested.get()) {
        throw e;
      }
      // stop() interrupted a source call; an unfinished batch is replayed at the next start
      log.info("Pipeline {}: stopped", pipelineId);
    }
  }

  private void runBatches(TriggerSpec trigger) throws Exception {
    RecoveryPlan recovery = checkpoint.recover();
    BatchRange previous =
        recovery.latestOffsets().map(BatchRange::of).orElse(BatchRange.startingAt(startAfter));
    OptionalLong watermark =
        recovery.latestCommit().map(CommitEntry::nextWatermarkMicros).orElse(OptionalLong.empty());
    // Spark's two watermarks (SPARK-40925): a batch evicts with the watermark computed after the
    // previous batch and judges late rows with the one that batch evicted with.
    OptionalLong lateWatermark =
        recovery.latestOffsets().map(OffsetsEntry::watermarkMicros).orElse(OptionalLong.empty());
    if (recovery.batchToReplay().isPresent()) {
      OffsetsEntry entry = recovery.batchToReplay().get();
      log.info(
          "Pipeline {}: replaying batch {} planned before a restart", pipelineId, entry.batchId());
      PhaseTimer timer = new PhaseTimer(clock);
      timer.start();
      ownBefore = watermark;
      progress.activity().enter(RunActivity.Phase.READING);
      watermark = runBatch(entry, source.replayed(BatchRange.of(entry)), true, timer);
      lateWatermark = entry.watermarkMicros();
    } else if (recovery.latestCommit().isPresent()) {
      processor.restored(recovery.latestOffsets().orElseThrow().watermarkMicros(), watermark);
    }
    long batchId = recovery.nextBatchId() + (recovery.batchToReplay().isPresent() ? 1 : 0);
    boolean first = recovery.action() == RecoveryPlan.Action.NONE;
    if (!(trigger instanceof TriggerSpec.ProcessingTime)) {
      source.boundToAvailableNow();
    }
    while (!stopRequested.get()) {
      PhaseTimer timer = new PhaseTimer(clock);
      Instant started = timer.start();
      progress.activity().enter(RunActivity.Phase.PLANNING);
      PlannedBatch plan = source.plan(previous, first);
      OptionalLong applies = agreement == null ? watermark : agreed(watermark, lateWatermark);
      // The very first batch is written even when empty: it pins the starting point (latest,
      // timestamp) so that a restart does not recompute it and skip what arrived meanwhile.
      boolean hasWork = plan.hasInput() || first || noDataBatchWanted(applies, lateWatermark);
      if (hasWork) {
        timer.mark("plan");
        CrashPoints.reached(CrashPoints.AFTER_PLAN);
        Map<String, String> extras = new LinkedHashMap<>(plan.range().facts());
        extras.putAll(
            processor.planBatch(batchId)); // e.g. the dimension versions the batch joins with
        OffsetsEntry entry =
            new OffsetsEntry(
                batchId, plan.range().offsets(), applies, lateWatermark, started, extras);
        checkpoint.writeOffsets(entry);
        CrashPoints.reached(CrashPoints.AFTER_OFFSETS_LOG);
        timer.mark("walCommit");
        ownBefore = watermark;
        progress.activity().enter(RunActivity.Phase.READING);
        watermark = runBatch(entry, plan, false, timer);
        lateWatermark = entry.watermarkMicros();
        previous = BatchRange.of(entry);
        batchId++;
        first = false;
      }
      if (trigger instanceof TriggerSpec.Once
              && !noDataBatchWanted(
                  agreement == null ? watermark : agreed(watermark, lateWatermark), lateWatermark)
          || trigger instanceof TriggerSpec.AvailableNow && !hasWork) {
        return;
      }
      if (trigger instanceof TriggerSpec.ProcessingTime p) {
        progress.activity().enter(RunActivity.Phase.WAITING);
        sleepUntil(started.plus(p.interval()));
      }
    }
  }

  /** The agreed watermark, never below the one the last batch applied ({@code applied}). */
  private OptionalLong agreed(OptionalLong own, OptionalLong applied) throws IOException {
    OptionalLong agreed = agreement.agreed(own);
    if (applied.isPresent() && (agreed.isEmpty() || agreed.getAsLong() < applied.getAsLong())) {
      return applied;
    }
    return agreed;
  }

  /**
   * Whether a batch without data is wanted: the processor's wish, or, with an agreement, whether
   * the watermark the next batch would apply is above the one the last batch applied.
   */
  private boolean noDataBatchWanted(OptionalLong next, OptionalLong applied) {
    if (agreement == null) {
      return processor.wantsNoDataBatch();
    }
    return next.isPresent() && (applied.isEmpty() || next.getAsLong() > applied.getAsLong());
  }

  /**
   * The watermark the commits entry records. With an agreement, the processor computes its next
   * watermark from the agreed one it applied (lower than its own), so this sub-pipeline's own
   * watermark is kept from going back: the max of the previous own one and the processor's.
   */
  private OptionalLong own(OptionalLong previousOwn, OptionalLong computed) {
    if (agreement == null || previousOwn.isEmpty()) {
      return computed;
    }
    if (computed.isEmpty() || computed.getAsLong() < previousOwn.getAsLong()) {
      return previousOwn;
    }
    return computed;
  }

  private void sleepUntil(Instant deadline) throws InterruptedException {
    while (!stopRequested.get()) {
      long wait = Duration.between(clock.instant(), deadline).toMillis();
      if (wait <= 0) {
        return;
      }
      Thread.sleep(Math.min(wait, 200));
    }
  }

  /**
   * One batch: process exactly the planned range, commit the tables, mark the batch done.
   *
   * @return the watermark the next batch applies
   */
  OptionalLong runBatch(OffsetsEntry entry, PlannedBatch plan, boolean replayed, PhaseTimer timer)
      throws Exception {
    inBatch = true;
    try {
      return runBatchSteps(entry, plan, replayed, timer);
    } catch (SourceStoppedException | BatchFailedException | QuarantineLimitExceededException e) {
      throw e; // a stop, or already named
    } catch (Exception e) {
      // Per-record problems never get here (they are quarantined): name the batch the failure holds
      // up.
      throw new BatchFailedException(pipelineId, entry.batchId(), source.describe(plan.range()), e);
    } finally {
      inBatch = false;
    }
  }

  private OptionalLong runBatchSteps(
      OffsetsEntry entry, PlannedBatch plan, boolean replayed, PhaseTimer timer) throws Exception {
    long batchId = entry.batchId();
    BatchRange range = BatchRange.of(entry);
    BatchTag tag = txns.tag(batchId, entry.ranges());
    try (TableSink.BatchWriter mainWriter =
            PipelinedBatchWriter.wrap(sink.begin(tag), pipelineId + "-writer");
        TableSink.BatchWriter quarantineWriter = quarantine.begin(tag);
        TableSink.BatchWriter lateWriter =
            lateEvents.isPresent() ? lateEvents.get().begin(tag) : null) {
      BatchOutputs outputs = new BatchOutputs(mainWriter, quarantineWriter, lateWriter);
      // Even when every table already holds the batch, a stateful processor must replay it to
      // rebuild the state version it commits; a stateless one could skip the read.
      processor.beginBatch(
          RecordProcessor.BatchContext.of(
              batchId,
              timer.startedAt(),
              entry.watermarkMicros(),
              entry.lateWatermarkMicros(),
              range.backlogged(),
              entry.extras()));
      List<String> readGaps =
          source.read(
              range,
              processor.dependsOnRecordOrder(),
              new ProcessorInput(processor, outputs, progress.activity()));
      processor.endBatch(outputs);
      OptionalLong nextWatermark = own(ownBefore, processor.nextWatermarkMicros());
      timer.mark("process");
      checkQuarantineLimit(entry, plan, outputs);
      CommitTally tally = new CommitTally();
      Map<String, String> info = commitInfo(entry, source.commitInfo(range), readGaps);
      progress.activity().enter(RunActivity.Phase.COMMITTING);
      quarantineWriter.commit(info);
      CrashPoints.reached(CrashPoints.AFTER_QUARANTINE_COMMIT);
      if (lateWriter != null) {
        lateWriter.commit(info);
      }
      long sinkVersion = mainWriter.commit(info);
      CrashPoints.reached(CrashPoints.AFTER_SINK_COMMIT);
      tally.finish();
      timer.mark("commit");
      processor.commit(batchId);
      CrashPoints.reached(CrashPoints.AFTER_STATE_COMMIT);
      timer.mark("stateCommit");
      checkpoint.writeCommit(
          new CommitEntry(
              batchId,
              nextWatermark,
              clock.instant(),
              Map.of("sinkVersion", Long.toString(sinkVersion))));
      CrashPoints.reached(CrashPoints.AFTER_COMMITS_LOG);
      if (batchId % PURGE_EVERY_BATCHES == 0) {
        checkpoint.purge(); // keeps the last Checkpoint.DEFAULT_RETAINED_BATCHES entries
      }
      timer.mark("checkpointCommit");
      source.committed(range);
      BatchProgress done =
          progress(
              entry,
              plan,
              replayed,
              timer,
              outputs,
              mainWriter.rows(),
              quarantineWriter.rows(),
              sinkVersion,
              tally);
      progress.add(done);
      return nextWatermark;
    }
  }

  /**
   * Before any commit: a batch above {@code quarantine.max-fraction} fails here, leaving every
   * table as it was.
   */
  private void checkQuarantineLimit(OffsetsEntry entry, PlannedBatch plan, BatchOutputs outputs)
      throws QuarantineLimitExceededException {
    if (quarantineLimit.isPresent()
        && quarantineLimit.get().exceededBy(outputs.quarantinedRows(), outputs.inputRows())) {
      throw new QuarantineLimitExceededException(
          pipelineId,
          entry.batchId(),
          source.describe(plan.range()),
          outputs.quarantinedRows(),
          outputs.inputRows(),
          quarantineLimit.get(),
          outputs.firstQuarantineError());
    }
  }

  /**
   * What the tables' commits record: the entry's extras but planning details, the batch id, the
   * source's range.
   */
  private static Map<String, String> commitInfo(
      OffsetsEntry entry, Map<String, String> sourceInfo, List<String> readGaps) {
    Map<String, String> info = new LinkedHashMap<>(entry.extras());
    info.remove(BatchRange.BACKLOGGED); // planning detail for the processor, not table history
    info.put("batchId", Long.toString(entry.batchId()));
    info.putAll(new TreeMap<>(sourceInfo));
    if (!readGaps.isEmpty()) {
      info.put("dataLossWhileReading", readGaps.toString());
    }
    return info;
  }

  /** Feeds a batch's input to the processor; the mid-batch crash point sits between two inputs. */
  private record ProcessorInput(
      RecordProcessor processor, BatchOutputs outputs, RunActivity activity)
      implements SourceInput {
    @Override
    public void record(ConsumerRecord<byte[], byte[]> record) throws Exception {
      CrashPoints.reached(CrashPoints.MID_BATCH);
      activity.progressed();
      processor.process(record, outputs);
    }

    @Override
    public void row(SourceRow row) throws Exception {
      CrashPoints.reached(CrashPoints.MID_BATCH);
      activity.progressed();
      processor.processRow(row, outputs);
    }
  }

  private BatchProgress progress(
      OffsetsEntry entry,
      PlannedBatch plan,
      boolean replayed,
      PhaseTimer timer,
      BatchOutputs outputs,
      long outputRows,
      long quarantined,
      long sinkVersion,
      CommitTally tally) {
    Instant startedAt = timer.startedAt();
    long durationMs = Math.max(1, timer.elapsedMs());
    double inputRate = 0;
    if (previousBatchStart != null) {
      long sincePrevious = Math.max(1, Duration.between(previousBatchStart, startedAt).toMillis());
      inputRate = outputs.inputRows() * 1000.0 / sincePrevious;
    }
    previousBatchStart = startedAt;
    List<BatchProgress.PartitionProgress> partitions = plan.progress();
    List<String> gaps =
        entry.extras().containsKey("dataLoss")
            ? List.of(entry.extras().get("dataLoss"))
            : List.of();
    return new BatchProgress(
        pipelineId,
        entry.batchId(),
        replayed,
        startedAt,
        outputs.inputRows(),
        outputRows,
        quarantined,
        outputs.filteredRows(),
        outputs.lateRows(),
        inputRate,
        outputs.inputRows() * 1000.0 / durationMs,
        durationMs,
        timer.phases(),
        partitions,
        sinkVersion,
        entry.watermarkMicros().isPresent() ? micros(entry.watermarkMicros().getAsLong()) : null,
        gaps,
        processor.stateMetrics(),
        tally.retries,
        tally.conflicts,
        plan.sourceLag());
  }

  /** Commit retries and conflicts of one batch's table commits: counters after minus before. */
  private final class CommitTally {
    private final List<TableSink> tables = new ArrayList<>();
    private final List<CommitCounters> before = new ArrayList<>();
    long retries;
    long conflicts;

    CommitTally() {
      tables.add(sink);
      tables.add(quarantine);
      lateEvents.ifPresent(tables::add);
      tables.forEach(t -> before.add(t.commitCounters()));
    }

    void finish() {
      for (int i = 0; i < tables.size(); i++) {
        var after = tables.get(i).commitCounters();
        retries += after.retries() - before.get(i).retries();
        conflicts += after.conflicts() - before.get(i).conflicts();
      }
    }
  }

  private static Instant micros(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L);
  }
}
