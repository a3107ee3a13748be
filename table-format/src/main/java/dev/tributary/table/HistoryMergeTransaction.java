package dev.tributary.table;

import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Merges changes by key into a table that keeps every version of a key ({@code history: scd2},
 * docs/DESIGN.md "Upsert"): each version is a row with {@link #VALID_FROM}, {@link #VALID_TO} (null
 * for the current version) and {@link #IS_CURRENT}. The rules of a key's history are {@link
 * VersionHistory}'s: a change closes the version it falls into and opens its own, a delete closes
 * it, several changes of a key chain, a late change splits the version it falls into, a change at
 * an instant the key's history already holds is a duplicate.
 *
 * <p>Protocol of {@link #commit}: the table's {@link KeyIndex} (by key, without a sequence column)
 * is brought up to the read snapshot and gives, per changed key, the locations of all its versions,
 * whatever files hold them; the files holding them are read once to collect the versions, each
 * key's plan is made, and the files holding versions that change are rewritten without them
 * (copy-on-write) while the changed and new versions are written as new rows. One commit closes and
 * opens versions together, carrying the transaction id, so a replayed batch is skipped. The commit
 * conflicts, as {@link MergeTransaction}'s does, with a concurrent one that removes a file it
 * rewrites. Obtain it from {@link DeltaTable#newHistoryMerge}.
 */
public final class HistoryMergeTransaction extends TableTransaction {
  /** The column holding the instant a version starts: its change's {@code sequence-by} value. */
  public static final String VALID_FROM = "_valid_from";

  /** The column holding the instant a version ends (the key's next change), null if current. */
  public static final String VALID_TO = "_valid_to";

  /** The column telling the current version of a key (the one whose {@code _valid_to} is null). */
  public static final String IS_CURRENT = "_is_current";

  /** The history columns, in the order {@link #withHistoryColumns} appends them. */
  public static final List<String> HISTORY_COLUMNS = List.of(VALID_FROM, VALID_TO, IS_CURRENT);

  private final MergeSpec spec;
  private final int[] keyColumns;
  private final VersionHistory history;
  private final Map<List<Object>, List<VersionHistory.Event>> changes = new LinkedHashMap<>();
  private final List<AddFile> rewritten = new ArrayList<>();
  private MergeMetrics metrics = MergeMetrics.NONE;
  private long changeCount;
  private boolean prepared;

  /** Where a change's instant puts it in its key's history. */
  public enum Placement {
    /** At its instant, wherever that falls: a late change goes back into the history. */
    AT,
    /**
     * At its instant, or at the latest instant the key's history holds if that is later: a Kafka
     * tombstone, whose instant (the record's timestamp) comes from another clock than {@code
     * sequence-by}'s and must not cut an earlier version.
     */
    NOT_BEFORE_LATEST
  }

  /**
   * One change of a key.
   *
   * @param kind upsert (a new version from {@code at}) or delete (the key's version at {@code at}
   *     ends there)
   * @param row the row, aligned with the table schema (its history columns are set by the merge);
   *     for a delete only the key columns are read
   * @param at the instant the change takes effect, in microseconds since the epoch
   * @param placement whether the stored history can make the instant later
   */
  public record Change(MergeTransaction.Kind kind, Object[] row, long at, Placement placement) {
    public Change {
      Objects.requireNonNull(kind, "kind");
      row = row.clone();
      Objects.requireNonNull(placement, "placement");
    }

    /** A change at its instant ({@link Placement#AT}). */
    public Change(MergeTransaction.Kind kind, Object[] row, long at) {
      this(kind, row, at, Placement.AT);
    }
  }

  HistoryMergeTransaction(
      DeltaTable table, TransactionId txn, Snapshot readSnapshot, MergeSpec spec) {
    super(table, txn, readSnapshot);
    if (ProtocolSupport.appendOnly(readSnapshot.state().metadata())) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + table.location()
              + ": it is append-only (delta.appendOnly=true). Append instead, or write to another"
              + " table.");
    }
    if (RowTracking.supported(readSnapshot.state())) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + table.location()
              + ": it tracks row ids (table feature rowTracking), which a merge would have to keep"
              + " for the rows it rewrites; Tributary does not. Append instead, or write to another"
              + " table.");
    }
    this.spec = spec;
    StructType schema = readSnapshot.schema();
    this.keyColumns = new int[spec.keyColumns().size()];
    for (int i = 0; i < keyColumns.length; i++) {
      keyColumns[i] = column(schema, "merge key column", spec.keyColumns().get(i), null);
    }
    this.history =
        new VersionHistory(
            column(schema, "history column", VALID_FROM, PrimitiveType.TIMESTAMP),
            column(schema, "history column", VALID_TO, PrimitiveType.TIMESTAMP),
            column(schema, "history column", IS_CURRENT, PrimitiveType.BOOLEAN));
  }

  /** {@code schema} with the history columns appended (nullable). */
  public static StructType withHistoryColumns(StructType schema) {
    List<StructField> fields = new ArrayList<>(schema.fields());
    fields.add(StructField.nullable(VALID_FROM, PrimitiveType.TIMESTAMP));
    fields.add(StructField.nullable(VALID_TO, PrimitiveType.TIMESTAMP));
    fields.add(StructField.nullable(IS_CURRENT, PrimitiveType.BOOLEAN));
    return new StructType(fields);
  }

  private int column(StructType schema, String role, String name, DataType type) {
    int index = schema.indexOf(name);
    if (index < 0 || (type != null && schema.fields().get(index).type() != type)) {
      throw new IllegalArgumentException(
          role
              + " '"
              + name
              + "' is not a "
              + (type == null ? "" : type.deltaName() + " ")
              + "column of table "
              + table.location()
              + "; columns are "
              + schema.fieldNames()
              + (type == null
                  ? ""
                  : " (a table keeping history needs "
                      + HISTORY_COLUMNS
                      + "; write the history to a new table)"));
    }
    return index;
  }

  /** Not supported: a history merge needs each change's instant; use {@link #apply}. */
  @Override
  public void write(Object[] row) {
    throw new UnsupportedOperationException(
        "a history merge takes changes with their instant: use apply(Change)");
  }

  /** Buffers a change of its key; the batch's changes of a key are kept in the order given. */
  public void apply(Change change) {
    if (prepared) {
      throw new IllegalStateException(
          "merge into " + table.location() + " is prepared: it takes no more changes");
    }
    if (alreadyCommitted()) {
      return;
    }
    changeCount++;
    changes
        .computeIfAbsent(key(change.row()), k -> new ArrayList<>())
        .add(
            new VersionHistory.Event(change.kind(), change.row(), change.at(), change.placement()));
  }

  /** What the commit did; {@link MergeMetrics#NONE} before it, or when it was a skip. */
  public MergeMetrics metrics() {
    return metrics;
  }

  /** Plans and writes the merge, then commits it with the txn; see the class comment. */
  @Override
  public CommitResult commit(Map<String, String> commitInfoExtras) throws IOException {
    prepare();
    return super.commit(commitInfoExtras);
  }

  /**
   * Plans the merge on the read snapshot and writes its data files, without committing; {@link
   * #commit} does it first if not done. Once prepared, no more changes are taken.
   *
   * @throws IllegalStateException if a file no longer holds a key where the index says it does
   *     (nothing committed)
   */
  public void prepare() throws IOException {
    if (!prepared && !alreadyCommitted() && !changes.isEmpty()) {
      rewrite();
    }
    prepared = true;
  }

  /** A stored version of a key: where it is and what it holds. */
  private record Held(String path, long position, VersionHistory.Version version) {}

  private void rewrite() throws IOException {
    KeyIndex index = table.keyIndex(MergeSpec.byKey(spec.keyColumns()));
    long indexed = index.sync(table.store(), readSnapshot);
    KeyFingerprint fingerprint = index.fingerprinter(readSnapshot.schema());
    // per file holding versions of changed keys: position to key
    Map<String, Map<Long, List<Object>>> holding = new TreeMap<>();
    for (Map.Entry<List<Object>, List<VersionHistory.Event>> e : changes.entrySet()) {
      fingerprint.of(e.getValue().get(0).row());
      KeyIndex.Found found = index.find(fingerprint.hi, fingerprint.lo);
      if (found != null) {
        for (long location : found.locations()) {
          holding
              .computeIfAbsent(index.path(location), p -> new HashMap<>())
              .put(KeyIndex.row(location), e.getKey());
        }
      }
    }
    Map<List<Object>, List<Held>> stored = readVersions(holding);
    Map<String, Set<Long>> removed = new TreeMap<>();
    List<Object[]> added = new ArrayList<>();
    long opened = 0;
    long closed = 0;
    long duplicates = 0;
    for (Map.Entry<List<Object>, List<VersionHistory.Event>> e : changes.entrySet()) {
      List<Held> held = stored.getOrDefault(e.getKey(), List.of());
      VersionHistory.Plan plan =
          history.plan(held.stream().map(Held::version).toList(), e.getValue());
      for (int i : plan.removed()) {
        Held h = held.get(i);
        removed.computeIfAbsent(h.path(), p -> new HashSet<>()).add(h.position());
      }
      added.addAll(plan.added());
      opened += plan.opened();
      closed += plan.removed().size();
      duplicates += plan.duplicates();
    }
    long copied = copyKeptRows(removed);
    for (Object[] row : added) {
      super.write(row);
    }
    long bytesRemoved = rewritten.stream().mapToLong(AddFile::size).sum();
    metrics =
        new MergeMetrics(
            changeCount,
            opened,
            closed,
            0,
            duplicates,
            copied,
            rewritten.size(),
            0,
            bytesRemoved,
            0,
            indexed);
  }

  /** Reads the versions the index located, per key, checking each row holds the expected key. */
  private Map<List<Object>, List<Held>> readVersions(Map<String, Map<Long, List<Object>>> holding)
      throws IOException {
    Map<List<Object>, List<Held>> out = new HashMap<>();
    Map<String, AddFile> live = readSnapshot.state().files();
    for (Map.Entry<String, Map<Long, List<Object>>> f : holding.entrySet()) {
      AddFile add = live.get(f.getKey());
      try (RowIterator rows =
          DataFiles.read(
              table.store(),
              readSnapshot.toDataFile(add),
              readSnapshot.schema(),
              readSnapshot.columnMapping())) {
        while (rows.hasNext()) {
          Object[] row = rows.next();
          long position = rows.rowIndex();
          List<Object> expected = f.getValue().get(position);
          if (expected == null) {
            continue;
          }
          List<Object> key = key(row);
          if (!expected.equals(key)) {
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
          out.computeIfAbsent(key, k -> new ArrayList<>())
              .add(new Held(add.path(), position, history.version(row)));
        }
      }
    }
    return out;
  }

  /** Copies the rows of each file with removed versions that stay, and marks it for removal. */
  private long copyKeptRows(Map<String, Set<Long>> removed) throws IOException {
    Map<String, AddFile> live = readSnapshot.state().files();
    long copied = 0;
    for (Map.Entry<String, Set<Long>> f : removed.entrySet()) {
      AddFile add = live.get(f.getKey());
      rewritten.add(add);
      try (RowIterator rows =
          DataFiles.read(
              table.store(),
              readSnapshot.toDataFile(add),
              readSnapshot.schema(),
              readSnapshot.columnMapping())) {
        while (rows.hasNext()) {
          Object[] row = rows.next();
          if (!f.getValue().contains(rows.rowIndex())) {
            super.write(row);
            copied++;
          }
        }
      }
    }
    return copied;
  }

  private List<Object> key(Object[] row) {
    return MergeMetrics.key(row, keyColumns);
  }

  @Override
  List<Action> removals(long now) {
    return MergeMetrics.removals(rewritten, now);
  }

  /**
   * Delta's {@code operationParameters} and {@code operationMetrics} of a MERGE (string values, as
   * Spark writes them): versions opened count as inserted rows, versions whose validity changed as
   * updated rows.
   */
  @Override
  Map<String, Object> operationInfo(List<DataFile> added) {
    metrics = metrics.withAdded(added);
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("predicate", MergeMetrics.keyPredicate(spec.keyColumns()));
    parameters.put("history", "scd2");
    Map<String, Object> operationMetrics = metrics.operationMetrics();
    operationMetrics.put("numTargetRowsDeleted", "0");
    metrics.putFileMetrics(operationMetrics);
    operationMetrics.put("numTargetRowsIgnoredDuplicate", Long.toString(metrics.ignoredOlder()));
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
