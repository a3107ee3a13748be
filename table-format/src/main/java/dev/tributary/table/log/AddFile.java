package dev.tributary.table.log;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code add} action: a data file becomes part of the table.
 *
 * @param path key of the file relative to the table root, decoded (the log holds it URL-encoded)
 * @param partitionValues partition column to serialized value; a null value is a null partition;
 *     empty for an unpartitioned table (and still written, because readers require the field)
 * @param size file size in bytes
 * @param modificationTime epoch milliseconds
 * @param dataChange false when the file only rearranges existing rows (compaction)
 * @param stats the statistics JSON string ({@code numRecords}, {@code minValues}, ...), or null
 * @param tags free-form tags, usually empty
 */
public record AddFile(
    String path,
    Map<String, String> partitionValues,
    long size,
    long modificationTime,
    boolean dataChange,
    String stats,
    Map<String, String> tags)
    implements Action {
  public AddFile {
    Objects.requireNonNull(path, "path");
    partitionValues = copyAllowingNullValues(partitionValues);
    tags = copyAllowingNullValues(tags);
  }

  @Override
  public String kind() {
    return "add";
  }

  /** The same file with another {@code dataChange} flag, for checkpoints and compaction. */
  public AddFile withDataChange(boolean newDataChange) {
    return new AddFile(path, partitionValues, size, modificationTime, newDataChange, stats, tags);
  }

  /** The {@code remove} action that tombstones this file at {@code deletionTimestamp}. */
  public RemoveFile toRemove(long deletionTimestamp, boolean removeDataChange) {
    return new RemoveFile(path, deletionTimestamp, removeDataChange, true, partitionValues, size);
  }

  static Map<String, String> copyAllowingNullValues(Map<String, String> map) {
    // Map.copyOf rejects null values, and a null partition value is legal.
    return map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }
}
