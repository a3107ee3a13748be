package dev.tributary.table.data;

import dev.tributary.table.dv.DeletionVectorDescriptor;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A Parquet data file that has been completely written to the table's store, described the way a
 * Delta {@code add} action needs it.
 *
 * @param path key relative to the table root, e.g. {@code
 *     region=EU/part-00000-<uuid>.snappy.parquet} (not URL-encoded here; the log layer encodes it)
 * @param partitionValues partition column name to its value as Delta serializes partition values
 *     (null value = null partition); empty for an unpartitioned table
 * @param size file size in bytes
 * @param modificationTime epoch milliseconds when the file was written
 * @param stats column statistics of the rows in the file (all of them: deleted rows included)
 * @param deletionVector the rows of the file that are deleted (never read), or null for none
 */
public record DataFile(
    String path,
    Map<String, String> partitionValues,
    long size,
    long modificationTime,
    FileStats stats,
    DeletionVectorDescriptor deletionVector) {
  public DataFile {
    Objects.requireNonNull(path, "path");
    // Map.copyOf rejects null values, and a null partition value is legal.
    partitionValues = Collections.unmodifiableMap(new LinkedHashMap<>(partitionValues));
    Objects.requireNonNull(stats, "stats");
  }

  /** A file without deleted rows: what a writer produces. */
  public DataFile(
      String path,
      Map<String, String> partitionValues,
      long size,
      long modificationTime,
      FileStats stats) {
    this(path, partitionValues, size, modificationTime, stats, null);
  }

  /** The rows a reader returns: the file's rows less the deleted ones; -1 if unknown. */
  public long liveRows() {
    if (stats.numRecords() < 0) {
      return -1;
    }
    return stats.numRecords() - (deletionVector == null ? 0 : deletionVector.cardinality());
  }
}
