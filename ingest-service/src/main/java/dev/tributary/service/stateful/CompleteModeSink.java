package dev.tributary.service.stateful;

import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.TableSink;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.OverwriteTransaction;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;

/**
 * The sink of complete output mode: each batch replaces the whole table in one commit (every
 * live file removed, the batch's files added) carrying {@code txn(pipeline id, batch id)}, so
 * readers always see one complete result and a replayed batch is skipped.
 */
public final class CompleteModeSink implements TableSink {
  private final String pipelineId;
  private final ObjectStore store;
  private final DeltaTable table;

  /**
   * Opens the table, creating it with {@code schema} if it does not exist yet.
   *
   * @throws IllegalStateException if the table exists with another schema or partitioning
   */
  public CompleteModeSink(String pipelineId, ObjectStore store, DeltaTable table, StructType schema,
      List<String> partitionColumns) throws IOException {
    this.pipelineId = pipelineId;
    this.store = store;
    this.table = table;
    DeltaTableSink.createOrCheck(pipelineId, store, table, schema, List.copyOf(partitionColumns));
  }

  @Override
  public dev.tributary.table.CommitCounters commitCounters() {
    return table.counters();
  }

  @Override
  public String location() {
    return store.location();
  }

  @Override
  public BatchWriter begin(long batchId) throws IOException {
    OverwriteTransaction txn = table.newOverwrite(new TransactionId(pipelineId, batchId));
    return new TransactionWriter(txn);
  }
}
