package dev.tributary.service.pipeline;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.RecoveryPlan;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.StartingOffsets;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.engine.TableTxns.TableHistory;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides where a checkpoint without batches starts when the pipeline's tables may already hold
 * data of the same pipeline written through another checkpoint (a lost checkpoint, or a new one
 * after a declaration change). Starting silently from {@code starting-offsets} would write those
 * records a second time, so a table holding batches of another checkpoint is refused, unless the
 * declaration says {@code starting-offsets: table}: then the sink table's recorded offsets are the
 * start.
 */
final class NewCheckpointStart {
  private static final Logger LOG = LoggerFactory.getLogger(NewCheckpointStart.class);

  private NewCheckpointStart() {}

  /**
   * Where the engine starts each partition: empty for a checkpoint that has batches (it knows) or
   * that starts from the declared starting-offsets.
   *
   * @param sink the table {@code starting-offsets: table} continues after
   * @param tables every table of the pipeline, the sink first
   * @throws TableWrittenByAnotherCheckpointException if a table holds batches of another checkpoint
   *     of this pipeline and the declaration does not say {@code starting-offsets: table}
   */
  static Map<SourcePartition, Long> startAfter(
      String pipelineId,
      StartingOffsets declared,
      Checkpoint checkpoint,
      TableTxns txns,
      TableSink sink,
      List<TableSink> tables)
      throws IOException {
    if (checkpoint.recover().action() != RecoveryPlan.Action.NONE) {
      return Map.of();
    }
    if (declared instanceof StartingOffsets.FromTable) {
      TableHistory history = sink.history(txns);
      if (history.writtenByAnotherCheckpoint() && history.positions().isEmpty()) {
        throw TableWrittenByAnotherCheckpointException.withoutPositions(
            pipelineId, checkpoint.location(), history);
      }
      LOG.info(
          "Pipeline {}: new checkpoint {} starts after the offsets of the sink table {} (version {}): {}",
          pipelineId,
          checkpoint.location(),
          history.location(),
          history.tableVersion(),
          history.positions().isEmpty()
              ? "none recorded, every partition from the earliest offset"
              : history.positions());
      return history.positions();
    }
    for (TableSink table : tables) {
      TableHistory history = table.history(txns);
      if (history.writtenByAnotherCheckpoint()) {
        throw TableWrittenByAnotherCheckpointException.refused(
            pipelineId, checkpoint.location(), declared, history);
      }
      if (!history.positions().isEmpty()) {
        // positions without any batch key: instances in consumer-group mode wrote the table
        throw TableWrittenByAnotherCheckpointException.writtenInGroupMode(
            pipelineId, checkpoint.location(), declared, history);
      }
    }
    return Map.of();
  }

  /**
   * Consumer-group mode keeps its progress in the sink table, so a checkpoint (old or new) only has
   * to agree with the tables on who wrote them: tables written by exclusive-mode checkpoints of the
   * pipeline are refused, unless the declaration says {@code starting-offsets: table} (group mode
   * then continues after the sink table's per-partition positions, as always).
   *
   * @throws TableWrittenByAnotherCheckpointException if a table holds batches of an exclusive
   *     checkpoint
   */
  static void checkGroupStart(
      String pipelineId,
      StartingOffsets declared,
      Checkpoint checkpoint,
      TableTxns txns,
      List<TableSink> tables)
      throws IOException {
    if (declared instanceof StartingOffsets.FromTable) {
      return;
    }
    for (TableSink table : tables) {
      TableHistory history = table.history(txns);
      if (history.writtenByAnotherCheckpoint()) {
        throw TableWrittenByAnotherCheckpointException.refused(
            pipelineId, checkpoint.location(), declared, history);
      }
    }
  }
}
