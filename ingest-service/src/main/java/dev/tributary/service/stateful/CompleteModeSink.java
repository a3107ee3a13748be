package dev.tributary.service.stateful;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.TableSink;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.OverwriteTransaction;
import dev.tributary.table.Snapshot;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The sink of complete output mode: each batch replaces the whole table in one commit (every live
 * file removed, the batch's files added) carrying the batch's {@link BatchTag}, so readers always
 * see one complete result and a replayed batch is skipped.
 */
public final class CompleteModeSink implements TableSink {
  private final ObjectStore store;
  private final DeltaTable table;

  /**
   * Opens the table, creating it with {@code schema} if it does not exist yet.
   *
   * @throws IllegalStateException if the table exists with another schema or partitioning
   */
  public CompleteModeSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns)
      throws IOException {
    this.store = store;
    this.table = table;
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
    OverwriteTransaction txn = table.newOverwrite(tag.batch());
    txn.alsoRecord(tag.sourcePositions());
    return new TransactionWriter(txn);
  }
}
