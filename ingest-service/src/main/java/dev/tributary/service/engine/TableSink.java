package dev.tributary.service.engine;

import dev.tributary.table.CommitCounters;
import dev.tributary.table.PositionFence;
import dev.tributary.table.Snapshot;
import dev.tributary.table.types.StructField;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A table the engine writes one batch at a time, idempotently by batch: the sink remembers, in the
 * place it writes and atomically with the batch's rows, the last batch of the checkpoint it
 * committed ({@link BatchTag#batch()}: a Delta {@code txn} action, a progress row in the database,
 * a marker in the Kafka transaction), so a batch replayed after a crash is never written twice.
 *
 * <p>Implementations: {@link DeltaTableSink}; {@code sink.jdbc.JdbcTableSink}, {@code
 * sink.kafka.KafkaTopicSink}, {@code sink.FanOutSink} for several sinks fed by one batch, and
 * {@code sink.route.RoutedSink} for rows routed to many Delta tables. The methods with defaults are
 * capabilities a Delta table has and others may lack: a snapshot with {@code txn} actions
 * (consumer-group mode, {@code starting-offsets: table}), commit counters, facts for the {@link
 * TableGuard}, fenced appends.
 */
public interface TableSink {

  /** Where the table lives, for messages. */
  String location();

  /**
   * Cumulative commit counters of the table (attempts, retries, conflicts), for metrics. Default:
   * none counted.
   */
  default CommitCounters commitCounters() {
    return CommitCounters.ZERO;
  }

  /**
   * The table's latest snapshot (what it holds, its txn actions): a Delta table's.
   *
   * @throws UnsupportedOperationException for a sink that is not a Delta table
   */
  default Snapshot snapshot() throws IOException {
    throw new UnsupportedOperationException("the sink " + location() + " is not a Delta table");
  }

  /**
   * What the sink holds of {@code txns}' pipeline apart from that checkpoint's own batches (the
   * batch keys of other checkpoints, the source positions it recorded), so that a new checkpoint
   * does not start silently where another one wrote. Default: read from the Delta {@link
   * #snapshot}.
   */
  default TableTxns.TableHistory history(TableTxns txns) throws IOException {
    return txns.historyIn(snapshot());
  }

  /**
   * The sinks this one writes, each guarded and checked on its own: itself, or the parts of a sink
   * that fans a batch out to several.
   */
  default List<TableSink> parts() {
    return List.of(this);
  }

  /**
   * What the table holds now, for a checkpoint that keeps its progress outside the table and must
   * not write over a table that lost its batches ({@link TableGuard}); refreshes the table's view.
   *
   * @param batchAppId the checkpoint's batch key ({@link TableTxns#batchAppId})
   * @param sinceVersion the table version of this checkpoint's last commit to it, -1 if unknown:
   *     the commits after it are searched for ones that took the data out wholesale
   * @return the facts ({@link TableFacts#missing} for a table that does not exist); empty for a
   *     sink that cannot tell
   */
  default Optional<TableFacts> facts(String batchAppId, long sinceVersion) throws IOException {
    return Optional.empty();
  }

  /**
   * The safe ways on, in a sentence for an operator, when the table no longer holds the batches up
   * to {@code batch} that the checkpoint committed ({@link TableLostException}). Default: a Delta
   * table's (RESTORE, {@code starting-offsets: table}, or starting over).
   */
  default String waysOnAfterLoss(long batch) {
    return TableLostException.deltaWaysOn(batch);
  }

  /**
   * What a table holds now.
   *
   * @param exists whether the table exists (false: the other fields say nothing)
   * @param tableId the table's identity (Delta: the metaData id, new for a re-created table)
   * @param version the table's latest version
   * @param heldBatch the latest batch of the checkpoint's key the table holds, or -1
   * @param rewrites the commits after the given version that took the data out wholesale (a
   *     restore, a full overwrite, a replace, a truncate), described
   */
  record TableFacts(
      boolean exists,
      String tableId,
      long version,
      long heldBatch,
      java.util.List<String> rewrites) {
    public TableFacts {
      rewrites = java.util.List.copyOf(rewrites);
    }

    /** A table that does not exist. */
    public static TableFacts missing() {
      return new TableFacts(false, "", -1, -1, java.util.List.of());
    }
  }

  /**
   * Starts writing a batch. If the table already holds it (its {@link BatchTag#batch()} key at this
   * or a later batch id), the returned writer is a no-op that reports {@link
   * BatchWriter#alreadyCommitted()}. The commit records {@link BatchTag#sourcePositions()} too.
   */
  BatchWriter begin(BatchTag tag) throws IOException;

  /**
   * Starts writing a batch of consumer-group mode (docs/DESIGN.md, "Scale-out"): the commit moves
   * each fence's source position and is valid only while the table holds the positions the fences
   * expect. No batch key: the positions are the idempotency. A commit whose position another
   * instance moved fails with {@link dev.tributary.table.PositionConflictException}.
   *
   * @throws UnsupportedOperationException for a table that does not append (update, complete mode)
   */
  default BatchWriter beginFenced(List<PositionFence> fences) throws IOException {
    throw new UnsupportedOperationException(
        "the table at " + location() + " is not written in group mode");
  }

  /** The rows of one batch, written to data files as they come and committed at once. */
  interface BatchWriter extends AutoCloseable {
    /** True when the table held this batch before it started: nothing will be written. */
    boolean alreadyCommitted();

    /** Adds a row (aligned with the table schema). Ignored if {@link #alreadyCommitted()}. */
    void write(Object[] row) throws IOException;

    /**
     * Deletes the row's key (a table that merges by key; the row holds at least the key columns,
     * and the sequence column when it has one: null for a tombstone). Ignored if {@link
     * #alreadyCommitted()}. Default: this table only takes rows.
     *
     * @throws UnsupportedOperationException for a table that does not merge by key
     */
    default void delete(Object[] row) throws IOException {
      throw new UnsupportedOperationException("this table does not delete by key");
    }

    /**
     * Adds nullable columns after the table's current ones, in this batch's commit (a {@code
     * metaData} action with the whole wider schema): rows written after this call carry them at the
     * end. Ignored if {@link #alreadyCommitted()}. Default: this table's schema does not evolve.
     *
     * @throws UnsupportedOperationException for a table that does not evolve
     */
    default void addColumns(List<StructField> columns) throws IOException {
      throw new UnsupportedOperationException("this table's schema does not evolve");
    }

    /**
     * Why this writer cannot take {@code row}, or null when it can. The engine asks before it
     * writes or deletes a row, on its own thread, and quarantines a refused row's record with the
     * reason instead: a refusal is part of the batch's outcome, so it must be a function of the
     * batch's rows and what the table held when the batch began (a replay refuses the same rows).
     * Default: every row is taken (the processor already checked what a table needs).
     *
     * @throws IOException if deciding needs the table and it cannot be read (fails the batch)
     */
    default String refusal(Object[] row) throws IOException {
      return null;
    }

    /** Rows written so far. */
    long rows();

    /**
     * Whether this writer only keeps rows in memory until {@link #commit} (a merge): then the
     * engine writes to it directly, not through a Parquet encoding thread.
     */
    default boolean buffersUntilCommit() {
      return false;
    }

    /**
     * Commits everything written, atomically, with the batch's {@link BatchTag}.
     *
     * @param commitInfo extra facts recorded in the commit's commitInfo (batch id, offsets, gaps)
     * @return the table version committed, or -1 if the batch had already been committed
     */
    long commit(Map<String, String> commitInfo) throws IOException;

    /** Abandons the batch (files already written become orphans that vacuum removes). */
    @Override
    void close();
  }
}
