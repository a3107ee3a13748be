package dev.tributary.table.data;

/**
 * How data files are written.
 *
 * @param targetFileSize roll to a new file once the current one reaches about this many bytes
 * @param codec Parquet compression codec
 */
public record DataWriteOptions(long targetFileSize, Codec codec) {
  public static final long DEFAULT_TARGET_FILE_SIZE = 128L * 1024 * 1024;

  public DataWriteOptions {
    if (targetFileSize < 1024) {
      throw new IllegalArgumentException("target file size must be >= 1 KB, was " + targetFileSize);
    }
  }

  public static DataWriteOptions defaults() {
    return new DataWriteOptions(DEFAULT_TARGET_FILE_SIZE, Codec.SNAPPY);
  }

  /** Compression codecs we write. */
  public enum Codec {
    SNAPPY,
    ZSTD,
    GZIP,
    UNCOMPRESSED
  }
}
