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
 * @param route {@code route} and {@code max-routes}, or empty: one table at {@code path}; when
 *     present {@code path} ends with {@code /{route}} ({@link RouteSpec#PLACEHOLDER})
 */
public record DeltaSinkSpec(
    String path,
    List<String> partitionBy,
    Size targetFileSize,
    Compression compression,
    Optional<UpsertSpec> upsert,
    Optional<RouteSpec> route)
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
    Objects.requireNonNull(route, "route");
    if (route.isPresent() && !path.endsWith("/" + RouteSpec.PLACEHOLDER)) {
      throw new IllegalArgumentException(
          "a routed sink's path must end with /" + RouteSpec.PLACEHOLDER + ", got " + path);
    }
  }

  /** A sink that writes one table ({@code route} not declared). */
  public DeltaSinkSpec(
      String path,
      List<String> partitionBy,
      Size targetFileSize,
      Compression compression,
      Optional<UpsertSpec> upsert) {
    this(path, partitionBy, targetFileSize, compression, upsert, Optional.empty());
  }

  /** A sink that appends ({@code write: append}). */
  public DeltaSinkSpec(
      String path, List<String> partitionBy, Size targetFileSize, Compression compression) {
    this(path, partitionBy, targetFileSize, compression, Optional.empty());
  }

  /** This sink with {@code upsert} instead of its own write keys. */
  public DeltaSinkSpec withUpsert(Optional<UpsertSpec> upsert) {
    return new DeltaSinkSpec(path, partitionBy, targetFileSize, compression, upsert, route);
  }

  /**
   * The folder that holds the tables: the path without its {@code /{route}} segment for a routed
   * sink, else the table's path.
   */
  public String tablesFolder() {
    return route.isEmpty()
        ? path
        : path.substring(0, path.length() - RouteSpec.PLACEHOLDER.length() - 1);
  }

  /** The path of the table of route value {@code value} ({@code path} with it in place). */
  public String tablePath(String value) {
    return tablesFolder() + "/" + value;
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
