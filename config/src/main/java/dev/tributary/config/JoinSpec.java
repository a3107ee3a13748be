package dev.tributary.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code join} entry: a stream-static equi-join of every stream row with a Delta dimension
 * table, applied after {@code transform} and before the watermark and stateful operators. The
 * output is the stream's columns, then the dimension's columns other than the {@code on} keys, in
 * the dimension's order ({@link #columns} picks them; by default every dimension column except the
 * keys and the dimension's own {@code _kafka_*} columns). A stream row matching several dimension
 * rows gives one output row per match, as in SQL; a null key never matches.
 *
 * @param path the dimension table location: {@code s3://bucket/prefix} or a local path
 * @param storage explicit S3 settings of the dimension table, if declared (else the pipeline's
 *     {@code storage} section, else the AWS defaults)
 * @param on the key columns, named alike in the stream and the dimension; never empty
 * @param type inner (default) or left
 * @param maxSize the largest dimension accepted, measured on its data files (default {@link
 *     #DEFAULT_MAX_SIZE}); a larger snapshot is refused before it is loaded
 * @param columns the dimension columns to add, if declared; else all but the keys
 */
public record JoinSpec(
    String path,
    Optional<StorageSpec> storage,
    List<String> on,
    JoinType type,
    Size maxSize,
    Optional<List<String>> columns) {

  /**
   * The default of {@code max-size}. Measured on Parquet files, which are compressed: in memory,
   * the rows of the dimension take several times this size.
   */
  public static final Size DEFAULT_MAX_SIZE = Size.ofMegabytes(64);

  /** Copies the lists and checks that the path and keys are given. */
  public JoinSpec {
    if (Objects.requireNonNull(path, "path").isBlank()) {
      throw new IllegalArgumentException("a dimension table path cannot be empty");
    }
    Objects.requireNonNull(storage, "storage");
    on = List.copyOf(on);
    if (on.isEmpty()) {
      throw new IllegalArgumentException("a join needs at least one key column");
    }
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(maxSize, "maxSize");
    columns = Objects.requireNonNull(columns, "columns").map(List::copyOf);
  }

  /** Renders the join for the plan and messages: type, path, keys and picked columns. */
  public String canonical() {
    return type.keyword()
        + " join "
        + path
        + " on "
        + on
        + columns.map(c -> " columns " + c).orElse("");
  }
}
