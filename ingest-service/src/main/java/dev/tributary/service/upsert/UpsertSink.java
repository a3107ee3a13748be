package dev.tributary.service.upsert;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.TableSink;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.retry.RetryPolicy;
import dev.tributary.table.CommitConflictException;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.CommitResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.HistoryMergeTransaction;
import dev.tributary.table.MergeMetrics;
import dev.tributary.table.MergeSpec;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.Snapshot;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Delta table that each batch merges its changes into by key ({@code write: upsert},
 * docs/DESIGN.md "Upsert"): the batch's rows (upserts) and deletes are collapsed to one change per
 * key in memory ({@link ChangeBuffer}), then merged in one commit carrying the batch's {@link
 * BatchTag}, so a replayed batch is skipped like any other. A commit that conflicts with a
 * concurrent one (a compaction removed a file the merge rewrites) is planned again on the table as
 * it is now, with the same changes.
 *
 * <p>With {@code merge-strategy: deletion-vectors} ({@link MergeSpec.Strategy#DELETION_VECTORS})
 * the merge marks the replaced and deleted rows in deletion vectors instead of rewriting their
 * files: the same commit, txn, crash point and re-planning, and the table is created with the
 * {@code deletionVectors} feature.
 *
 * <p>With {@code history: scd2} ({@link #keepingHistory}) the table has the history columns too,
 * the batch keeps every change ({@link HistoryBuffer}), and the merge is a {@link
 * HistoryMergeTransaction}: the same commit, txn, crash point and re-planning.
 */
public final class UpsertSink implements TableSink {
  private static final Logger LOG = LoggerFactory.getLogger(UpsertSink.class);

  /** A merge planned again after a conflict, at once: the table moved under it. */
  private static final RetryPolicy REPLAN =
      RetryPolicy.named("delta.merge")
          .withMaxAttempts(10)
          .retryingOn(CommitConflictException.class::isInstance);

  private final String pipelineId;
  private final ObjectStore store;
  private final DeltaTable table;
  private final StructType schema;
  private final MergeSpec spec;
  private final boolean history;

  /**
   * Opens the table, creating it with {@code schema} if it does not exist yet.
   *
   * @param spec the key columns and the sequence column the merges use
   * @throws IllegalStateException if the table exists with a different schema or partitioning
   */
  public UpsertSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      MergeSpec spec)
      throws IOException {
    this(pipelineId, store, table, schema, partitionColumns, spec, false);
  }

  private UpsertSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      MergeSpec spec,
      boolean history)
      throws IOException {
    this.pipelineId = pipelineId;
    this.store = store;
    this.table = table;
    this.schema = schema;
    this.spec = Objects.requireNonNull(spec, "spec");
    this.history = history;
    DeltaTableSink.createOrCheck(
        pipelineId,
        store,
        table,
        history ? HistoryMergeTransaction.withHistoryColumns(schema) : schema,
        List.copyOf(partitionColumns),
        // a new table supports deletion vectors from its first version; an existing one gets
        // them in the first merge's commit (MergeTransaction)
        spec.strategy() == MergeSpec.Strategy.DELETION_VECTORS
            ? Map.of(ProtocolSupport.ENABLE_DELETION_VECTORS, "true")
            : Map.of());
  }

  /**
   * A sink keeping every version of a key ({@code history: scd2}): opens the table, creating it
   * with {@code schema} and the history columns if it does not exist yet.
   *
   * @param spec the key columns and the sequence column (a timestamp: each version's start)
   * @throws IllegalStateException if the table exists with a different schema or partitioning
   */
  public static UpsertSink keepingHistory(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      MergeSpec spec)
      throws IOException {
    if (spec.sequenceColumn().isEmpty()) {
      throw new IllegalArgumentException(
          "history: scd2 needs a sequence-by column (pipeline " + pipelineId + ")");
    }
    return new UpsertSink(pipelineId, store, table, schema, partitionColumns, spec, true);
  }

  @Override
  public String location() {
    return store.location();
  }

  @Override
  public CommitCounters commitCounters() {
    return table.counters();
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
    long committed = table.latestTransactionVersion(tag.batch().appId()).orElse(-1);
    if (committed >= tag.batchId()) {
      return new Skipped();
    }
    return history ? new HistoryWriter(tag) : new ChangeWriter(tag);
  }

  /**
   * Runs one merge commit, planning it again on the table as it is now after a conflict with a
   * concurrent commit (compaction, another writer), at most {@code REPLAN}'s attempts.
   */
  private long replanning(RetryPolicy.Attempt<Long, IOException> merge) throws IOException {
    return REPLAN.call(
        attempt -> {
          if (attempt > 1) {
            LOG.info(
                "Pipeline {}: the merge into {} conflicted with a concurrent commit; planning it"
                    + " again on the table as it is now (attempt {})",
                pipelineId,
                location(),
                attempt);
          }
          return merge.run(attempt);
        });
  }

  /** The changes of one batch for a table keeping history, kept in memory and merged at commit. */
  private final class HistoryWriter implements BatchWriter {
    private final BatchTag tag;
    private final HistoryBuffer changes;

    HistoryWriter(BatchTag tag) {
      this.tag = tag;
      this.changes =
          new HistoryBuffer(
              pipelineId, schema, spec.keyColumns(), spec.sequenceColumn().orElseThrow());
    }

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public boolean buffersUntilCommit() {
      return true;
    }

    @Override
    public void write(Object[] row) {
      changes.upsert(row);
    }

    @Override
    public void delete(Object[] row) {
      changes.delete(row);
    }

    @Override
    public long rows() {
      return changes.received();
    }

    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      List<HistoryMergeTransaction.Change> all = changes.changes();
      return replanning(
          attempt -> {
            try (HistoryMergeTransaction txn = table.newHistoryMerge(tag.batch(), spec)) {
              txn.alsoRecord(tag.sourcePositions());
              all.forEach(txn::apply);
              txn.prepare();
              CrashPoints.reached(CrashPoints.AFTER_DATA_FILES);
              CommitResult result = txn.commit(commitInfo);
              report(txn.metrics(), result);
              return result.committed() ? result.tableVersion() : -1;
            }
          });
    }

    private void report(MergeMetrics m, CommitResult result) {
      if (result.committed() && m.ignoredOlder() > 0) {
        LOG.info(
            "Pipeline {} batch {}: {} change(s) at an instant their key's history already holds"
                + " were ignored as duplicates (sequence-by {}); table {} version {}",
            pipelineId,
            tag.batchId(),
            m.ignoredOlder(),
            spec.sequenceColumn().orElse("-"),
            location(),
            result.tableVersion());
      }
      if (result.committed()) {
        LOG.debug(
            "Pipeline {} batch {}: merged {} changes into the history in {} (versions opened {},"
                + " rewritten {}, copied {}, files -{} +{}, keys read {})",
            pipelineId,
            tag.batchId(),
            m.changes(),
            location(),
            m.inserted(),
            m.updated(),
            m.copied(),
            m.filesRemoved(),
            m.filesAdded(),
            m.indexedRows());
      }
    }

    @Override
    public void close() {}
  }

  /** The changes of one batch, kept in memory and merged at commit. */
  private final class ChangeWriter implements BatchWriter {
    private final BatchTag tag;
    private final ChangeBuffer changes;

    ChangeWriter(BatchTag tag) {
      this.tag = tag;
      this.changes =
          new ChangeBuffer(schema, spec.keyColumns(), spec.sequenceColumn().orElse(null));
    }

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public boolean buffersUntilCommit() {
      return true;
    }

    @Override
    public void write(Object[] row) {
      changes.upsert(row);
    }

    @Override
    public void delete(Object[] row) {
      changes.delete(row);
    }

    @Override
    public long rows() {
      return changes.received();
    }

    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      List<MergeTransaction.Change> collapsed = changes.changes();
      return replanning(attempt -> mergeOnce(collapsed, commitInfo));
    }

    private long mergeOnce(List<MergeTransaction.Change> collapsed, Map<String, String> commitInfo)
        throws IOException {
      try (MergeTransaction txn = table.newMerge(tag.batch(), spec)) {
        txn.alsoRecord(tag.sourcePositions());
        collapsed.forEach(txn::apply);
        txn.prepare();
        CrashPoints.reached(CrashPoints.AFTER_DATA_FILES);
        CommitResult result = txn.commit(commitInfo);
        report(txn.metrics(), result);
        return result.committed() ? result.tableVersion() : -1;
      }
    }

    private void report(MergeMetrics m, CommitResult result) {
      long older = m.ignoredOlder() + changes.olderInBatch();
      if (result.committed() && older > 0) {
        LOG.info(
            "Pipeline {} batch {}: {} change(s) older than their key's latest row were ignored"
                + " (sequence-by {}); table {} version {}",
            pipelineId,
            tag.batchId(),
            older,
            spec.sequenceColumn().orElse("-"),
            location(),
            result.tableVersion());
      }
      if (result.committed()) {
        LOG.debug(
            "Pipeline {} batch {}: merged {} keys into {} (inserted {}, updated {}, deleted {},"
                + " copied {}, files -{} +{}, deletion vectors new {} grown {}, keys read {})",
            pipelineId,
            tag.batchId(),
            m.changes(),
            location(),
            m.inserted(),
            m.updated(),
            m.deleted(),
            m.copied(),
            m.filesRemoved(),
            m.filesAdded(),
            m.vectorsAdded(),
            m.vectorsUpdated(),
            m.indexedRows());
      }
    }

    @Override
    public void close() {}
  }

  /** The table held the batch before it started: nothing to write, nothing to commit. */
  private static final class Skipped implements BatchWriter {
    @Override
    public boolean alreadyCommitted() {
      return true;
    }

    @Override
    public void write(Object[] row) {}

    @Override
    public void delete(Object[] row) {}

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
