package dev.tributary.service.engine;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.table.PositionFence;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Progress in the sink table (docs/DESIGN.md, "Scale-out"): one instance of a stateless pipeline
 * whose partitions are shared through a consumer group ({@code source.kafka.assignment: group}).
 *
 * <ul>
 *   <li>{@link #next}: the source plans ranges for the partitions assigned to this instance, each
 *       starting at the sink table's position ({@code txn(<pipeline>:<topic>:<partition>, next
 *       offset)}); there is no write-ahead and no replay;
 *   <li>{@link #open}: the sink and quarantine writers commit with fenced appends that move the
 *       positions of the partitions the batch covers and are valid only while the tables hold the
 *       positions the batch started from; the quarantine table skips records below its own position
 *       (already quarantined by an attempt whose sink commit failed, {@link AlreadyQuarantined});
 *   <li>{@link #done}: the source is told (Kafka's consumer group offsets, lag tools only).
 * </ul>
 *
 * <p>A commit whose position another instance moved first, or a partition revoked mid-read, is a
 * {@link PartitionMovedException}: the trigger loop drops the batch, and whoever owns the partition
 * next plans from what the tables hold. A crashed instance's batch leaves only orphan files.
 */
public final class TablePositions implements ProgressModel {
  private final TableTxns txns;
  private final TableSink sink;
  private final TableSink quarantine;
  private final Source source;
  private final RecordProcessor processor;

  /** Batch ids here only name this instance's batches (logs, progress, quarantine rows). */
  private long nextBatchId;

  /** The sink table's positions the latest plan started from. */
  private Map<SourcePartition, Long> planned = Map.of();

  public TablePositions(
      TableTxns txns,
      TableSink sink,
      TableSink quarantine,
      Source source,
      RecordProcessor processor) {
    this.txns = Objects.requireNonNull(txns, "txns");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.quarantine = Objects.requireNonNull(quarantine, "quarantine");
    this.source = Objects.requireNonNull(source, "source");
    this.processor = Objects.requireNonNull(processor, "processor");
  }

  @Override
  public Optional<Batch> recover(PhaseTimer timer) {
    return Optional.empty(); // the tables hold the progress: nothing to replay
  }

  @Override
  public Optional<Batch> next(PhaseTimer timer) throws IOException {
    Map<SourcePartition, Long> positions = txns.historyIn(sink.snapshot()).positions();
    PlannedBatch plan = source.plan(BatchRange.startingAt(positions), true /* firstBatch */);
    if (!plan.hasInput() || sinkFences(plan.range(), positions).isEmpty()) {
      return Optional.empty();
    }
    timer.mark("plan");
    planned = positions;
    long batchId = nextBatchId++;
    Map<String, String> extras = new LinkedHashMap<>(plan.range().facts());
    // e.g. the dimension versions the batch joins with
    extras.putAll(processor.planBatch(batchId));
    return Optional.of(
        new Batch(
            batchId,
            plan,
            false,
            timer.startedAt(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            extras));
  }

  /**
   * The sink table's fences of a range: every partition whose range moves or has no position yet.
   * An empty range at the table's position moves nothing: leaving it out keeps the batch from
   * conflicting with a partition's new owner for no reason.
   */
  private List<PositionFence> sinkFences(BatchRange range, Map<SourcePartition, Long> positions) {
    List<PositionFence> fences = new ArrayList<>();
    range
        .offsets()
        .forEach(
            (p, r) -> {
              Long at = positions.get(p);
              if (!r.isEmpty() || at == null || at != r.start()) {
                fences.add(new PositionFence(txns.positionAppId(p), optional(at), r.end()));
              }
            });
    return fences;
  }

  @Override
  public BatchOutputs open(Batch batch) throws IOException {
    Map<SourcePartition, Long> quarantined = txns.historyIn(quarantine.snapshot()).positions();
    List<PositionFence> quarantineFences = new ArrayList<>();
    batch
        .range()
        .offsets()
        .forEach(
            (p, r) -> {
              Long at = planned.get(p);
              if (!r.isEmpty() || at == null || at != r.start()) {
                quarantineFences.add(AlreadyQuarantined.fence(txns, p, quarantined, r.end()));
              }
            });
    TableSink.BatchWriter sinkWriter =
        PipelinedBatchWriter.wrap(
            sink.beginFenced(sinkFences(batch.range(), planned)), txns.pipelineId() + "-writer");
    try {
      return new BatchOutputs(
          sinkWriter,
          new AlreadyQuarantined(quarantine.beginFenced(quarantineFences), quarantined),
          null);
    } catch (IOException | RuntimeException e) {
      sinkWriter.close();
      throw e;
    }
  }

  @Override
  public void done(Batch batch, OptionalLong nextWatermarkMicros, Committed versions) {
    source.committed(batch.range());
  }

  @Override
  public List<TableSink> tables() {
    return List.of(sink, quarantine);
  }

  private static OptionalLong optional(Long value) {
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }
}
