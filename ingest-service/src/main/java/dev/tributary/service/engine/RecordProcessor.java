package dev.tributary.service.engine;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.table.stream.SourceRow;
import java.io.IOException;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Turns Kafka records into table rows: parse, transform, and (for stateful pipelines) update state.
 * One instance per pipeline run; called from the engine's thread only, in this order per batch:
 * {@link #beginBatch}, {@link #process} for every record, {@link #endBatch}, then (after the tables
 * committed the batch) {@link #commit}. A replayed batch goes through the same calls with the same
 * records and the same watermark, and must produce the same rows.
 */
public interface RecordProcessor extends AutoCloseable {

  /**
   * Called when the engine plans a new batch, before the batch's offsets entry is written: what the
   * processor returns is recorded in that entry's extras (such as the version of a dimension table
   * the batch joins with, {@code join.0.version}), and handed back in {@link BatchContext#extras}
   * when the batch begins, the first time and on replay alike. Not called for a replayed batch.
   * Default: nothing to record.
   */
  default Map<String, String> planBatch(long batchId) throws IOException {
    return Map.of();
  }

  /**
   * Called before the first record of a batch. A stateful processor loads state version batchId -
   * 1.
   */
  void beginBatch(BatchContext batch) throws IOException;

  /**
   * Handles one record; writes result rows, quarantined records or late events to the batch
   * outputs.
   */
  void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs) throws Exception;

  /**
   * Handles one typed row of a source that delivers rows (a Delta table): its values are in the
   * source's schema, the pipeline's input schema, so nothing is parsed; a row that fails a
   * transform is quarantined with {@link dev.tributary.table.stream.SourceRow#provenance()}.
   * Default: this processor reads records only.
   */
  default void processRow(SourceRow row, BatchOutputs outputs) throws Exception {
    throw new UnsupportedOperationException(
        "This pipeline's processor reads Kafka records, not table rows (" + row.provenance() + ")");
  }

  /**
   * The records or rows handed next belong to input {@code input}: 0 the main input, 1 the second
   * input of a stream-stream join. Called by a two-input source ({@link CompositeSource}) before
   * each input of every batch, main first, the first time and on replay alike; never for a
   * single-input pipeline. Default: this processor reads one input.
   */
  default void beginInput(int input) throws Exception {}

  /** Called after the last record; a stateful processor emits what the batch finalised. */
  void endBatch(BatchOutputs outputs) throws Exception;

  /**
   * The watermark the NEXT batch applies (max event time seen minus the delay, never going back),
   * known after {@link #endBatch}; empty without a watermark.
   */
  default OptionalLong nextWatermarkMicros() {
    return OptionalLong.empty();
  }

  /**
   * Makes the batch's state changes durable as state version {@code batchId}. Called after the
   * tables committed the batch and before the checkpoint's commits entry is written.
   */
  default void commit(long batchId) throws IOException {}

  /**
   * True if a batch's result depends on the order its records arrive in (stateful operators: which
   * duplicate is kept, the state changelog). The engine then reads the partitions one after the
   * other in a fixed order, so that a replay of the batch sees the same sequence.
   */
  default boolean dependsOnRecordOrder() {
    return false;
  }

  /**
   * Whether a batch without new records would still produce output (the watermark advanced past
   * windows or keys held in state). The engine then runs such a "no-data batch", like Spark.
   */
  default boolean wantsNoDataBatch() {
    return false;
  }

  /**
   * Called once at start when the checkpoint's last batch is committed (nothing to replay), with
   * the watermark that batch applied and the one the next batch applies, so that a stateful
   * processor can ask for the no-data batch the previous run did not get to run.
   */
  default void restored(OptionalLong appliedWatermarkMicros, OptionalLong nextWatermarkMicros) {}

  /**
   * What the processor records in the batch's commits entry extras beside the engine's own (a
   * stream-stream join: its inputs' own watermarks), asked after {@link #endBatch}. Keys must not
   * clash with the engine's ({@code sinkVersion}, {@code table.*}, {@code lastInputAt}). Default:
   * nothing.
   */
  default Map<String, String> commitExtras() {
    return Map.of();
  }

  /**
   * Called once at start, before any batch (a replayed one included), with the extras of the
   * checkpoint's latest commits entry: what {@link #commitExtras} recorded for the last committed
   * batch. Not called for a checkpoint without commits. Default: nothing to restore.
   */
  default void restoreCommitted(Map<String, String> extras) {}

  /** State metrics for the progress record (rows, bytes, rows evicted); empty when stateless. */
  default Map<String, Long> stateMetrics() {
    return Map.of();
  }

  @Override
  default void close() {}

  /**
   * The batch being processed.
   *
   * @param batchId the batch id
   * @param batchStartedAt when the batch started (recorded in quarantine rows)
   * @param watermarkMicros the watermark this batch evicts state with (from the offsets log on
   *     replay)
   * @param lateWatermarkMicros the watermark this batch judges late rows against: the previous
   *     batch's {@code watermarkMicros} (from the offsets log on replay)
   * @param backlogged the partitions whose range in this batch ends before the latest offset known
   *     when the batch was planned (the consumer is behind on them); the same set on replay
   * @param extras the batch's offsets entry extras, including what {@link #planBatch} returned
   */
  record BatchContext(
      long batchId,
      Instant batchStartedAt,
      OptionalLong watermarkMicros,
      OptionalLong lateWatermarkMicros,
      Set<TopicPartition> backlogged,
      Map<String, String> extras) {
    /** Copies the collections. */
    public BatchContext {
      backlogged = Set.copyOf(backlogged);
      extras = Map.copyOf(extras);
    }

    /**
     * A batch whose backlogged partitions are named as the checkpoint names them ({@link
     * BatchRange#backlogged()}).
     */
    public static BatchContext of(
        long batchId,
        Instant batchStartedAt,
        OptionalLong watermarkMicros,
        OptionalLong lateWatermarkMicros,
        Set<SourcePartition> backlogged,
        Map<String, String> extras) {
      Set<TopicPartition> partitions = new HashSet<>();
      backlogged.forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
      return new BatchContext(
          batchId, batchStartedAt, watermarkMicros, lateWatermarkMicros, partitions, extras);
    }

    /**
     * A batch that judges late rows against the watermark it applies, with no backlogged partition
     * or extras.
     */
    public BatchContext(long batchId, Instant batchStartedAt, OptionalLong watermarkMicros) {
      this(batchId, batchStartedAt, watermarkMicros, watermarkMicros, Set.of(), Map.of());
    }
  }
}
