package dev.tributary.table;

import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.ProtocolSupport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Replaces the rows of a range of a table in one commit (Delta's {@code replaceWhere}): the rows
 * the range's row filter takes are removed, the rows of the files of another table stored inside
 * this table's folder ({@link #addTableFiles}) and any rows {@link #write written} are added. It
 * knows nothing of what the range means: the caller gives a {@link Range} — which files lie inside,
 * outside or across it, and which rows it holds.
 *
 * <p>Protocol of {@link #prepare} (on the read snapshot): each live file is placed by the range's
 * classifier; a file {@link Placement#INSIDE} is removed whole, one {@link Placement#OUTSIDE} is
 * kept (the same file, untouched), one {@link Placement#STRADDLES} is rewritten: its live rows (a
 * deletion vector's rows are not read) that the range does not take are copied into new files, and
 * the old file removed. The commit carries the removes, the added files and the transaction's txn,
 * so a rerun after the commit finds the txn and skips.
 *
 * <p>Conflicts ({@link ConflictRules}): a concurrent commit whose added data the classifier places
 * {@link Placement#OUTSIDE} the range does not conflict (the commit is retried at the next
 * version); one adding a file that may hold rows of the range, removing a file this one removes or
 * rewrites, or changing the metadata or protocol, makes the commit fail with a {@link
 * CommitConflictException}, nothing committed: the caller plans again on a fresh snapshot. Refused
 * on append-only tables and on tables that track row ids (a rewrite would have to keep them). See
 * {@link TableTransaction} for the lifecycle; obtain it from {@link DeltaTable#newReplaceRange}.
 */
public final class ReplaceRangeTransaction extends TableTransaction {
  private final Range range;
  private final List<AddFile> removed = new ArrayList<>();
  private final List<AddFile> staged = new ArrayList<>();
  private Metrics metrics = new Metrics(0, 0, 0, 0, 0, 0);
  private boolean prepared;

  /** Where a data file lies against the range. */
  public enum Placement {
    /** Every row of the file belongs to the range: removed whole. */
    INSIDE,
    /** No row of the file belongs to the range: kept as it is. */
    OUTSIDE,
    /**
     * Some rows may belong to the range, or the file cannot be placed (no statistics): rewritten.
     */
    STRADDLES
  }

  /** Places a live data file (statistics by column name, as {@link Snapshot#files()} has them). */
  @FunctionalInterface
  public interface Classifier {
    Placement place(DataFile file);
  }

  /**
   * The range replaced.
   *
   * @param files places a file; must never say {@link Placement#INSIDE} or {@link
   *     Placement#OUTSIDE} of a file that holds a row {@code rows} judges otherwise
   * @param rows whether a row (aligned with the table schema) belongs to the range
   * @param predicate the range as a predicate, for the commit's {@code operationParameters}
   */
  public record Range(Classifier files, Predicate<Object[]> rows, String predicate) {
    public Range {
      Objects.requireNonNull(files, "files");
      Objects.requireNonNull(rows, "rows");
      Objects.requireNonNull(predicate, "predicate");
    }
  }

  /**
   * What the commit does (known once {@link #prepare prepared}).
   *
   * @param filesRemoved live files removed whole (inside the range)
   * @param rowsRemoved rows of the range removed (from whole and rewritten files)
   * @param filesRewritten live files rewritten without the range's rows
   * @param rowsKept rows copied from the rewritten files (outside the range)
   * @param filesAdded files of the other table added
   * @param rowsAdded rows of those files
   */
  public record Metrics(
      int filesRemoved,
      long rowsRemoved,
      int filesRewritten,
      long rowsKept,
      int filesAdded,
      long rowsAdded) {}

  ReplaceRangeTransaction(DeltaTable table, TransactionId txn, Snapshot readSnapshot, Range range) {
    super(table, txn, readSnapshot);
    if (ProtocolSupport.appendOnly(readSnapshot.state().metadata())) {
      throw TableErrors.replaceRefused(
          table.location(),
          "it is append-only (delta.appendOnly=true), and replacing a range removes rows");
    }
    if (RowTracking.supported(readSnapshot.state())) {
      throw TableErrors.replaceRefused(
          table.location(),
          "it tracks row ids (table feature rowTracking), which the rewritten files would have to"
              + " keep; Tributary does not");
    }
    this.range = Objects.requireNonNull(range, "range");
  }

  /**
   * Adds every live file of {@code inner}, a table whose root is {@code folder} (relative, no
   * leading or trailing slash) inside this table's folder, by path relative to this table: no data
   * is copied. Its files must be valid files of this table: the same partition columns and the same
   * physical columns (names, types; under column mapping, the same physical names), which a table
   * created with this table's metadata has. The added files then belong to both tables; the inner
   * table must never delete them (Delta readers and vacuum ignore a folder whose name starts with
   * {@code _}).
   *
   * @throws IllegalArgumentException if the tables' layouts differ, the folder is not relative, or
   *     a file has a deletion vector
   */
  public void addTableFiles(Snapshot inner, String folder) {
    if (folder.isEmpty() || folder.startsWith("/") || folder.endsWith("/")) {
      throw new IllegalArgumentException("folder must be relative, without slashes at its ends");
    }
    var own = readSnapshot.columnMapping().physicalSchema(readSnapshot.dataSchema());
    var theirs = inner.columnMapping().physicalSchema(inner.dataSchema());
    if (!own.equals(theirs)
        || !own.fieldNames().equals(theirs.fieldNames())
        || !readSnapshot.physicalPartitionColumns().equals(inner.physicalPartitionColumns())) {
      throw new IllegalArgumentException(
          TableErrors.layoutsDiffer(
              table.location(),
              inner.location(),
              own.fieldNames() + " partitioned by " + readSnapshot.physicalPartitionColumns(),
              theirs.fieldNames() + " partitioned by " + inner.physicalPartitionColumns()));
    }
    for (AddFile a : inner.state().files().values()) {
      if (a.deletionVector() != null) {
        throw new IllegalArgumentException(
            "file '" + a.path() + "' of " + inner.location() + " has a deletion vector");
      }
      staged.add(
          new AddFile(
              folder + "/" + a.path(),
              a.partitionValues(),
              a.size(),
              a.modificationTime(),
              true /* dataChange */,
              a.stats(),
              Map.of()));
      metrics =
          new Metrics(
              metrics.filesRemoved(),
              metrics.rowsRemoved(),
              metrics.filesRewritten(),
              metrics.rowsKept(),
              metrics.filesAdded() + 1,
              metrics.rowsAdded() + Math.max(0, inner.toDataFile(a).stats().numRecords()));
    }
  }

  /** What the commit does; the files and rows added so far before {@link #prepare}. */
  public Metrics metrics() {
    return metrics;
  }

  /**
   * Places the read snapshot's files and rewrites the straddling ones, without committing; {@link
   * #commit} does it first if not done. Files written and never committed are orphans for vacuum.
   */
  public void prepare() throws IOException {
    if (prepared || alreadyCommitted()) {
      prepared = true;
      return;
    }
    prepared = true;
    int filesRemoved = 0;
    long rowsRemoved = 0;
    int rewritten = 0;
    long kept = 0;
    for (AddFile add : readSnapshot.state().files().values()) {
      DataFile file = readSnapshot.toDataFile(add);
      Placement placement = range.files().place(file);
      if (placement == Placement.OUTSIDE) {
        continue;
      }
      removed.add(add);
      if (placement == Placement.INSIDE) {
        filesRemoved++;
        rowsRemoved += liveRows(file);
        continue;
      }
      rewritten++;
      try (RowIterator rows =
          DataFiles.read(
              table.store(), file, readSnapshot.schema(), readSnapshot.columnMapping())) {
        while (rows.hasNext()) {
          Object[] row = rows.next();
          if (range.rows().test(row)) {
            rowsRemoved++;
          } else {
            write(row);
            kept++;
          }
        }
      }
    }
    metrics =
        new Metrics(
            filesRemoved, rowsRemoved, rewritten, kept, metrics.filesAdded(), metrics.rowsAdded());
  }

  private long liveRows(DataFile file) throws IOException {
    long rows = file.liveRows();
    if (rows >= 0) {
      return rows;
    }
    long all = DataFiles.rowCount(table.store(), file.path());
    return all - (file.deletionVector() == null ? 0 : file.deletionVector().cardinality());
  }

  @Override
  public CommitResult commit(Map<String, String> commitInfoExtras) throws IOException {
    prepare();
    return super.commit(commitInfoExtras);
  }

  @Override
  List<Action> removals(long now) {
    List<Action> actions = new ArrayList<>(MergeMetrics.removals(removed, now));
    actions.addAll(staged); // added here: they are not files this transaction wrote
    return actions;
  }

  /** Delta's {@code operationParameters} of a WRITE with replaceWhere, and what it did. */
  @Override
  Map<String, Object> operationInfo(List<DataFile> added) {
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("mode", "Overwrite");
    parameters.put("partitionBy", "[]");
    parameters.put("predicate", "[\"" + range.predicate().replace("\"", "\\\"") + "\"]");
    Map<String, Object> operationMetrics = new LinkedHashMap<>();
    operationMetrics.put("numFiles", Integer.toString(staged.size() + added.size()));
    operationMetrics.put("numOutputRows", Long.toString(metrics.rowsAdded() + metrics.rowsKept()));
    operationMetrics.put("numRemovedFiles", Integer.toString(removed.size()));
    operationMetrics.put("numDeletedRows", Long.toString(metrics.rowsRemoved()));
    operationMetrics.put("numCopiedRows", Long.toString(metrics.rowsKept()));
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("operationParameters", parameters);
    info.put("operationMetrics", operationMetrics);
    return info;
  }

  /** A concurrent commit's data conflicts unless the range's classifier places it outside. */
  @Override
  ConflictRules.AddRule addRule() {
    return new ConflictRules.AddRule(
        add -> range.files().place(readSnapshot.toDataFile(add)) != Placement.OUTSIDE,
        "that may hold rows of the range this commit replaces (" + range.predicate() + ")");
  }

  @Override
  String operation() {
    return "WRITE";
  }

  @Override
  boolean overwritesAll() {
    return false;
  }
}
