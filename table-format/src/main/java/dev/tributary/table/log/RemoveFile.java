package dev.tributary.table.log;

import java.util.Map;
import java.util.Objects;

/**
 * The {@code remove} action: a data file stops being part of the table and becomes a tombstone,
 * which vacuum may delete once {@code deletionTimestamp} is older than the retention period.
 *
 * @param path key relative to the table root, decoded
 * @param deletionTimestamp epoch milliseconds of the removal, or null if the writer omitted it
 * @param dataChange false when the rows live on in other files (compaction)
 * @param extendedFileMetadata true when partitionValues and size are present
 * @param partitionValues partition values of the removed file (may be empty)
 * @param size size of the removed file, or null if unknown
 */
public record RemoveFile(
    String path,
    Long deletionTimestamp,
    boolean dataChange,
    boolean extendedFileMetadata,
    Map<String, String> partitionValues,
    Long size)
    implements Action {
  public RemoveFile {
    Objects.requireNonNull(path, "path");
    partitionValues = AddFile.copyAllowingNullValues(partitionValues);
  }

  @Override
  public String kind() {
    return "remove";
  }
}
