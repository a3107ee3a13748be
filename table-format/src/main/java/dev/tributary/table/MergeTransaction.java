package dev.tributary.table;

import dev.tributary.storage.ObjectKeys;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Upserts rows by key in one commit (update output mode): rows written to this transaction replace
 * the table's rows with the same values in the key columns, or are added. At commit the files that
 * may hold one of the keys (by their min/max statistics on the key columns; all files without
 * statistics) are read and rewritten without the replaced rows, plus the new rows; the commit
 * removes those files ({@code dataChange=true}) and adds the new ones, so the table holds each key
 * once. The rows of one transaction are kept on the heap until commit (one batch's changed keys).
 * Conflicts with a concurrent commit that removes one of the rewritten files. See {@link
 * TableTransaction} for the lifecycle; obtain it from {@link DeltaTable#newMerge}.
 */
public final class MergeTransaction extends TableTransaction {
  private final int[] keyColumns;
  private final Map<List<Object>, Object[]> upserts = new LinkedHashMap<>();
  private final List<AddFile> rewritten = new ArrayList<>();

  MergeTransaction(
      DeltaTable table, TransactionId txn, Snapshot readSnapshot, List<String> keyColumns) {
    super(table, txn, readSnapshot);
    if (ProtocolSupport.appendOnly(readSnapshot.state().metadata())) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + table.location()
              + ": it is append-only (delta.appendOnly=true). Append instead, or write to another table.");
    }
    if (RowTracking.supported(readSnapshot.state())) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + table.location()
              + ": it tracks row ids (table feature rowTracking), which a merge would have to keep"
              + " for the rows it rewrites; Tributary does not. Append instead, or write to another"
              + " table.");
    }
    StructType schema = readSnapshot.schema();
    this.keyColumns = new int[keyColumns.size()];
    for (int i = 0; i < this.keyColumns.length; i++) {
      this.keyColumns[i] = schema.indexOf(keyColumns.get(i));
      if (this.keyColumns[i] < 0) {
        throw new IllegalArgumentException(
            "merge key column '"
                + keyColumns.get(i)
                + "' is not a column of table "
                + table.location()
                + "; columns are "
                + schema.fieldNames());
      }
    }
  }

  /** Buffers the row as the new value of its key (the last row written for a key wins). */
  @Override
  public void write(Object[] row) {
    if (alreadyCommitted()) {
      return;
    }
    upserts.put(key(row), row.clone());
  }

  /** Rewrites the files that may hold the keys, then commits removes and adds with the txn. */
  @Override
  public CommitResult commit(Map<String, String> commitInfoExtras) throws IOException {
    if (!alreadyCommitted() && !upserts.isEmpty()) {
      StructType schema = readSnapshot.schema();
      Map<String, AddFile> live = readSnapshot.state().files();
      for (DataFile file : readSnapshot.files()) {
        if (!mayHoldKeys(file)) {
          continue;
        }
        rewritten.add(live.get(file.path()));
        try (CloseableIterator<Object[]> rows =
            DataFiles.read(table.store(), file, schema, readSnapshot.columnMapping())) {
          while (rows.hasNext()) {
            Object[] row = rows.next();
            if (!upserts.containsKey(key(row))) {
              super.write(row);
            }
          }
        }
      }
      for (Object[] row : upserts.values()) {
        super.write(row);
      }
    }
    return super.commit(commitInfoExtras);
  }

  /** False only when a key column's statistics prove no new key falls in the file. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private boolean mayHoldKeys(DataFile file) {
    for (int i = 0; i < keyColumns.length; i++) {
      String name = readSnapshot.schema().fields().get(keyColumns[i]).name();
      Object min = file.stats().minValues().get(name);
      Object max = file.stats().maxValues().get(name);
      if (!(min instanceof Comparable) || !(max instanceof Comparable)) {
        continue;
      }
      boolean any = false;
      for (List<Object> k : upserts.keySet()) {
        Object v = k.get(i);
        try {
          if (v == null || compareAsStatistics(min, v) <= 0 && compareAsStatistics(max, v) >= 0) {
            any = true;
            break;
          }
        } catch (ClassCastException e) {
          any = true;
          break;
        }
      }
      if (!any) {
        return false;
      }
    }
    return true;
  }

  /**
   * Orders values the way file statistics are ordered: strings by their UTF-8 bytes, which is code
   * point order, not {@link String#compareTo}'s UTF-16 unit order (they differ for characters above
   * U+FFFF against U+E000..U+FFFF, and a wrong order would skip a file holding the key).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compareAsStatistics(Object a, Object b) {
    if (a instanceof String x && b instanceof String y) {
      return ObjectKeys.ORDER.compare(x, y); // code point order, the order of object keys too
    }
    return ((Comparable) a).compareTo(b);
  }

  private List<Object> key(Object[] row) {
    List<Object> k = new ArrayList<>(keyColumns.length);
    for (int c : keyColumns) {
      Object v = row[c];
      k.add(v instanceof byte[] b ? ByteBuffer.wrap(b) : v);
    }
    return k;
  }

  @Override
  List<Action> removals(long now) {
    List<Action> removes = new ArrayList<>();
    for (AddFile f : rewritten) {
      removes.add(f.toRemove(now, true /* dataChange */));
    }
    return removes;
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
