package dev.tributary.config;

import java.util.Locale;

/**
 * The Parquet compression codec of data files ({@code sink.delta.compression}; default {@link
 * #SNAPPY}).
 */
public enum Compression {
  /** Fast, moderate ratio; the Parquet default. */
  SNAPPY,
  /** Better ratio at similar speed. */
  ZSTD,
  /** Widely readable, slower. */
  GZIP,
  /** No compression. */
  NONE;

  /** Returns the name as written in files, e.g. {@code zstd}. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }
}
