package dev.tributary.table;

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
 */
public record MergeSpec(List<String> keyColumns, Optional<String> sequenceColumn) {
  /** Copies the key columns. */
  public MergeSpec {
    keyColumns = List.copyOf(keyColumns);
    Objects.requireNonNull(sequenceColumn, "sequenceColumn");
  }

  /** A merge by {@code keyColumns} whose last change per key wins, whatever the table holds. */
  public static MergeSpec byKey(List<String> keyColumns) {
    return new MergeSpec(keyColumns, Optional.empty());
  }
}
