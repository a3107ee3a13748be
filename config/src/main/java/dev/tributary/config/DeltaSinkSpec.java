package dev.tributary.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code sink.delta} section: the Delta table results are committed to.
 *
 * @param path the table location: {@code s3://bucket/prefix} or a local path
 * @param partitionBy the partition columns, possibly none
 * @param targetFileSize the size data files are cut at and compaction aims for (default 128MB)
 * @param compression the Parquet codec (default snappy)
 * @param upsert {@code write: upsert} with its keys, or empty: batches append ({@code write:
 *     append}, the default)
 */
public record DeltaSinkSpec(
    String path,
    List<String> partitionBy,
    Size targetFileSize,
    Compression compression,
    Optional<UpsertSpec> upsert)
    implements SinkSpec {

  /** The default of {@code target-file-size}. */
  public static final Size DEFAULT_TARGET_FILE_SIZE = Size.ofMegabytes(128);

  /** Copies the partition columns and checks the path is not blank. */
  public DeltaSinkSpec {
    if (Objects.requireNonNull(path, "path").isBlank()) {
      throw new IllegalArgumentException("a sink path cannot be empty");
    }
    partitionBy = List.copyOf(partitionBy);
    Objects.requireNonNull(targetFileSize, "targetFileSize");
    Objects.requireNonNull(compression, "compression");
    Objects.requireNonNull(upsert, "upsert");
  }

  /** A sink that appends ({@code write: append}). */
  public DeltaSinkSpec(
      String path, List<String> partitionBy, Size targetFileSize, Compression compression) {
    this(path, partitionBy, targetFileSize, compression, Optional.empty());
  }

  @Override
  public String keyword() {
    return "delta";
  }

  @Override
  public String location() {
    return path;
  }
}
