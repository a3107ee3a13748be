package dev.tributary.service.upsert;

import dev.tributary.config.UpsertSpec;
import dev.tributary.service.engine.ChangeRules;
import dev.tributary.service.expr.CompiledPredicate;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.table.HistoryMergeTransaction;
import dev.tributary.table.MergeSpec;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Compiles {@code write: upsert} against the sink's columns: the key and sequence columns exist at
 * the top level with types that work (a sequence column orders: integer, long, timestamp, date),
 * and {@code delete-when} is a boolean expression over the sink row; with {@code history: scd2},
 * the sequence column is a timestamp and no column takes a history column's name. The declaration's
 * reader checks what it can see without compiling (docs/PIPELINE_REFERENCE.md, "Upsert"); this sees
 * the derived columns' types and the joins' columns.
 */
public final class UpsertRules {
  private static final Set<DataType> ORDERING =
      Set.of(
          PrimitiveType.INTEGER, PrimitiveType.LONG, PrimitiveType.TIMESTAMP, PrimitiveType.DATE);

  private UpsertRules() {}

  /**
   * The rules of {@code upsert} over rows of {@code output}, or empty with the problems added to
   * {@code problems} (each naming its key and the output columns).
   */
  public static Optional<ChangeRules> compile(
      UpsertSpec upsert, StructType output, List<String> problems) {
    int before = problems.size();
    for (String key : upsert.key()) {
      column(output, "sink.delta.key", "key column", key, problems)
          .filter(f -> f.type() instanceof StructType)
          .ifPresent(
              f ->
                  problems.add(
                      "sink.delta.key: key column '"
                          + key
                          + "' is a struct; a key column must hold a single value (derive one from"
                          + " its fields)"));
    }
    upsert
        .sequenceBy()
        .flatMap(s -> column(output, "sink.delta.sequence-by", "sequence-by column", s, problems))
        .filter(f -> !ORDERING.contains(f.type()))
        .ifPresent(
            f ->
                problems.add(
                    "sink.delta.sequence-by: sequence-by column '"
                        + f.name()
                        + "' is a "
                        + f.type().deltaName()
                        + ", which cannot order the changes of a key; use an int, long, timestamp"
                        + " or date column (derive one, e.g. derive: { version: \"CAST(v AS"
                        + " long)\" })"));
    if (upsert.history() == UpsertSpec.History.SCD2) {
      history(upsert, output, problems);
    }
    CompiledPredicate deleteWhen = null;
    if (upsert.deleteWhen().isPresent()) {
      try {
        deleteWhen = ExpressionCompiler.compilePredicate(upsert.deleteWhen().get(), output);
      } catch (ExpressionException e) {
        problems.add(
            "sink.delta.delete-when: "
                + e.getMessage()
                + " (the predicate sees the sink's columns: "
                + String.join(", ", output.fieldNames())
                + ")");
      }
    }
    if (problems.size() > before) {
      return Optional.empty();
    }
    return Optional.of(
        ChangeRules.of(output, upsert.key(), upsert.sequenceBy().orElse(null), deleteWhen));
  }

  /**
   * The checks of {@code history: scd2} on the output: a timestamp sequence column (each version's
   * start), and no output column with a history column's name. The declaration's reader checks the
   * same where it knows the types; this sees derived columns and a Delta source's.
   */
  private static void history(UpsertSpec upsert, StructType output, List<String> problems) {
    if (upsert.sequenceBy().isEmpty()) {
      problems.add(
          "sink.delta.history: history: scd2 needs sequence-by naming a timestamp column (each"
              + " version's _valid_from); add e.g. sequence-by: _kafka_timestamp");
    }
    upsert
        .sequenceBy()
        .flatMap(output::field)
        .filter(f -> ORDERING.contains(f.type()) && f.type() != PrimitiveType.TIMESTAMP)
        .ifPresent(
            f ->
                problems.add(
                    "sink.delta.sequence-by: sequence-by column '"
                        + f.name()
                        + "' is a "
                        + f.type().deltaName()
                        + ", but history: scd2 takes each version's _valid_from and _valid_to"
                        + " from it, which are timestamps; use a timestamp column (e.g."
                        + " _kafka_timestamp), or derive one"));
    for (String taken : HistoryMergeTransaction.HISTORY_COLUMNS) {
      if (output.indexOf(taken) >= 0) {
        problems.add(
            "sink.delta.history: history: scd2 adds the column '"
                + taken
                + "', but the output already has a column of that name; rename it, or remove"
                + " history: scd2");
      }
    }
  }

  /** How the table merges: by the key, ordered by the sequence column, with the strategy. */
  public static MergeSpec mergeSpec(UpsertSpec upsert) {
    return new MergeSpec(
        upsert.key(),
        upsert.sequenceBy(),
        upsert.mergeStrategy() == UpsertSpec.MergeStrategy.DELETION_VECTORS
            ? MergeSpec.Strategy.DELETION_VECTORS
            : MergeSpec.Strategy.COPY_ON_WRITE);
  }

  private static Optional<StructField> column(
      StructType output, String at, String role, String name, List<String> problems) {
    Optional<StructField> field = output.field(name);
    if (field.isEmpty()) {
      problems.add(
          at
              + ": "
              + role
              + " '"
              + name
              + "' is not an output column; output columns are "
              + output.fieldNames());
    }
    return field;
  }
}
