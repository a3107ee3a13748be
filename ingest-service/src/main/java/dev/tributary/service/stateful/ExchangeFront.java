package dev.tributary.service.stateful;

import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.StatelessProcessor;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Stage 1 of a stateful pipeline in group mode (docs/DESIGN.md, "Stateful pipelines in group
 * mode"): turns a source record into the checked input rows of the stateful operators, exactly as
 * {@link StatefulProcessor} does before a row enters state (parse, transforms, joins, the input
 * checks; a record with a problem is quarantined whole, one without a joined row is filtered), and
 * tracks the maximum event time of the rows it let through in the current batch, per source
 * partition, which the batch sends to every repartition partition in its progress record.
 *
 * <p>One difference: whether a row may be late is only known in stage 2, which holds the watermark.
 * So when the pipeline writes late rows to a late-events table, every row is checked against that
 * table here, not only the rows that may be late as {@link StatefulProcessor} does: a row the
 * late-events table could not hold is quarantined even if it turns out not to be late. The two
 * differ only for a row with a value the input checks do not look at (a column that reaches neither
 * state nor the sink) that a Delta table cannot hold.
 *
 * <p>Not thread-safe: one instance per stage-1 writer, used from its thread.
 */
public final class ExchangeFront implements RecordProcessor {
  private final StatelessProcessor stateless;
  private final StatefulPlan plan;
  private final CheckedRows checkedRows;
  private final boolean writesLateRows;

  /** This batch's maximum event time per source partition (the batch's is derived from it). */
  private final Map<TopicPartition, Long> maxEventTimeBySource = new HashMap<>();

  /** Where the checked rows of a record go (in stage 1: the repartition topic). */
  @FunctionalInterface
  public interface Rows {
    void accept(Object[] row) throws Exception;
  }

  /**
   * @param stateless the stateless steps (and joins) of the pipeline, whose output schema must be
   *     the plan's input schema; closed with this front
   * @param plan the stateful plan, its joins bound
   * @param writesLateRows whether the pipeline declares a late-events table
   */
  public ExchangeFront(
      String pipelineId, StatelessProcessor stateless, StatefulPlan plan, boolean writesLateRows) {
    if (plan.provisional() || !stateless.outputSchema().equals(plan.inputSchema())) {
      throw new IllegalArgumentException(
          "pipeline "
              + pipelineId
              + ": the stateful plan was compiled for "
              + plan.inputSchema().fieldNames()
              + (plan.provisional() ? " before its joins were bound" : "")
              + " but the stateless steps produce "
              + stateless.outputSchema().fieldNames());
    }
    this.stateless = stateless;
    this.plan = plan;
    this.checkedRows = new CheckedRows(stateless, plan);
    this.writesLateRows = writesLateRows;
  }

  /** The versions of the dimension tables the new batch joins with (none without joins). */
  @Override
  public Map<String, String> planBatch(long batchId) throws IOException {
    return stateless.planBatch(batchId);
  }

  /**
   * Starts a batch: its quarantine rows carry its id and start; the maximum event time starts over.
   */
  @Override
  public void beginBatch(RecordProcessor.BatchContext batch) {
    stateless.beginBatch(batch);
    maxEventTimeBySource.clear();
  }

  /**
   * The stateless steps and the checks for one record: its rows go to {@code rows}, none when it
   * was quarantined or filtered (counted in {@code outputs}).
   */
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs, Rows rows)
      throws Exception {
    Object[] row = stateless.toRow(record, outputs);
    if (row == null) {
      return;
    }
    List<Object[]> checked =
        checkedRows.check(
            row,
            outputs,
            joined -> writesLateRows,
            problem -> stateless.quarantine(record, problem, outputs));
    if (checked == null) {
      return;
    }
    boolean sawEventTime = false;
    long recordMax = Long.MIN_VALUE;
    for (Object[] joined : checked) {
      if (plan.hasWatermark() && joined[plan.watermarkColumn()] instanceof Instant t) {
        recordMax = Math.max(recordMax, Times.micros(t));
        sawEventTime = true;
      }
      rows.accept(joined);
    }
    if (sawEventTime) { // one map update per record, not per row
      maxEventTimeBySource.merge(
          new TopicPartition(record.topic(), record.partition()), recordMax, Math::max);
    }
  }

  /**
   * The stateless steps and the checks for one record, its rows to the batch's sink (stage 1: the
   * repartition topic's transaction).
   */
  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws Exception {
    process(record, outputs, outputs::output);
  }

  /** Nothing is held back: every row went to the sink as its record was processed. */
  @Override
  public void endBatch(BatchOutputs outputs) {}

  /** The batch's maximum event time over all its source partitions (a metric). */
  @Override
  public Map<String, Long> stateMetrics() {
    OptionalLong max = maxEventTimeMicros();
    return max.isPresent() ? Map.of("exchange.maxEventTimeMicros", max.getAsLong()) : Map.of();
  }

  /**
   * The maximum event time (microseconds) of the rows this batch let through; empty without a
   * watermark or when no row had an event time.
   */
  public OptionalLong maxEventTimeMicros() {
    return maxEventTimeBySource.values().stream().mapToLong(Long::longValue).max();
  }

  /**
   * The maximum event time (microseconds) of the rows this batch let through from one source
   * partition's records; empty without a watermark or when none of them had an event time.
   */
  public OptionalLong maxEventTimeMicros(TopicPartition source) {
    Long max = maxEventTimeBySource.get(source);
    return max == null ? OptionalLong.empty() : OptionalLong.of(max);
  }

  @Override
  public void close() {
    stateless.close(); // the joins' dimension stores
  }
}
