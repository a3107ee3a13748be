package dev.tributary.table.log;

import dev.tributary.table.dv.DeletionVectorDescriptor;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code remove} action: a logical file (a data file with the deletion vector it had) stops
 * being part of the table and becomes a tombstone, which vacuum may delete once {@code
 * deletionTimestamp} is older than the retention period.
 *
 * @param path key relative to the table root, decoded
 * @param deletionTimestamp epoch milliseconds of the removal, or null if the writer omitted it
 * @param dataChange false when the rows live on in other files (compaction)
 * @param extendedFileMetadata true when partitionValues and size are present
 * @param partitionValues partition values of the removed file (may be empty)
 * @param size size of the removed file, or null if unknown
 * @param deletionVector the deletion vector of the removed logical file, or null
 * @param baseRowId row tracking field of the removed file, or null
 * @param defaultRowCommitVersion row tracking field of the removed file, or null
 */
public record RemoveFile(
    String path,
    Long deletionTimestamp,
    boolean dataChange,
    boolean extendedFileMetadata,
    Map<String, String> partitionValues,
    Long size,
    DeletionVectorDescriptor deletionVector,
    Long baseRowId,
    Long defaultRowCommitVersion)
    implements Action {
  public RemoveFile {
    Objects.requireNonNull(path, "path");
    partitionValues = AddFile.copyAllowingNullValues(partitionValues);
  }

  /** A removal of a file without deletion vector and without row tracking fields. */
  public RemoveFile(
      String path,
      Long deletionTimestamp,
      boolean dataChange,
      boolean extendedFileMetadata,
      Map<String, String> partitionValues,
      Long size) {
    this(
        path,
        deletionTimestamp,
        dataChange,
        extendedFileMetadata,
        partitionValues,
        size,
        null,
        null,
        null);
  }

  @Override
  public String kind() {
    return "remove";
  }

  /** The removed logical file's key, as {@link AddFile#logicalKey()}. */
  public String logicalKey() {
    return AddFile.logicalKey(path, deletionVector);
  }
}
