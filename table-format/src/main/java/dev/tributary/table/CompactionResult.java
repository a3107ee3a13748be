package dev.tributary.table;

/**
 * What a compaction did.
 *
 * @param tableVersion the version of the compaction commit, or the version read if nothing needed
 *     compacting ({@link #filesRemoved()} is then 0)
 * @param partitions partitions compacted
 * @param filesRemoved small files replaced
 * @param filesAdded files written in their place
 * @param bytesRemoved total size of the replaced files
 * @param bytesAdded total size of the new files
 * @param attempts plans made (more than one when a concurrent commit removed one of our inputs)
 */
public record CompactionResult(
    long tableVersion,
    int partitions,
    int filesRemoved,
    int filesAdded,
    long bytesRemoved,
    long bytesAdded,
    int attempts) {

  /** True if a compaction commit was made. */
  public boolean compacted() {
    return filesRemoved > 0;
  }
}
