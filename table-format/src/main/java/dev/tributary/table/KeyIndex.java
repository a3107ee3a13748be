package dev.tributary.table;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import dev.tributary.table.dv.DeletionVectors;
import dev.tributary.table.dv.RoaringBitmapArray;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Where each key of a table lives: key fingerprint ({@link KeyFingerprint}) to (data file, row
 * position in the file), plus the row's {@code sequence-by} value when the merge has one. A merge
 * finds the files and rows its changes touch with one lookup per change, whatever the table's size:
 * this is what keeps a batch's cost proportional to the change (docs/DESIGN.md, "Upsert").
 *
 * <p>The index lives in memory, with the {@link DeltaTable} handle, and follows the table by files:
 * {@link #sync} drops the files a snapshot no longer holds and reads the key (and sequence) columns
 * of the files it has not seen, so the first sync reads the key columns of the whole table once,
 * and every later one only the files committed since (a batch's own new files, compaction's
 * output). Data files are immutable, so a file read once never needs reading again.
 *
 * <p>Storage: open addressing with linear probing over parallel arrays (fingerprint high and low
 * halves, location, sequence), about 40 bytes per key at the average load (a 10 M-key table takes
 * about 400 MB). A file dropped from the index is only marked dead, and so is a row a deletion
 * vector deletes after it was indexed (the file's vector is kept in memory); their slots are reused
 * by later inserts and reclaimed by the next rehash, so a merge's own deletion vectors cost a
 * lookup per row, never a pass over the whole index. A key held by more than one row (a table
 * written by another tool, or appended before it was upserted) keeps its other rows in a side map,
 * so a merge replaces every copy.
 *
 * <p>Thread-safety: every method is synchronized (a table handle may be shared by threads).
 */
final class KeyIndex {
  /** The value of {@link Found#sequence} when no row of the key has a sequence value. */
  static final long NO_SEQUENCE = MergeSpec.NO_SEQUENCE;

  private static final long EMPTY = -1;
  private static final long TOMBSTONE = -2;
  private static final int ROW_BITS = 40;
  private static final long ROW_MASK = (1L << ROW_BITS) - 1;
  private static final int MAX_FILE_ID = (1 << (63 - ROW_BITS)) - 1;
  private static final int MIN_CAPACITY = 1024;

  private final List<String> keyColumns;
  private final String sequenceColumn;

  private long[] his;
  private long[] los;
  private long[] locs;
  private long[] seqs;
  private int mask;

  /** Slots holding an entry or a tombstone: what decides when to rehash. */
  private int occupied;

  /** More rows of a key than the slot holds: fingerprint to extra (location, sequence) pairs. */
  private final Map<Fingerprint, List<long[]>> duplicates = new HashMap<>();

  private final Map<String, FileEntry> files = new HashMap<>();
  private final List<String> pathsById = new ArrayList<>();
  private final BitSet alive = new BitSet();

  /**
   * By file id, the rows its deletion vector deletes that were indexed before the vector grew
   * (null: none): such a row's entry stays in the table and counts as dead ({@link #live}), like an
   * entry of a dropped file, so a merge's own vectors cost a lookup per row, not a pass over the
   * index.
   */
  private final List<RoaringBitmapArray> deletedById = new ArrayList<>();

  private String tableId;

  /**
   * A data file the index holds: its id in locations, its deletion vector's id, and the vector
   * itself (null for none).
   */
  private record FileEntry(int id, String dvId, DeletionVectorDescriptor dv) {}

  /** A key's fingerprint, as a map key for duplicates. */
  private record Fingerprint(long hi, long lo) {}

  /**
   * The rows of one key: their locations ({@link #path}, {@link #row}) and the highest sequence
   * value among them ({@link #NO_SEQUENCE} if none).
   */
  record Found(long[] locations, long sequence) {}

  KeyIndex(List<String> keyColumns, String sequenceColumn) {
    this.keyColumns = List.copyOf(keyColumns);
    this.sequenceColumn = sequenceColumn;
    clear();
  }

  /** The key columns, in fingerprint order. */
  List<String> keyColumns() {
    return keyColumns;
  }

  /** The sequence column, or null. */
  String sequenceColumn() {
    return sequenceColumn;
  }

  /** A fingerprinter of rows laid out as {@code schema} (the key columns at their positions). */
  KeyFingerprint fingerprinter(StructType schema) {
    int[] columns = new int[keyColumns.size()];
    boolean integral = true;
    for (int i = 0; i < columns.length; i++) {
      columns[i] = schema.indexOf(keyColumns.get(i));
      if (columns[i] < 0) {
        throw new IllegalArgumentException(
            "key column '" + keyColumns.get(i) + "' is not among " + schema.fieldNames());
      }
      integral &= exactType(schema.fields().get(columns[i]).type());
    }
    return new KeyFingerprint(columns, integral);
  }

  private static boolean exactType(DataType type) {
    return type == PrimitiveType.LONG
        || type == PrimitiveType.INTEGER
        || type == PrimitiveType.DATE
        || type == PrimitiveType.TIMESTAMP;
  }

  /** The sequence value of a row's sequence column ({@link MergeSpec#sequenceValue}). */
  static long sequenceOf(Object value) {
    return MergeSpec.sequenceValue(value);
  }

  /**
   * Brings the index to {@code snapshot}: drops the files it no longer holds (or holds with another
   * deletion vector) and reads the key columns of those it has not seen. Rows a file's deletion
   * vector deletes are not read (DataFiles skips them), and a row's position is its physical index
   * in the file, the one a deletion vector names. Returns how many rows it read.
   */
  synchronized long sync(ObjectStore store, Snapshot snapshot) throws IOException {
    if (!snapshot.tableId().equals(tableId)) {
      clear();
      tableId = snapshot.tableId();
    }
    Map<String, AddFile> current = snapshot.state().files();
    for (Iterator<Map.Entry<String, FileEntry>> it = files.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, FileEntry> e = it.next();
      AddFile now = current.get(e.getKey());
      FileEntry held = e.getValue();
      if (now != null && deletionVectorId(now).equals(held.dvId())) {
        continue;
      }
      RoaringBitmapArray deleted = now == null ? null : grownVector(store, held, now);
      if (deleted != null) {
        // the same file with more rows deleted (a merge marked them): its entries stay, those of
        // the deleted rows count as dead from now on, instead of reading its keys again
        deletedById.set(held.id(), deleted);
        e.setValue(new FileEntry(held.id(), deletionVectorId(now), now.deletionVector()));
      } else {
        alive.clear(held.id());
        deletedById.set(held.id(), null);
        it.remove();
      }
    }
    StructType projection = projection(snapshot);
    KeyFingerprint fingerprint = fingerprinter(projection);
    int sequence = sequenceColumn == null ? -1 : projection.indexOf(sequenceColumn);
    long read = 0;
    for (AddFile add : current.values()) {
      if (files.containsKey(add.path())) {
        continue;
      }
      if (pathsById.size() > MAX_FILE_ID) {
        // ids are never reused: start over (once per 8 million files)
        clear();
        tableId = snapshot.tableId();
        return sync(store, snapshot);
      }
      int id = pathsById.size();
      pathsById.add(add.path());
      deletedById.add(null); // rows its vector deletes are not read, so not indexed
      alive.set(id);
      files.put(add.path(), new FileEntry(id, deletionVectorId(add), add.deletionVector()));
      DataFile file = snapshot.toDataFile(add);
      long row = 0;
      try (RowIterator rows = DataFiles.read(store, file, projection, snapshot.columnMapping())) {
        while (rows.hasNext()) {
          Object[] values = rows.next();
          row = rows.rowIndex();
          if (row > ROW_MASK) {
            break;
          }
          fingerprint.of(values);
          insert(
              fingerprint.hi,
              fingerprint.lo,
              ((long) id << ROW_BITS) | row,
              sequence < 0 ? NO_SEQUENCE : sequenceOf(values[sequence]));
          read++;
        }
      }
      if (row > ROW_MASK) {
        throw new IllegalStateException("data file " + add.path() + " has over 2^40 rows");
      }
    }
    return read;
  }

  /**
   * The rows {@code now}'s deletion vector deletes, when it deletes every row the vector the index
   * knows for the file did; null when it does not (another engine rewrote the vector, or a restore
   * brought rows back: the file is read again).
   */
  private RoaringBitmapArray grownVector(ObjectStore store, FileEntry held, AddFile now)
      throws IOException {
    if (now.deletionVector() == null) {
      return null;
    }
    RoaringBitmapArray after = DeletionVectors.load(store, now.deletionVector());
    RoaringBitmapArray before = deletedById.get(held.id());
    if (before == null && held.dv() != null) {
      before = DeletionVectors.load(store, held.dv());
    }
    if (before != null) {
      for (long row : before.toArray()) {
        if (!after.contains(row)) {
          return null;
        }
      }
    }
    return after;
  }

  /**
   * Whether the row at {@code location} is in the table: its file is, and the file's deletion
   * vector does not delete it.
   */
  private boolean live(long location) {
    int file = fileOf(location);
    if (!alive.get(file)) {
      return false;
    }
    RoaringBitmapArray deleted = deletedById.get(file);
    return deleted == null || !deleted.contains(row(location));
  }

  /** The id of the file's deletion vector, "" for none (a file re-added with one is another). */
  static String deletionVectorId(AddFile add) {
    return add.deletionVector() == null ? "" : add.deletionVector().uniqueId();
  }

  /**
   * The columns read to index a file: the key columns and the sequence column, plus one stored
   * column when all of them are partition columns (Parquet returns no rows for an empty
   * projection).
   */
  private StructType projection(Snapshot snapshot) {
    List<StructField> fields = new ArrayList<>();
    boolean stored = false;
    List<String> wanted = new ArrayList<>(keyColumns);
    if (sequenceColumn != null && !keyColumns.contains(sequenceColumn)) {
      wanted.add(sequenceColumn);
    }
    for (String name : wanted) {
      StructField f =
          snapshot
              .schema()
              .field(name)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "column '"
                              + name
                              + "' is not a column of table "
                              + snapshot.location()
                              + "; columns are "
                              + snapshot.schema().fieldNames()));
      fields.add(f);
      stored |= !snapshot.partitionColumns().contains(name);
    }
    if (!stored && !snapshot.dataSchema().fields().isEmpty()) {
      fields.add(snapshot.dataSchema().fields().get(0));
    }
    return new StructType(fields);
  }

  /** The rows holding the key with this fingerprint, or null. */
  synchronized Found find(long hi, long lo) {
    int slot = slotOf(hi, lo);
    List<long[]> more = duplicates.isEmpty() ? null : duplicates.get(new Fingerprint(hi, lo));
    if (more == null) {
      return slot < 0
          ? null
          : new Found(new long[] {locs[slot]}, seqs == null ? NO_SEQUENCE : seqs[slot]);
    }
    // the slot's row may be dead while another row of the key lives on
    List<Long> found = new ArrayList<>();
    long sequence = NO_SEQUENCE;
    if (slot >= 0) {
      found.add(locs[slot]);
      sequence = seqs == null ? NO_SEQUENCE : seqs[slot];
    }
    for (long[] extra : more) {
      if (live(extra[0])) {
        found.add(extra[0]);
        sequence = Math.max(sequence, extra[1]);
      }
    }
    return found.isEmpty()
        ? null
        : new Found(found.stream().mapToLong(Long::longValue).toArray(), sequence);
  }

  /** The path of the file a location is in. */
  synchronized String path(long location) {
    return pathsById.get(fileOf(location));
  }

  /** The row position a location is at, in its file. */
  static long row(long location) {
    return location & ROW_MASK;
  }

  /** The number of rows indexed in live files (a scan: for tests and metrics). */
  synchronized long size() {
    long count = 0;
    for (long loc : locs) {
      if (loc >= 0 && live(loc)) {
        count++;
      }
    }
    for (List<long[]> more : duplicates.values()) {
      for (long[] d : more) {
        count += live(d[0]) ? 1 : 0;
      }
    }
    return count;
  }

  /** The number of files indexed. */
  synchronized int fileCount() {
    return files.size();
  }

  private static int fileOf(long location) {
    return (int) (location >>> ROW_BITS);
  }

  private int slotOf(long hi, long lo) {
    for (int i = hash(hi, lo) & mask; ; i = (i + 1) & mask) {
      long loc = locs[i];
      if (loc == EMPTY) {
        return -1;
      }
      if (loc != TOMBSTONE && his[i] == hi && los[i] == lo && live(loc)) {
        return i;
      }
    }
  }

  private void insert(long hi, long lo, long location, long sequence) {
    int existing = slotOf(hi, lo);
    if (existing >= 0) {
      duplicates
          .computeIfAbsent(new Fingerprint(hi, lo), k -> new ArrayList<>())
          .add(new long[] {location, sequence});
      return;
    }
    if (occupied + 1 > (mask + 1) * 3L / 4) {
      rehash();
    }
    for (int i = hash(hi, lo) & mask; ; i = (i + 1) & mask) {
      long loc = locs[i];
      if (loc == EMPTY || loc == TOMBSTONE || !live(loc)) {
        if (loc == EMPTY) {
          occupied++;
        }
        his[i] = hi;
        los[i] = lo;
        locs[i] = location;
        if (seqs != null) {
          seqs[i] = sequence;
        }
        return;
      }
    }
  }

  /** Rebuilds the table with only the live entries, at a capacity with room to grow. */
  private void rehash() {
    long[] oldHi = his;
    long[] oldLo = los;
    long[] oldLoc = locs;
    long[] oldSeq = seqs;
    int count = 0;
    for (long loc : oldLoc) {
      if (loc >= 0 && live(loc)) {
        count++;
      }
    }
    int capacity = MIN_CAPACITY;
    while (capacity * 0.6 < count + 1) {
      capacity <<= 1; // at most 60% full after a rehash, so the next one is far off
    }
    allocate(capacity);
    for (int i = 0; i < oldLoc.length; i++) {
      long loc = oldLoc[i];
      if (loc >= 0 && live(loc)) {
        for (int j = hash(oldHi[i], oldLo[i]) & mask; ; j = (j + 1) & mask) {
          if (locs[j] == EMPTY) {
            his[j] = oldHi[i];
            los[j] = oldLo[i];
            locs[j] = loc;
            if (seqs != null) {
              seqs[j] = oldSeq[i];
            }
            occupied++;
            break;
          }
        }
      }
    }
    duplicates.values().forEach(list -> list.removeIf(d -> !live(d[0])));
    duplicates.values().removeIf(List::isEmpty);
  }

  private void allocate(int capacity) {
    his = new long[capacity];
    los = new long[capacity];
    locs = new long[capacity];
    Arrays.fill(locs, EMPTY);
    seqs = sequenceColumn == null ? null : new long[capacity];
    mask = capacity - 1;
    occupied = 0;
  }

  private void clear() {
    allocate(MIN_CAPACITY);
    duplicates.clear();
    files.clear();
    pathsById.clear();
    deletedById.clear();
    alive.clear();
    tableId = null;
  }

  private static int hash(long hi, long lo) {
    long h = KeyFingerprint.fmix(hi * 0x9e3779b9_7f4a7c15L ^ lo);
    return (int) (h ^ (h >>> 32));
  }
}
