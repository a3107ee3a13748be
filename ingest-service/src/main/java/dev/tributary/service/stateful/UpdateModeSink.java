package dev.tributary.service.stateful;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.TableSink;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.Snapshot;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The sink of update output mode: each batch's changed aggregate rows are merged into the table by
 * window and group-by columns in one commit carrying the batch's {@link BatchTag}, so the table
 * holds the latest value once per key and a replayed batch is skipped.
 */
public final class UpdateModeSink implements TableSink {
  private final ObjectStore store;
  private final DeltaTable table;
  private final List<String> keyColumns;

  /**
   * Opens the table, creating it with {@code schema} if it does not exist yet.
   *
   * @param keyColumns the columns identifying a row (window_start, window_end, group-by columns)
   * @throws IllegalStateException if the table exists with another schema or partitioning
   */
  public UpdateModeSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      List<String> keyColumns)
      throws IOException {
    this.store = store;
    this.table = table;
    this.keyColumns = List.copyOf(keyColumns);
    DeltaTableSink.createOrCheck(pipelineId, store, table, schema, List.copyOf(partitionColumns));
  }

  @Override
  public CommitCounters commitCounters() {
    return table.counters();
  }

  @Override
  public String location() {
    return store.location();
  }

  @Override
  public Snapshot snapshot() throws IOException {
    return table.snapshot();
  }

  @Override
  public Optional<TableFacts> facts(String batchAppId, long sinceVersion) throws IOException {
    return Optional.of(DeltaTableSink.facts(table, batchAppId, sinceVersion));
  }

  @Override
  public BatchWriter begin(BatchTag tag) throws IOException {
    MergeTransaction txn = table.newMerge(tag.batch(), keyColumns);
    txn.alsoRecord(tag.sourcePositions());
    return new TransactionWriter(txn);
  }
}
