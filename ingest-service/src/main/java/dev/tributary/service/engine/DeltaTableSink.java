package dev.tributary.service.engine;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.CommitResult;
import dev.tributary.table.PositionFence;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableException;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.data.PartitionedDataWriter;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * A Delta table as a batch sink. Rows stream into Parquet files as they arrive; the batch's files
 * are committed in one Delta commit carrying the batch's {@link BatchTag}, so a replayed batch is
 * skipped when the table already holds it.
 */
public final class DeltaTableSink implements TableSink {
  private final ObjectStore store;
  private final DeltaTable table;
  private final StructType schema;
  private final List<String> partitionColumns;
  private final DataWriteOptions writeOptions;

  /**
   * Opens the table, creating it with {@code schema} if it does not exist yet.
   *
   * @throws IllegalStateException if the table exists with a different schema or partitioning
   */
  public DeltaTableSink(String pipelineId, ObjectStore store, DeltaTable table, StructType schema,
      List<String> partitionColumns, DataWriteOptions writeOptions) throws IOException {
    this.store = store;
    this.table = table;
    this.schema = schema;
    this.partitionColumns = List.copyOf(partitionColumns);
    this.writeOptions = writeOptions;
    createOrCheck(pipelineId, store, table, schema, this.partitionColumns);
  }

  /**
   * Creates the table with {@code schema} on first use; refuses a table that exists with another
   * schema or partitioning (schema evolution is not supported), and refuses to create one in a
   * folder that already holds files (see {@link DeltaTable#create}). Every sink of a pipeline uses it.
   *
   * @throws IllegalStateException naming the pipeline, the table and both schemas
   */
  public static void createOrCheck(String pipelineId, ObjectStore store, DeltaTable table, StructType schema,
      List<String> partitionColumns) throws IOException {
    if (!table.exists()) {
      try {
        table.create(schema, partitionColumns, Map.of());
      } catch (TableException e) {
        // A folder that holds files but no table, or a table another writer just created differently.
        throw new IllegalStateException("Pipeline " + pipelineId + ": " + e.getMessage(), e);
      }
    }
    var snapshot = table.snapshot();
    if (!snapshot.schema().equals(schema) || !snapshot.partitionColumns().equals(partitionColumns)) {
      throw new IllegalStateException("Pipeline " + pipelineId + ": the table at " + store.location()
          + " has schema " + describe(snapshot.schema()) + " partitioned by " + snapshot.partitionColumns()
          + " but the pipeline writes " + describe(schema) + " partitioned by " + partitionColumns
          + ". Schema evolution is not supported yet: write to a new table path, or restore the declaration.");
    }
  }

  private static String describe(StructType schema) {
    StringBuilder b = new StringBuilder("[");
    schema.fields().forEach(f -> b.append(b.length() > 1 ? ", " : "").append(f.name()).append(' ').append(f.type().deltaName()));
    return b.append(']').toString();
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
  public dev.tributary.table.Snapshot snapshot() throws IOException {
    return table.snapshot();
  }

  @Override
  public BatchWriter begin(BatchTag tag) throws IOException {
    long committed = table.latestTransactionVersion(tag.batch().appId()).orElse(-1);
    if (committed >= tag.batchId()) {
      return new AlreadyCommitted();
    }
    return new Writer(() -> {
      var txn = table.newAppend(tag.batch());
      txn.alsoRecord(tag.sourcePositions());
      return txn;
    }, DataFiles.newWriter(store, schema, partitionColumns, writeOptions));
  }

  @Override
  public BatchWriter beginFenced(List<PositionFence> fences) throws IOException {
    List<PositionFence> copy = List.copyOf(fences);
    return new Writer(() -> table.newFencedAppend(copy),
        DataFiles.newWriter(store, schema, partitionColumns, writeOptions));
  }

  /** Opens the batch's transaction on the table's latest snapshot, when the files are written. */
  private interface TransactionOpener {
    AppendTransaction open() throws IOException;
  }

  private final class Writer implements BatchWriter {
    private final TransactionOpener opener;
    private final PartitionedDataWriter files;
    private long rows;
    private boolean done;

    Writer(TransactionOpener opener, PartitionedDataWriter files) {
      this.opener = opener;
      this.files = files;
    }

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public void write(Object[] row) throws IOException {
      files.write(row);
      rows++;
    }

    @Override
    public long rows() {
      return rows;
    }

    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      List<DataFile> written = files.finish();
      done = true;
      CrashPoints.reached(CrashPoints.AFTER_DATA_FILES);
      AppendTransaction txn = opener.open();
      txn.addFiles(written);
      CommitResult result = txn.commit(commitInfo);
      return result.committed() ? result.tableVersion() : -1;
    }

    @Override
    public void close() {
      if (!done) {
        files.abort();
      }
    }
  }

  /** The table held the batch before it started: nothing to write, nothing to commit. */
  private static final class AlreadyCommitted implements BatchWriter {
    @Override
    public boolean alreadyCommitted() {
      return true;
    }

    @Override
    public void write(Object[] row) {}

    @Override
    public long rows() {
      return 0;
    }

    @Override
    public long commit(Map<String, String> commitInfo) {
      return -1;
    }

    @Override
    public void close() {}
  }
}
