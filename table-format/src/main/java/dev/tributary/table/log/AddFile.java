package dev.tributary.table.log;

import dev.tributary.table.dv.DeletionVectorDescriptor;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code add} action: a logical file becomes part of the table: a data file, minus the rows its
 * deletion vector names, if it has one.
 *
 * @param path key of the file relative to the table root, decoded (the log holds it URL-encoded)
 * @param partitionValues partition column to serialized value; a null value is a null partition;
 *     empty for an unpartitioned table (and still written, because readers require the field)
 * @param size file size in bytes
 * @param modificationTime epoch milliseconds
 * @param dataChange false when the file only rearranges existing rows (compaction)
 * @param stats the statistics JSON string ({@code numRecords}, {@code minValues}, ...), or null;
 *     with a deletion vector, {@code numRecords} counts the file's rows, deleted ones included
 * @param tags free-form tags, usually empty
 * @param deletionVector the rows of the file that are deleted, or null for none
 * @param baseRowId row tracking: the row id of the file's first row, or null
 * @param defaultRowCommitVersion row tracking: the version that first added this path, or null
 */
public record AddFile(
    String path,
    Map<String, String> partitionValues,
    long size,
    long modificationTime,
    boolean dataChange,
    String stats,
    Map<String, String> tags,
    DeletionVectorDescriptor deletionVector,
    Long baseRowId,
    Long defaultRowCommitVersion)
    implements Action {
  public AddFile {
    Objects.requireNonNull(path, "path");
    partitionValues = copyAllowingNullValues(partitionValues);
    tags = copyAllowingNullValues(tags);
  }

  /** A file without deletion vector and without row tracking fields. */
  public AddFile(
      String path,
      Map<String, String> partitionValues,
      long size,
      long modificationTime,
      boolean dataChange,
      String stats,
      Map<String, String> tags) {
    this(path, partitionValues, size, modificationTime, dataChange, stats, tags, null, null, null);
  }

  @Override
  public String kind() {
    return "add";
  }

  /** The same file with another {@code dataChange} flag, for checkpoints and compaction. */
  public AddFile withDataChange(boolean newDataChange) {
    return new AddFile(
        path,
        partitionValues,
        size,
        modificationTime,
        newDataChange,
        stats,
        tags,
        deletionVector,
        baseRowId,
        defaultRowCommitVersion);
  }

  /** The same file with the given row tracking fields. */
  public AddFile withRowTracking(Long newBaseRowId, Long newDefaultRowCommitVersion) {
    return new AddFile(
        path,
        partitionValues,
        size,
        modificationTime,
        dataChange,
        stats,
        tags,
        deletionVector,
        newBaseRowId,
        newDefaultRowCommitVersion);
  }

  /**
   * The {@code remove} action that tombstones this logical file at {@code deletionTimestamp}: the
   * same path and deletion vector (its identity) and row tracking fields.
   */
  public RemoveFile toRemove(long deletionTimestamp, boolean removeDataChange) {
    return new RemoveFile(
        path,
        deletionTimestamp,
        removeDataChange,
        true,
        partitionValues,
        size,
        deletionVector,
        baseRowId,
        defaultRowCommitVersion);
  }

  /**
   * The logical file's key in a snapshot (Delta's {@code (path, deletionVector.uniqueId)}): the
   * path alone without a deletion vector.
   */
  public String logicalKey() {
    return logicalKey(path, deletionVector);
  }

  /** The number of rows deleted by the deletion vector, 0 without one. */
  public long deletedRows() {
    return deletionVector == null ? 0 : deletionVector.cardinality();
  }

  static String logicalKey(String path, DeletionVectorDescriptor dv) {
    return dv == null ? path : path + "\u0000" + dv.uniqueId();
  }

  static Map<String, String> copyAllowingNullValues(Map<String, String> map) {
    // Map.copyOf rejects null values, and a null partition value is legal.
    return map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }
}
