package dev.tributary.service.engine;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.ConcurrentPipelineException;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.RecoveryPlan;
import dev.tributary.checkpoint.SourcePartition;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Progress in the checkpoint's offsets and commits logs (docs/DESIGN.md, "Exactly once"): a
 * pipeline that reads all of its input (exclusive assignment), and each sub-pipeline of a stateful
 * group pipeline.
 *
 * <ul>
 *   <li>{@link #recover}: a batch with an offsets entry but no commits entry is replayed with
 *       exactly its recorded range and watermarks;
 *   <li>{@link #next}: the source plans from the previous batch's recorded range; the plan goes to
 *       the offsets log (put-if-absent) BEFORE anything is read — from then on the batch is fixed;
 *   <li>{@link #open}: every table gets the batch's {@link BatchTag}, so a table that already holds
 *       the batch skips it;
 *   <li>{@link #done}: the commits log gets the batch (with the watermark the next batch applies),
 *       old entries are purged every {@value #PURGE_EVERY_BATCHES} batches, and the source is told.
 * </ul>
 *
 * <p>Another writer that won the race for an entry ({@link ConcurrentPipelineException}) is a
 * {@link PartitionMovedException}: this process is no longer the checkpoint's only writer.
 */
public final class WriteAheadLog implements ProgressModel {
  private static final Logger log = LoggerFactory.getLogger(WriteAheadLog.class);

  /** The tables' roles, as the table guard and the commits entry name them. */
  static final String SINK = "sink";

  static final String QUARANTINE = "quarantine";
  static final String LATE_EVENTS = "late-events";

  /** How often old offsets/commits entries are deleted (every N batches). */
  static final int PURGE_EVERY_BATCHES = 20;

  private final Checkpoint checkpoint;
  private final TableTxns txns;
  private final Map<SourcePartition, Long> startAfter;
  private final Tables tables;
  private final Source source;
  private final RecordProcessor processor;
  private final WatermarkPolicy watermarks;
  private final Clock clock;
  private final TableGuard guard;
  private final Optional<Duration> readFor;

  private BatchRange previous;
  private long nextBatchId;
  private boolean first;

  /** The watermark the next batch is based on: the latest commits entry's. */
  private OptionalLong watermark = OptionalLong.empty();

  /** The watermark the latest batch applied (its late rows are judged against it next). */
  private OptionalLong lateWatermark = OptionalLong.empty();

  /** The own watermark the commits entry before the running batch recorded. */
  private OptionalLong ownBefore = OptionalLong.empty();

  /**
   * The commits entry extra holding when a batch with input last committed (ISO-8601; before any
   * input, the first commit), written under an agreed watermark only: a batch without input (one
   * that only moves the watermark) carries the previous value on, so {@code watermark.idle-timeout}
   * judges idleness by input, not by commits.
   */
  public static final String LAST_INPUT_AT = "lastInputAt";

  /** The {@link #LAST_INPUT_AT} of the latest commits entry (null: none yet). */
  private String lastInputAt;

  /**
   * The tables a batch commits to.
   *
   * @param sink the sink table
   * @param quarantine the quarantine table
   * @param late the late-events table, if the pipeline declares one
   */
  public record Tables(TableSink sink, TableSink quarantine, Optional<TableSink> late) {
    public Tables {
      Objects.requireNonNull(sink, "sink");
      Objects.requireNonNull(quarantine, "quarantine");
      Objects.requireNonNull(late, "late");
    }

    /** Every table, sink first. */
    public List<TableSink> all() {
      List<TableSink> out = new ArrayList<>(List.of(sink, quarantine));
      late.ifPresent(out::add);
      return out;
    }
  }

  /**
   * @param txns how this checkpoint's batches are keyed in the tables
   * @param startAfter where a checkpoint without batches starts, per partition (a new checkpoint
   *     continuing after a table, {@code starting-offsets: table}); empty: the declared starting
   *     point. Ignored once the checkpoint has a batch.
   */
  public WriteAheadLog(
      Checkpoint checkpoint,
      TableTxns txns,
      Map<SourcePartition, Long> startAfter,
      Tables tables,
      Source source,
      RecordProcessor processor,
      WatermarkPolicy watermarks,
      Clock clock) {
    this(
        checkpoint,
        txns,
        startAfter,
        tables,
        source,
        processor,
        watermarks,
        clock,
        Optional.empty());
  }

  /**
   * @param readFor present for the continuous trigger: each batch reads as records arrive for this
   *     long and is written ahead once read, before any commit ({@link #fix})
   */
  WriteAheadLog(
      Checkpoint checkpoint,
      TableTxns txns,
      Map<SourcePartition, Long> startAfter,
      Tables tables,
      Source source,
      RecordProcessor processor,
      WatermarkPolicy watermarks,
      Clock clock,
      Optional<Duration> readFor) {
    this.readFor = Objects.requireNonNull(readFor, "readFor");
    this.checkpoint = Objects.requireNonNull(checkpoint, "checkpoint");
    this.txns = Objects.requireNonNull(txns, "txns");
    this.startAfter = Map.copyOf(startAfter);
    this.tables = Objects.requireNonNull(tables, "tables");
    this.source = Objects.requireNonNull(source, "source");
    this.processor = Objects.requireNonNull(processor, "processor");
    this.watermarks = Objects.requireNonNull(watermarks, "watermarks");
    this.clock = Objects.requireNonNull(clock, "clock");
    Map<String, TableSink> byRole = new LinkedHashMap<>();
    List<TableSink> sinks = tables.sink().parts();
    for (int i = 0; i < sinks.size(); i++) {
      byRole.put(sinkRole(i), sinks.get(i));
    }
    byRole.put(QUARANTINE, tables.quarantine());
    tables.late().ifPresent(late -> byRole.put(LATE_EVENTS, late));
    this.guard =
        new TableGuard(txns.pipelineId(), checkpoint.location(), txns.batchAppId(), byRole);
  }

  /**
   * The role of the {@code index}-th sink ({@link TableSink#parts}) in the table guard and the
   * commits entry: {@code sink} for the first, so a pipeline that adds sinks keeps its mark, then
   * {@code sink-2}, {@code sink-3}, ….
   */
  public static String sinkRole(int index) {
    return index == 0 ? SINK : SINK + "-" + (index + 1);
  }

  @Override
  public Optional<Batch> recover(PhaseTimer timer) throws IOException {
    RecoveryPlan recovery = checkpoint.recover();
    previous =
        recovery.latestOffsets().map(BatchRange::of).orElse(BatchRange.startingAt(startAfter));
    watermark =
        recovery.latestCommit().map(CommitEntry::nextWatermarkMicros).orElse(OptionalLong.empty());
    // Spark's two watermarks (SPARK-40925): a batch evicts with the watermark computed after the
    // previous batch and judges late rows with the one that batch evicted with.
    lateWatermark =
        recovery.latestOffsets().map(OffsetsEntry::watermarkMicros).orElse(OptionalLong.empty());
    nextBatchId = recovery.nextBatchId();
    first = recovery.action() == RecoveryPlan.Action.NONE;
    // Before anything is read or written: the tables still hold what this checkpoint committed.
    recovery.latestCommit().ifPresent(c -> guard.restore(c.extras()));
    // e.g. a stream join's per-input watermarks, which a replayed batch starts from
    recovery.latestCommit().ifPresent(c -> processor.restoreCommitted(c.extras()));
    lastInputAt = recovery.latestCommit().map(c -> c.extras().get(LAST_INPUT_AT)).orElse(null);
    guard.verify(recovery.latestCommit().map(CommitEntry::batchId).orElse(-1L));
    if (recovery.batchToReplay().isPresent()) {
      OffsetsEntry entry = recovery.batchToReplay().get();
      log.info(
          "Pipeline {}: replaying batch {} planned before a restart",
          txns.pipelineId(),
          entry.batchId());
      ownBefore = watermark;
      BatchRange range = BatchRange.of(entry);
      return Optional.of(
          new Batch(
              entry.batchId(),
              source.replayed(range),
              true /* replayed */,
              timer.startedAt(),
              entry.watermarkMicros(),
              entry.lateWatermarkMicros(),
              entry.extras()));
    }
    if (recovery.latestCommit().isPresent()) {
      processor.restored(recovery.latestOffsets().orElseThrow().watermarkMicros(), watermark);
    }
    return Optional.empty();
  }

  @Override
  public Optional<Batch> next(PhaseTimer timer) throws IOException {
    PlannedBatch plan = source.plan(previous, first);
    OptionalLong applies = watermarks.next(watermark, lateWatermark);
    if (readFor.isPresent()) {
      return Optional.of(openBatch(plan, applies, timer));
    }
    // The very first batch is written even when empty: it pins the starting point (latest,
    // timestamp) so that a restart does not recompute it and skip what arrived meanwhile.
    boolean hasWork =
        plan.hasInput() || first || watermarks.wantsNoDataBatch(applies, lateWatermark, processor);
    if (!hasWork) {
      return Optional.empty();
    }
    timer.mark("plan");
    CrashPoints.reached(CrashPoints.AFTER_PLAN);
    long batchId = nextBatchId;
    Map<String, String> extras = new LinkedHashMap<>(plan.range().facts());
    // e.g. the dimension versions the batch joins with
    extras.putAll(processor.planBatch(batchId));
    Instant started = timer.startedAt();
    OffsetsEntry entry =
        new OffsetsEntry(batchId, plan.range().offsets(), applies, lateWatermark, started, extras);
    try {
      checkpoint.writeOffsets(entry);
    } catch (ConcurrentPipelineException e) {
      throw moved(batchId, e);
    }
    CrashPoints.reached(CrashPoints.AFTER_OFFSETS_LOG);
    timer.mark("walCommit");
    ownBefore = watermark;
    // Read back as the log holds it: the range's facts are then every extra, as on replay.
    PlannedBatch recorded =
        new PlannedBatch(BatchRange.of(entry), true, plan.progress(), plan.sourceLag());
    return Optional.of(
        new Batch(batchId, recorded, false, started, applies, lateWatermark, entry.extras()));
  }

  /**
   * A continuous batch: only where it starts is known (the plan's range starts); nothing is written
   * ahead until it was read ({@link #fix}).
   */
  private Batch openBatch(PlannedBatch plan, OptionalLong applies, PhaseTimer timer)
      throws IOException {
    timer.mark("plan");
    CrashPoints.reached(CrashPoints.AFTER_PLAN);
    Map<String, String> extras = new LinkedHashMap<>(plan.range().facts());
    extras.remove(BatchRange.BACKLOGGED); // the plan's end is not the batch's
    extras.putAll(processor.planBatch(nextBatchId));
    return new Batch(
        nextBatchId, plan, false, timer.startedAt(), applies, lateWatermark, extras, readFor);
  }

  /**
   * Writes the range a continuous batch read ahead of its commits, as {@link #next} writes a
   * planned one. A batch that read no record and skipped no deleted input is not written: the next
   * one starts where it did (kept in memory, so a first batch's {@code latest} is not computed
   * again after records arrived).
   */
  @Override
  public Optional<Batch> fix(Batch open, BatchRange read) throws IOException {
    boolean records = read.offsets().values().stream().anyMatch(r -> !r.isEmpty());
    if (!records && !open.extras().containsKey(BatchRange.DATA_LOSS)) {
      Map<SourcePartition, Long> starts = new TreeMap<>();
      read.offsets().forEach((p, r) -> starts.put(p, r.start()));
      Map<String, String> facts = new LinkedHashMap<>(read.facts());
      facts.remove(BatchRange.BACKLOGGED);
      previous = new BatchRange(BatchRange.startingAt(starts).offsets(), facts);
      first = false;
      return Optional.empty();
    }
    OffsetsEntry entry =
        new OffsetsEntry(
            open.id(),
            read.offsets(),
            open.watermarkMicros(),
            open.lateWatermarkMicros(),
            open.startedAt(),
            open.extras());
    try {
      checkpoint.writeOffsets(entry);
    } catch (ConcurrentPipelineException e) {
      throw moved(open.id(), e);
    }
    CrashPoints.reached(CrashPoints.AFTER_OFFSETS_LOG);
    ownBefore = watermark;
    return Optional.of(
        new Batch(
            open.id(),
            source.replayed(BatchRange.of(entry)),
            false,
            open.startedAt(),
            open.watermarkMicros(),
            open.lateWatermarkMicros(),
            entry.extras()));
  }

  @Override
  public BatchOutputs open(Batch batch) throws IOException {
    guard.verify(batch.id() - 1); // batches run in order: the one before is committed
    // a continuous batch's end is not known yet: its tables record no positions (a Kafka topic
    // keeps none; the validate rules allow no table that would need them)
    BatchTag tag =
        txns.tag(batch.id(), batch.readFor().isPresent() ? Map.of() : batch.range().offsets());
    List<TableSink.BatchWriter> opened = new ArrayList<>();
    try {
      TableSink.BatchWriter sink =
          PipelinedBatchWriter.wrap(tables.sink().begin(tag), txns.pipelineId() + "-writer");
      opened.add(sink);
      TableSink.BatchWriter quarantine = tables.quarantine().begin(tag);
      opened.add(quarantine);
      Optional<TableSink.BatchWriter> late =
          tables.late().isPresent()
              ? Optional.of(tables.late().get().begin(tag))
              : Optional.empty();
      return new BatchOutputs(sink, quarantine, late.orElse(null));
    } catch (IOException | RuntimeException e) {
      opened.forEach(TableSink.BatchWriter::close);
      throw e;
    }
  }

  @Override
  public void done(Batch batch, OptionalLong nextWatermarkMicros, Committed versions)
      throws IOException {
    OptionalLong recorded = watermarks.recorded(ownBefore, nextWatermarkMicros);
    Map<String, Long> byRole = new LinkedHashMap<>();
    byRole.put(SINK, versions.sink());
    byRole.put(QUARANTINE, versions.quarantine());
    byRole.put(LATE_EVENTS, versions.lateEvents());
    guard.committed(byRole);
    Map<String, String> extras = new LinkedHashMap<>();
    extras.put("sinkVersion", Long.toString(versions.sink()));
    extras.putAll(processor.commitExtras());
    extras.putAll(guard.recorded());
    Instant now = clock.instant();
    String inputAt = lastInputAt;
    if (watermarks instanceof WatermarkPolicy.Agreed) {
      boolean input = batch.range().offsets().values().stream().anyMatch(r -> r.end() > r.start());
      // Never any input: idle since its first commit, which the later ones carry on.
      inputAt = input || lastInputAt == null ? now.toString() : lastInputAt;
      if (inputAt != null) {
        extras.put(LAST_INPUT_AT, inputAt);
      }
    }
    try {
      checkpoint.writeCommit(new CommitEntry(batch.id(), recorded, now, extras));
    } catch (ConcurrentPipelineException e) {
      throw moved(batch.id(), e);
    }
    CrashPoints.reached(CrashPoints.AFTER_COMMITS_LOG);
    if (batch.id() % PURGE_EVERY_BATCHES == 0) {
      checkpoint.purge(); // keeps the last Checkpoint.DEFAULT_RETAINED_BATCHES entries
    }
    source.committed(batch.range());
    lastInputAt = inputAt;
    watermark = recorded;
    lateWatermark = batch.watermarkMicros();
    previous = batch.range();
    nextBatchId = batch.id() + 1;
    first = false;
  }

  @Override
  public boolean wantsNoDataBatch() throws IOException {
    return watermarks.wantsNoDataBatch(
        watermarks.next(watermark, lateWatermark), lateWatermark, processor);
  }

  @Override
  public List<TableSink> tables() {
    return tables.all();
  }

  private PartitionMovedException moved(long batchId, ConcurrentPipelineException e) {
    return new PartitionMovedException(
        "Pipeline "
            + txns.pipelineId()
            + ": another process wrote batch "
            + batchId
            + " of the checkpoint at "
            + checkpoint.location()
            + " first, so this process no longer owns the checkpoint ("
            + e.getMessage()
            + ")",
        e);
  }
}
