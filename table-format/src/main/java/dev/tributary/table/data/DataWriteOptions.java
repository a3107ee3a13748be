package dev.tributary.table.data;

import java.util.Objects;

/**
 * How data files are written.
 *
 * @param targetFileSize roll to a new file once the current one reaches about this many bytes,
 *     counting bytes already written plus Parquet's estimate of what it buffers (uncompressed
 *     pages), so finished files tend to come out somewhat below the target. Row groups are at most
 *     64 MB; each open partition buffers up to one row group in memory.
 * @param codec Parquet compression codec; it also names the file ({@code .snappy.parquet}, {@code
 *     .zstd.parquet}, {@code .gz.parquet}, plain {@code .parquet})
 */
public record DataWriteOptions(long targetFileSize, Codec codec) {
  public static final long DEFAULT_TARGET_FILE_SIZE = 128L * 1024 * 1024;

  public DataWriteOptions {
    if (targetFileSize < 1024) {
      throw new IllegalArgumentException("target file size must be >= 1 KB, was " + targetFileSize);
    }
    Objects.requireNonNull(codec, "codec");
  }

  /** 128 MB files, Snappy: what Spark and Delta use by default. */
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
