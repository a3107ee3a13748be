package dev.tributary.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code sink.delta.write: upsert} and its keys: each batch's rows are merged into the table by
 * {@code key}, so the table holds one current row per key (docs/PIPELINE_REFERENCE.md, "Upsert").
 *
 * @param key the key columns; a row whose key has a null is quarantined; empty: the fields of each
 *     record key's writer schema ({@code columns: all} only, {@link #keyFromRecord})
 * @param sequenceBy the column ordering the changes of one key (the highest wins, ties by Kafka
 *     offset; a change older than the table's row is ignored and counted), if declared
 * @param deleteWhen the SQL predicate over the output row whose matching rows delete their key, if
 *     declared (or defaulted by {@code envelope: debezium})
 * @param mergeStrategy how the files holding changed keys are changed
 * @param history one current row per key, or every version of it ({@code scd2})
 */
public record UpsertSpec(
    List<String> key,
    Optional<String> sequenceBy,
    Optional<String> deleteWhen,
    MergeStrategy mergeStrategy,
    History history) {

  /**
   * Copies the key. An empty key means "each table's key is its record key's fields", which only
   * {@code columns: all} accepts (the validation refuses it otherwise).
   */
  public UpsertSpec {
    key = List.copyOf(key);
    Objects.requireNonNull(sequenceBy, "sequenceBy");
    Objects.requireNonNull(deleteWhen, "deleteWhen");
    Objects.requireNonNull(mergeStrategy, "mergeStrategy");
    Objects.requireNonNull(history, "history");
  }

  /** Whether each table's key is its record key's fields ({@code key} not declared). */
  public boolean keyFromRecord() {
    return key.isEmpty();
  }

  /** {@code merge-strategy}: how a batch changes the files that hold its keys. */
  public enum MergeStrategy {
    /** Rewrite each file holding a changed key without its old rows: every reader reads it. */
    COPY_ON_WRITE,
    /** Mark replaced rows in deletion-vector files and append the new versions. */
    DELETION_VECTORS;

    /** The name as written in files, e.g. {@code copy-on-write}. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** {@code history}: what the table keeps of a key. */
  public enum History {
    /** One current row per key. */
    NONE,
    /** Every version of a key, with {@code _valid_from}, {@code _valid_to}, {@code _is_current}. */
    SCD2;

    /** The name as written in files, e.g. {@code scd2}. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
