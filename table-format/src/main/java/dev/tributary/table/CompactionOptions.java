package dev.tributary.table;

/**
 * What {@link DeltaTable#compact} rewrites.
 *
 * @param minFiles a partition is compacted only if it has at least this many small files (>= 2)
 * @param targetFileSize files smaller than this are "small"; outputs are about this size
 */
public record CompactionOptions(int minFiles, long targetFileSize) {
  public CompactionOptions {
    if (minFiles < 2) {
      throw new IllegalArgumentException("minFiles must be >= 2, was " + minFiles);
    }
    if (targetFileSize < 1024) {
      throw new IllegalArgumentException("targetFileSize must be >= 1 KB, was " + targetFileSize);
    }
  }

  /** At least 5 small files per partition, 128 MB targets. */
  public static CompactionOptions defaults() {
    return new CompactionOptions(5, 128L * 1024 * 1024);
  }
}
