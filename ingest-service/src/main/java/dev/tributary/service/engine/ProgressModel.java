package dev.tributary.service.engine;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where a pipeline keeps its progress, and so how a batch is planned, made idempotent and marked
 * done (docs/DESIGN.md, "The run loop"). The {@link BatchBody} is the same for every model; a model
 * decides only the steps around it:
 *
 * <ul>
 *   <li>{@link WriteAheadLog} — the checkpoint's offsets log, written ahead of every batch and
 *       replayed after a crash, and its commits log (exclusive assignment; each sub-pipeline of a
 *       stateful group pipeline). Tables skip a batch they hold by its key.
 *   <li>{@link TablePositions} — the sink table's per-partition positions, moved by fenced commits
 *       (a stateless pipeline in consumer-group mode). No replay: the next owner plans from the
 *       table.
 *   <li>{@code exchange.ExchangeProgress} — the consumer group's offsets, committed in the Kafka
 *       transaction that carries the batch's rows to the repartition topic (stage 1 of a stateful
 *       pipeline in consumer-group mode).
 * </ul>
 *
 * <p>Called from the engine's thread only, in this order: {@link #recover} once, then per batch
 * {@link #next}, {@link #open}, and — after the body committed every table and the state — {@link
 * #done}. A model raises {@link PartitionMovedException} where it detects that another process owns
 * the batch's input.
 */
public interface ProgressModel {

  /**
   * Reads where progress stands at the start of a run.
   *
   * @return the batch that was planned but not marked done before the run started, to run again
   *     exactly (empty for a model without replay)
   */
  Optional<Batch> recover(PhaseTimer timer) throws IOException;

  /**
   * Plans the next batch and makes it durable where the model requires that before anything is read
   * (the write-ahead log).
   *
   * @return the batch, or empty when there is nothing to run now (no input, no no-data batch)
   */
  Optional<Batch> next(PhaseTimer timer) throws IOException;

  /**
   * A batch of the continuous trigger ({@link Batch#readFor}) read {@code read}: records that range
   * where the model keeps it before any table commits (the write-ahead log's offsets entry) and
   * returns the batch fixed to it, as a replay would run it. A range without records is not
   * recorded: the next batch starts where this one did.
   *
   * @return the fixed batch, or empty when {@code read} holds no record (nothing to commit)
   * @throws UnsupportedOperationException for a model whose batches are fixed before they are read
   */
  default Optional<Batch> fix(Batch open, BatchRange read) throws IOException {
    throw new UnsupportedOperationException("this progress model fixes batches before reading");
  }

  /** Opens the writers of {@code batch}: a table that already holds it returns a no-op writer. */
  BatchOutputs open(Batch batch) throws IOException;

  /**
   * Every table and the processor's state committed {@code batch}: records it as done and tells the
   * source (Kafka's consumer group, for lag tools).
   *
   * @param nextWatermarkMicros the watermark the processor computed for the next batch
   * @param versions the table versions the batch's commits made
   */
  void done(Batch batch, OptionalLong nextWatermarkMicros, Committed versions) throws IOException;

  /**
   * The table versions one batch's commits made; -1 where the table already held the batch (or has
   * no versions, a topic).
   */
  record Committed(long sink, long quarantine, long lateEvents) {}

  /** The tables the model's writers commit to, for the batch's commit retry and conflict counts. */
  List<TableSink> tables();

  /**
   * Whether the run should go on with a batch without input (the watermark moved past state the
   * processor holds): a {@code once} run ends only when this is false.
   */
  default boolean wantsNoDataBatch() throws IOException {
    return false;
  }

  /** The names of the crash points the body reaches for this model's batches. */
  default CrashPoints.Names crashPoints() {
    return CrashPoints.Names.ENGINE;
  }
}
