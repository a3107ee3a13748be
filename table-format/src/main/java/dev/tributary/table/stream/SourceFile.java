package dev.tributary.table.stream;

import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.FileStats;
import dev.tributary.table.log.AddFile;
import java.util.Map;
import java.util.Objects;

/**
 * One data file a range reads: where it sits in the table's history and its {@code add} action.
 *
 * @param version the commit that added it, or the snapshot version for a snapshot file
 * @param index its index within that version (see {@link SourcePosition})
 * @param initialSnapshot true if it comes from the initial snapshot
 * @param add the {@code add} action (path relative to the table root, partition values, size)
 */
public record SourceFile(long version, long index, boolean initialSnapshot, AddFile add) {
  public SourceFile {
    Objects.requireNonNull(add, "add");
  }

  /** The file's key relative to the table root. */
  public String path() {
    return add.path();
  }

  /** The file's size in bytes, as its {@code add} action says. */
  public long size() {
    return add.size();
  }

  /** The position of this file; the position after it is the same with {@code index + 1}. */
  public SourcePosition position(String tableId) {
    return new SourcePosition(tableId, version, index, initialSnapshot);
  }

  /** The file as the data layer reads it (statistics are not needed to read rows). */
  DataFile toDataFile() {
    return new DataFile(
        add.path(),
        add.partitionValues(),
        add.size(),
        add.modificationTime(),
        new FileStats(-1, Map.of(), Map.of(), Map.of()),
        add.deletionVector());
  }

  @Override
  public String toString() {
    return "'"
        + path()
        + "' ("
        + (initialSnapshot ? "snapshot of version " : "version ")
        + version
        + ", file "
        + index
        + ")";
  }
}
