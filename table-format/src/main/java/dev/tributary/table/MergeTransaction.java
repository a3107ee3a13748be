package dev.tributary.table;

import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Merges changes by key in one commit: each change sets its key's row (an upsert: replace or
 * insert) or deletes it; the table then holds each key at most once. Used by update output mode
 * (every row an upsert) and by {@code write: upsert} (upserts and deletes ordered by a sequence
 * column).
 *
 * <p>Protocol of {@link #commit}: the table's {@link KeyIndex} is brought up to the read snapshot
 * (reading only the key columns of files it has not seen), each change looks its key up (one probe,
 * whatever the table's size), a change older than the row it would replace is dropped ({@link
 * MergeSpec#sequenceColumn}), and the files holding replaced or deleted rows are rewritten without
 * them (copy-on-write: the commit removes each such file, {@code dataChange=true}, and adds the
 * copy of its other rows and the new rows), or, with {@link MergeSpec.Strategy#DELETION_VECTORS},
 * those rows are marked in a deletion vector and the file re-added with it ({@link
 * DeletionVectorMarks}; the first such merge also turns the table feature on). The commit conflicts
 * with a concurrent one that removes one of the touched files (a compaction, another merge):
 * nothing is committed and the caller plans again on a fresh snapshot. The changes are kept on the
 * heap until commit (one batch's keys, the last change per key). See {@link TableTransaction} for
 * the lifecycle; obtain it from {@link DeltaTable#newMerge}.
 */
public final class MergeTransaction extends TableTransaction {
  private final MergeSpec spec;
  private final int[] keyColumns;
  private final int sequenceColumn;
  private final Map<List<Object>, Change> changes = new LinkedHashMap<>();
  private final List<AddFile> rewritten = new ArrayList<>();

  /** Deletion vectors: the touched files re-added with their new vector. */
  private final List<AddFile> readded = new ArrayList<>();

  private MergeMetrics metrics = MergeMetrics.NONE;
  private boolean prepared;

  /** What a change does to its key's row. */
  public enum Kind {
    /** The row becomes the key's row (replacing the table's, or inserted). */
    UPSERT,
    /** The key's row is deleted (a change for a key the table does not hold does nothing). */
    DELETE
  }

  /** Whether a change applies only when it is not older than the table's row. */
  public enum Order {
    /** Applies unless the table's row has a higher sequence value (the default). */
    BY_SEQUENCE,
    /**
     * Applies whatever the table holds: a change that follows a delete without a sequence value (a
     * Kafka tombstone) in the same batch.
     */
    ALWAYS
  }

  /**
   * One change of a key.
   *
   * @param kind upsert or delete
   * @param row the row (aligned with the table schema); for a delete, only the key columns (and the
   *     sequence column) are read
   * @param order whether the table's row can make it too old to apply
   */
  public record Change(Kind kind, Object[] row, Order order) {
    public Change {
      Objects.requireNonNull(kind, "kind");
      row = row.clone();
      Objects.requireNonNull(order, "order");
    }
  }

  MergeTransaction(DeltaTable table, TransactionId txn, Snapshot readSnapshot, MergeSpec spec) {
    super(table, txn, readSnapshot);
    if (ProtocolSupport.appendOnly(readSnapshot.state().metadata())) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + table.location()
              + ": it is append-only (delta.appendOnly=true). Append instead, or write to another table.");
    }
    this.spec = spec;
    if (RowTracking.supported(readSnapshot.state())) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + table.location()
              + ": it tracks row ids (table feature rowTracking), which a merge would have to keep"
              + " for the rows it rewrites; Tributary does not. Append instead, or write to another"
              + " table.");
    }
    StructType schema = readSnapshot.schema();
    this.keyColumns = new int[spec.keyColumns().size()];
    for (int i = 0; i < keyColumns.length; i++) {
      keyColumns[i] = column(schema, "merge key column", spec.keyColumns().get(i));
    }
    this.sequenceColumn =
        spec.sequenceColumn().map(c -> column(schema, "sequence column", c)).orElse(-1);
    if (spec.strategy() == MergeSpec.Strategy.DELETION_VECTORS && !alreadyCommitted()) {
      DeletionVectorMarks.enable(table.location(), readSnapshot.state(), this);
    }
  }

  private int column(StructType schema, String role, String name) {
    int index = schema.indexOf(name);
    if (index < 0) {
      throw new IllegalArgumentException(
          role
              + " '"
              + name
              + "' is not a column of table "
              + table.location()
              + "; columns are "
              + schema.fieldNames());
    }
    return index;
  }

  /** Buffers the row as the new value of its key, ordered by the sequence column if any. */
  @Override
  public void write(Object[] row) {
    apply(new Change(Kind.UPSERT, row, Order.BY_SEQUENCE));
  }

  /** Buffers the deletion of the row's key, ordered by the sequence column if any. */
  public void delete(Object[] row) {
    apply(new Change(Kind.DELETE, row, Order.BY_SEQUENCE));
  }

  /** Buffers a change; the last change written for a key replaces the earlier ones. */
  public void apply(Change change) {
    if (prepared) {
      throw new IllegalStateException(
          "merge into " + table.location() + " is prepared: it takes no more changes");
    }
    if (alreadyCommitted()) {
      return;
    }
    changes.put(key(change.row()), change);
  }

  /** What the commit did; {@link MergeMetrics#NONE} before it, or when it was a skip. */
  public MergeMetrics metrics() {
    return metrics;
  }

  /**
   * Finds the rows the changes replace, rewrites their files (or marks the rows), then commits the
   * removes and adds with the txn.
   *
   * @throws IllegalStateException if a file no longer holds a key where the index says it does
   *     (nothing committed)
   */
  @Override
  public CommitResult commit(Map<String, String> commitInfoExtras) throws IOException {
    prepare();
    return super.commit(commitInfoExtras);
  }

  /**
   * Plans the merge on the read snapshot and writes its data files (the copies of the touched
   * files, or their deletion vector file, and the new rows), without committing; {@link #commit}
   * does it first if not done. Files written and never committed are orphans for vacuum. Once
   * prepared, no more changes are taken.
   *
   * @throws IllegalStateException as {@link #commit}
   */
  public void prepare() throws IOException {
    if (!prepared && !alreadyCommitted() && !changes.isEmpty()) {
      rewrite();
    }
    prepared = true;
  }

  private void rewrite() throws IOException {
    KeyIndex index = table.keyIndex(spec);
    long indexed = index.sync(table.store(), readSnapshot);
    KeyFingerprint fingerprint = index.fingerprinter(readSnapshot.schema());
    // per touched file, the replaced rows' positions and their keys
    Map<String, Map<Long, List<Object>>> touched = new TreeMap<>();
    Map<List<Object>, Change> applied = new HashMap<>();
    long inserted = 0;
    long updated = 0;
    long deleted = 0;
    long ignored = 0;
    List<Object[]> newRows = new ArrayList<>();
    for (Map.Entry<List<Object>, Change> e : changes.entrySet()) {
      Change change = e.getValue();
      fingerprint.of(change.row());
      KeyIndex.Found found = index.find(fingerprint.hi, fingerprint.lo);
      if (found != null && olderThanTable(change, found.sequence())) {
        ignored++;
        continue;
      }
      if (found != null) {
        applied.put(e.getKey(), change);
        for (long location : found.locations()) {
          touched
              .computeIfAbsent(index.path(location), p -> new HashMap<>())
              .put(KeyIndex.row(location), e.getKey());
        }
        if (change.kind() == Kind.UPSERT) {
          updated += found.locations().length;
          newRows.add(change.row());
        } else {
          deleted += found.locations().length;
        }
      } else if (change.kind() == Kind.UPSERT) {
        inserted++;
        newRows.add(change.row());
      }
    }
    long copied = 0;
    int vectorsAdded = 0;
    int vectorsUpdated = 0;
    List<AddFile> gone = rewritten;
    if (spec.strategy() == MergeSpec.Strategy.DELETION_VECTORS) {
      Map<String, Set<Long>> positions = new TreeMap<>();
      touched.forEach((path, rows) -> positions.put(path, rows.keySet()));
      DeletionVectorMarks.Marked marked = DeletionVectorMarks.mark(table, readSnapshot, positions);
      rewritten.addAll(marked.removed());
      readded.addAll(marked.readded());
      gone = marked.dropped();
      vectorsAdded = marked.vectorsAdded();
      vectorsUpdated = marked.vectorsUpdated();
    } else {
      copied = copyUntouchedRows(touched, applied);
    }
    for (Object[] row : newRows) {
      super.write(row);
    }
    metrics =
        new MergeMetrics(
            changes.size(),
            inserted,
            updated,
            deleted,
            ignored,
            copied,
            gone.size(),
            0,
            gone.stream().mapToLong(AddFile::size).sum(),
            0,
            indexed,
            vectorsAdded,
            vectorsUpdated);
  }

  /**
   * Copies the rows of each touched file that no applied change replaces, and marks the file for
   * removal. Rows are matched by their real key, so a key held by several rows loses them all; a
   * position the index named must hold one of the changed keys.
   */
  private long copyUntouchedRows(
      Map<String, Map<Long, List<Object>>> touched, Map<List<Object>, Change> applied)
      throws IOException {
    StructType schema = readSnapshot.schema();
    Map<String, AddFile> live = readSnapshot.state().files();
    long copied = 0;
    for (Map.Entry<String, Map<Long, List<Object>>> t : touched.entrySet()) {
      AddFile add = live.get(t.getKey());
      DataFile file = readSnapshot.toDataFile(add);
      rewritten.add(add);
      try (RowIterator rows =
          DataFiles.read(table.store(), file, schema, readSnapshot.columnMapping())) {
        while (rows.hasNext()) {
          Object[] row = rows.next();
          long position = rows.rowIndex(); // physical: the index's positions count deleted rows
          List<Object> key = key(row);
          List<Object> expected = t.getValue().get(position);
          if (expected != null && !expected.equals(key)) {
            throw new IllegalStateException(
                "key index of Delta table at "
                    + table.location()
                    + " is out of step with data file "
                    + add.path()
                    + ": row "
                    + position
                    + " holds key "
                    + key
                    + ", not "
                    + expected
                    + "; nothing was committed. Retry the merge (a new table handle re-reads the"
                    + " keys).");
          }
          if (!applied.containsKey(key)) {
            super.write(row);
            copied++;
          }
        }
      }
    }
    return copied;
  }

  /** Whether the change is ordered and below the table row's sequence value. */
  private boolean olderThanTable(Change change, long tableSequence) {
    if (sequenceColumn < 0
        || change.order() == Order.ALWAYS
        || tableSequence == KeyIndex.NO_SEQUENCE) {
      return false;
    }
    long own = KeyIndex.sequenceOf(change.row()[sequenceColumn]);
    return own != KeyIndex.NO_SEQUENCE && own < tableSequence;
  }

  private List<Object> key(Object[] row) {
    return MergeMetrics.key(row, keyColumns);
  }

  @Override
  List<Action> removals(long now) {
    List<Action> actions = MergeMetrics.removals(rewritten, now);
    actions.addAll(readded); // deletion vectors: the same paths again, with their new vectors
    return actions;
  }

  /**
   * Delta's {@code operationParameters} and {@code operationMetrics} of a MERGE, as Spark writes
   * them (string values), so {@code DESCRIBE HISTORY} shows what the merge did.
   */
  @Override
  Map<String, Object> operationInfo(List<DataFile> added) {
    metrics = metrics.withAdded(added);
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("predicate", MergeMetrics.keyPredicate(spec.keyColumns()));
    parameters.put(
        "matchedPredicates",
        spec.sequenceColumn()
            .map(
                s ->
                    "[{\"predicate\":\"source."
                        + s
                        + " >= target."
                        + s
                        + "\",\"actionType\":\"update\"},{\"actionType\":\"delete\"}]")
            .orElse("[{\"actionType\":\"update\"},{\"actionType\":\"delete\"}]"));
    parameters.put("notMatchedPredicates", "[{\"actionType\":\"insert\"}]");
    parameters.put("notMatchedBySourcePredicates", "[]");
    Map<String, Object> operationMetrics = metrics.operationMetrics();
    operationMetrics.put("numTargetRowsDeleted", Long.toString(metrics.deleted()));
    operationMetrics.put("numTargetRowsMatchedDeleted", Long.toString(metrics.deleted()));
    metrics.putFileMetrics(operationMetrics);
    operationMetrics.put("numTargetRowsIgnoredOlder", Long.toString(metrics.ignoredOlder()));
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("operationParameters", parameters);
    info.put("operationMetrics", operationMetrics);
    return info;
  }

  @Override
  String operation() {
    return "MERGE";
  }

  @Override
  boolean overwritesAll() {
    return false;
  }
}
