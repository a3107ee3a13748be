package dev.tributary.table;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link MergeTransaction} matches and orders changes.
 *
 * @param keyColumns the columns whose values identify a row (none: the table holds one row)
 * @param sequenceColumn the column ordering the changes of a key (an integer, timestamp or date
 *     column), if any: a change whose value is below the table row's is ignored (ties apply the
 *     change, which comes later in the stream)
 * @param strategy how a {@link MergeTransaction} changes the files holding replaced or deleted rows
 */
public record MergeSpec(
    List<String> keyColumns, Optional<String> sequenceColumn, Strategy strategy) {
  /** Copies the key columns. */
  public MergeSpec {
    keyColumns = List.copyOf(keyColumns);
    Objects.requireNonNull(sequenceColumn, "sequenceColumn");
    Objects.requireNonNull(strategy, "strategy");
  }

  /** A copy-on-write merge by {@code keyColumns}, ordered by {@code sequenceColumn} if any. */
  public MergeSpec(List<String> keyColumns, Optional<String> sequenceColumn) {
    this(keyColumns, sequenceColumn, Strategy.COPY_ON_WRITE);
  }

  /** How a merge takes the replaced and deleted rows out of the files that hold them. */
  public enum Strategy {
    /**
     * Rewrite each such file without them (remove the file, add the copy): every reader reads the
     * result, and a batch costs the size of the files it touches.
     */
    COPY_ON_WRITE,
    /**
     * Mark them in deletion vectors (Delta's {@code deletionVectors} table feature): the file is
     * re-added with the union of its old and new vector, nothing is copied; readers must support
     * the feature (reader 3 / writer 7), and compaction later rewrites the files without the marked
     * rows.
     */
    DELETION_VECTORS
  }

  /** This spec with another strategy. */
  public MergeSpec with(Strategy newStrategy) {
    return new MergeSpec(keyColumns, sequenceColumn, newStrategy);
  }

  /** {@link #sequenceValue} of a null: no sequence value. */
  public static final long NO_SEQUENCE = Long.MIN_VALUE;

  /**
   * The order of a sequence column's value as one long: an integer as itself, a timestamp in
   * microseconds, a date in days; {@link #NO_SEQUENCE} for null. A batch's changes and the table's
   * rows are compared by it.
   *
   * @throws IllegalArgumentException for a value of another type
   */
  public static long sequenceValue(Object value) {
    if (value == null) {
      return NO_SEQUENCE;
    }
    if (value instanceof Number n) {
      return n.longValue();
    }
    if (value instanceof Instant t) {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }
    if (value instanceof LocalDate d) {
      return d.toEpochDay();
    }
    throw new IllegalArgumentException(
        "a sequence-by value must be an integer, a timestamp or a date, not " + value.getClass());
  }

  /** A merge by {@code keyColumns} whose last change per key wins, whatever the table holds. */
  public static MergeSpec byKey(List<String> keyColumns) {
    return new MergeSpec(keyColumns, Optional.empty());
  }
}
