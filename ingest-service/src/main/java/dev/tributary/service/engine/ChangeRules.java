package dev.tributary.service.engine;

import dev.tributary.service.expr.CompiledPredicate;
import dev.tributary.table.types.StructType;
import java.util.List;
import java.util.Objects;

/**
 * What a sink row means to a table that merges by key ({@code write: upsert}, docs/DESIGN.md
 * "Upsert"): which rows cannot be changes (a null in a key column, or in the sequence column), and
 * which rows delete their key ({@code delete-when}). The stateless processor applies them to every
 * row before it reaches the sink: a row that is not a change is quarantined, a deleting row goes to
 * {@link BatchOutputs#delete}. Immutable and thread-safe.
 *
 * @param keyColumns the key columns' names, in key order
 * @param keys their positions in the sink row
 * @param sequenceColumn the {@code sequence-by} column's name, or null
 * @param sequence its position in the sink row, or -1
 * @param deleteWhen the {@code delete-when} predicate over the sink row, or null
 */
public record ChangeRules(
    List<String> keyColumns,
    int[] keys,
    String sequenceColumn,
    int sequence,
    CompiledPredicate deleteWhen) {
  public ChangeRules {
    keyColumns = List.copyOf(keyColumns);
    keys = keys.clone();
  }

  /**
   * The rules of {@code keyColumns}, {@code sequenceColumn} (may be null) and {@code deleteWhen}
   * (may be null) over rows of {@code schema}.
   *
   * @throws IllegalArgumentException if a column is not in the schema
   */
  public static ChangeRules of(
      StructType schema,
      List<String> keyColumns,
      String sequenceColumn,
      CompiledPredicate deleteWhen) {
    int[] keys = new int[keyColumns.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = indexOf(schema, keyColumns.get(i));
    }
    return new ChangeRules(
        keyColumns,
        keys,
        sequenceColumn,
        sequenceColumn == null ? -1 : indexOf(schema, sequenceColumn),
        deleteWhen);
  }

  private static int indexOf(StructType schema, String column) {
    int i = schema.indexOf(Objects.requireNonNull(column, "column"));
    if (i < 0) {
      throw new IllegalArgumentException(
          "column '"
              + column
              + "' is not an output column; output columns are "
              + schema.fieldNames());
    }
    return i;
  }

  /**
   * Why {@code row} cannot be a change (a key column or the sequence column is null), or null when
   * it can.
   */
  public String problem(Object[] row) {
    for (int i = 0; i < keys.length; i++) {
      if (row[keys[i]] == null) {
        return "key column '"
            + keyColumns.get(i)
            + "' is null; a row without its whole key cannot be upserted";
      }
    }
    if (sequence >= 0 && row[sequence] == null) {
      return "sequence-by column '"
          + sequenceColumn
          + "' is null; the change cannot be ordered against the other changes of its key";
    }
    return null;
  }

  /**
   * Why the row of a tombstone (its key's columns, no sequence value) cannot delete its key, or
   * null when it can.
   */
  public String tombstoneProblem(Object[] row) {
    for (int i = 0; i < keys.length; i++) {
      if (row[keys[i]] == null) {
        return "record value is null (a tombstone) but its key gives no value for key column '"
            + keyColumns.get(i)
            + "'; the record key must hold every key column to delete it";
      }
    }
    return null;
  }

  /** Whether {@code row} deletes its key ({@code delete-when} holds for it). */
  public boolean deletes(Object[] row) {
    return deleteWhen != null && deleteWhen.test(row);
  }
}
