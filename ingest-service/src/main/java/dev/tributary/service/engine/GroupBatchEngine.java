package dev.tributary.service.engine;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.QuarantineLimit;
import dev.tributary.config.TriggerSpec;
import dev.tributary.table.PositionConflictException;
import dev.tributary.table.PositionFence;
import dev.tributary.table.stream.SourceRow;
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
 * Runs one instance of a stateless pipeline whose partitions are shared through a consumer group
 * ({@code source.kafka.assignment: group}, docs/DESIGN.md "Scale-out"). The sink table is the
 * progress log: each batch
 *
 * <ol>
 *   <li>reads the partitions' positions ({@code txn(<pipeline>:<topic>:<partition>, next offset)})
 *       from the sink table and plans ranges from them, for the partitions assigned to this
 *       instance only;
 *   <li>reads exactly the ranges, parses, transforms, writes Parquet files;
 *   <li>commits the quarantine table, then the sink table, each with a fenced append that moves the
 *       positions of the partitions it covers and is valid only while the table holds the positions
 *       the batch started from (the quarantine table's own: rows below its position are already in
 *       it and are not written again);
 *   <li>tells the source (Kafka's consumer group offsets, lag tools only).
 * </ol>
 *
 * <p>A batch whose partition the group moved away mid-read ({@link RangeRevokedException}) or whose
 * position another instance moved first ({@link PositionConflictException}: this instance was a
 * zombie, or two owners overlapped during a rebalance) is dropped, not failed: nothing of it was
 * committed in the table that refused it, and the next plan starts from what the tables hold. There
 * is no write-ahead and no replay: a crashed instance's batch leaves orphan files, and whoever owns
 * the partition next plans from the sink table's position.
 *
 * <p>Not thread-safe: {@link #run} runs on one thread; {@link #stop} may be called from any thread.
 */
public final class GroupBatchEngine implements BatchLoop {
  private static final Logger log = LoggerFactory.getLogger(GroupBatchEngine.class);

  private final String pipelineId;
  private final TableTxns txns;
  private final Source source;
  private final RecordProcessor processor;
  private final TableSink sink;
  private final TableSink quarantine;
  private final ProgressLog progress;
  private final Clock clock;
  private final Optional<QuarantineLimit> quarantineLimit;
  private final AtomicBoolean stopRequested = new AtomicBoolean();
  private volatile boolean inBatch;
  private Instant previousBatchStart;
  private long droppedBatches;

  public GroupBatchEngine(
      TableTxns txns,
      Source source,
      RecordProcessor processor,
      TableSink sink,
      TableSink quarantine,
      ProgressLog progress,
      Clock clock,
      Optional<QuarantineLimit> quarantineLimit) {
    this.quarantineLimit = quarantineLimit;
    this.pipelineId = txns.pipelineId();
    this.txns = txns;
    this.source = source;
    this.processor = processor;
    this.sink = sink;
    this.quarantine = quarantine;
    this.progress = progress;
    this.clock = clock;
  }

  @Override
  public void stop() {
    stopRequested.set(true);
    if (!inBatch) {
      source.wakeup();
    }
  }

  /**
   * Batches dropped because the group moved a partition away or another instance committed it
   * first.
   */
  public long droppedBatches() {
    return droppedBatches;
  }

  /**
   * Runs batches. Available-now and once end when a plan over the partitions assigned to this
   * instance has nothing to read up to the offsets that were latest when the run started (once:
   * after one batch); see docs/DESIGN.md "Scale-out" for what that means while partitions move.
   */
  @Override
  public void run(TriggerSpec trigger) throws Exception {
    try {
      runBatches(trigger);
    } catch (SourceStoppedException e) {
      if (!stopRequested.get()) {
        throw e;
      }
      log.info("Pipeline {}: stopped", pipelineId);
    }
  }

  private void runBatches(TriggerSpec trigger) throws Exception {
    if (!(trigger instanceof TriggerSpec.ProcessingTime)) {
      source.boundToAvailableNow();
    }
    // Batch ids here only name this instance's batches (logs, progress, quarantine rows): the
    // positions in the tables, not the ids, make a batch idempotent.
    long batchId = 0;
    while (!stopRequested.get()) {
      PhaseTimer timer = new PhaseTimer(clock);
      Instant started = timer.start();
      progress.activity().enter(RunActivity.Phase.PLANNING);
      Map<SourcePartition, Long> positions = txns.historyIn(sink.snapshot()).positions();
      PlannedBatch plan = source.plan(BatchRange.startingAt(positions), true /* firstBatch */);
      boolean hasWork = plan.hasInput();
      if (hasWork) {
        timer.mark("plan");
        try {
          progress.activity().enter(RunActivity.Phase.READING);
          runBatch(batchId, plan, positions, timer);
        } catch (RuntimeException e) {
          String moved = movedOn(e);
          if (moved == null) {
            throw e;
          }
          droppedBatches++;
          // a warning: this instance was a zombie, or a rebalance cut a batch short (work done
          // twice)
          log.warn(
              "Pipeline {}: batch {} dropped, nothing of it committed: {}",
              pipelineId,
              batchId,
              moved);
        }
        batchId++;
      }
      if (trigger instanceof TriggerSpec.Once
          || trigger instanceof TriggerSpec.AvailableNow && !hasWork) {
        return;
      }
      if (trigger instanceof TriggerSpec.ProcessingTime p) {
        progress.activity().enter(RunActivity.Phase.WAITING);
        idleUntil(started.plus(p.interval()));
      }
    }
  }

  /** The reason if {@code e} (or a cause) says the batch's partitions moved on; null otherwise. */
  private static String movedOn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RangeRevokedException || t instanceof PositionConflictException) {
        return t.getMessage();
      }
    }
    return null;
  }

  private void idleUntil(Instant deadline) throws InterruptedException {
    while (!stopRequested.get()) {
      long wait = Duration.between(clock.instant(), deadline).toMillis();
      if (wait <= 0) {
        return;
      }
      source.idle(Duration.ofMillis(Math.min(wait, 200)));
    }
  }

  private void runBatch(
      long batchId, PlannedBatch plan, Map<SourcePartition, Long> positions, PhaseTimer timer)
      throws Exception {
    inBatch = true;
    try {
      runBatchSteps(batchId, plan, positions, timer);
    } catch (SourceStoppedException | BatchFailedException e) {
      throw e;
    } catch (Exception e) {
      if (movedOn(e) != null) {
        throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
      }
      throw new BatchFailedException(pipelineId, batchId, source.describe(plan.range()), e);
    } finally {
      inBatch = false;
    }
  }

  private void runBatchSteps(
      long batchId, PlannedBatch plan, Map<SourcePartition, Long> positions, PhaseTimer timer)
      throws Exception {
    BatchRange range = plan.range();
    Map<SourcePartition, Long> quarantined = txns.historyIn(quarantine.snapshot()).positions();
    List<PositionFence> sinkFences = new ArrayList<>();
    List<PositionFence> quarantineFences = new ArrayList<>();
    range
        .offsets()
        .forEach(
            (p, r) -> {
              Long at = positions.get(p);
              // An empty range at the table's position moves nothing: leaving it out keeps this
              // batch from
              // conflicting with a partition's new owner for no reason.
              if (!r.isEmpty() || at == null || at != r.start()) {
                sinkFences.add(new PositionFence(txns.positionAppId(p), optional(at), r.end()));
                quarantineFences.add(AlreadyQuarantined.fence(txns, p, quarantined, r.end()));
              }
            });
    if (sinkFences.isEmpty()) {
      return;
    }
    Map<String, String> extras =
        processor.planBatch(batchId); // e.g. the dimension versions the batch joins with
    try (TableSink.BatchWriter mainWriter =
            PipelinedBatchWriter.wrap(sink.beginFenced(sinkFences), pipelineId + "-writer");
        TableSink.BatchWriter quarantineWriter =
            new AlreadyQuarantined(quarantine.beginFenced(quarantineFences), quarantined)) {
      BatchOutputs outputs = new BatchOutputs(mainWriter, quarantineWriter, null);
      processor.beginBatch(
          RecordProcessor.BatchContext.of(
              batchId,
              timer.startedAt(),
              OptionalLong.empty(),
              OptionalLong.empty(),
              range.backlogged(),
              extras));
      List<String> readGaps = source.read(range, processor.dependsOnRecordOrder(), input(outputs));
      processor.endBatch(outputs);
      timer.mark("process");
      // Before any commit, as in MicroBatchEngine: a flooded batch leaves both tables as they were.
      if (quarantineLimit.isPresent()
          && quarantineLimit.get().exceededBy(outputs.quarantinedRows(), outputs.inputRows())) {
        throw new QuarantineLimitExceededException(
            pipelineId,
            batchId,
            source.describe(range),
            outputs.quarantinedRows(),
            outputs.inputRows(),
            quarantineLimit.get(),
            outputs.firstQuarantineError());
      }
      Map<String, String> info = commitInfo(batchId, extras, source.commitInfo(range), readGaps);
      long retriesBefore = sink.commitCounters().retries() + quarantine.commitCounters().retries();
      long conflictsBefore =
          sink.commitCounters().conflicts() + quarantine.commitCounters().conflicts();
      progress.activity().enter(RunActivity.Phase.COMMITTING);
      quarantineWriter.commit(info);
      CrashPoints.reached(CrashPoints.AFTER_QUARANTINE_COMMIT);
      long sinkVersion = mainWriter.commit(info);
      CrashPoints.reached(CrashPoints.AFTER_SINK_COMMIT);
      timer.mark("commit");
      processor.commit(batchId);
      source.committed(range);
      long retries =
          sink.commitCounters().retries() + quarantine.commitCounters().retries() - retriesBefore;
      long conflicts =
          sink.commitCounters().conflicts()
              + quarantine.commitCounters().conflicts()
              - conflictsBefore;
      progress.add(
          progress(
              batchId,
              plan,
              timer,
              outputs,
              mainWriter.rows(),
              quarantineWriter.rows(),
              sinkVersion,
              range,
              retries,
              conflicts));
    }
  }

  private static OptionalLong optional(Long value) {
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }

  private SourceInput input(BatchOutputs outputs) {
    return new SourceInput() {
      @Override
      public void record(ConsumerRecord<byte[], byte[]> record) throws Exception {
        CrashPoints.reached(CrashPoints.MID_BATCH);
        progress.activity().progressed();
        processor.process(record, outputs);
      }

      @Override
      public void row(SourceRow row) throws Exception {
        CrashPoints.reached(CrashPoints.MID_BATCH);
        progress.activity().progressed();
        processor.processRow(row, outputs);
      }
    };
  }

  private static Map<String, String> commitInfo(
      long batchId,
      Map<String, String> extras,
      Map<String, String> sourceInfo,
      List<String> readGaps) {
    Map<String, String> info = new LinkedHashMap<>(extras);
    info.put("batchId", Long.toString(batchId));
    info.putAll(new TreeMap<>(sourceInfo));
    if (!readGaps.isEmpty()) {
      info.put("dataLossWhileReading", readGaps.toString());
    }
    return info;
  }

  private BatchProgress progress(
      long batchId,
      PlannedBatch plan,
      PhaseTimer timer,
      BatchOutputs outputs,
      long outputRows,
      long quarantinedRows,
      long sinkVersion,
      BatchRange range,
      long retries,
      long conflicts) {
    Instant startedAt = timer.startedAt();
    long durationMs = Math.max(1, timer.elapsedMs());
    double inputRate = 0;
    if (previousBatchStart != null) {
      inputRate =
          outputs.inputRows()
              * 1000.0
              / Math.max(1, Duration.between(previousBatchStart, startedAt).toMillis());
    }
    previousBatchStart = startedAt;
    List<String> gaps =
        range.facts().containsKey("dataLoss") ? List.of(range.facts().get("dataLoss")) : List.of();
    return new BatchProgress(
        pipelineId,
        batchId,
        false,
        startedAt,
        outputs.inputRows(),
        outputRows,
        quarantinedRows,
        outputs.filteredRows(),
        outputs.lateRows(),
        inputRate,
        outputs.inputRows() * 1000.0 / durationMs,
        durationMs,
        timer.phases(),
        plan.progress(),
        sinkVersion,
        null,
        gaps,
        processor.stateMetrics(),
        retries,
        conflicts,
        plan.sourceLag());
  }
}
