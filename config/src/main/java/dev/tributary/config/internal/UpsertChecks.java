package dev.tributary.config.internal;

import dev.tributary.config.Assignment;
import dev.tributary.config.ColumnType;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.UpsertSpec;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks of {@code write: upsert} that relate it to other parts: a stateless pipeline only, one
 * writer per table, key and sequence columns that exist at the top level, a sequence column that
 * orders; with {@code history: scd2}, a timestamp sequence column and no output column named like
 * the history columns. Columns whose type is only known once the service compiles the expressions
 * (derived columns) or reads a dimension table are checked there too ({@code UpsertRules} in the
 * service).
 */
final class UpsertChecks {

  /** The declared types a {@code sequence-by} column may have. */
  private static final Set<ColumnType> ORDERING =
      Set.of(
          ColumnType.Primitive.INT,
          ColumnType.Primitive.LONG,
          ColumnType.Primitive.TIMESTAMP,
          ColumnType.Primitive.DATE);

  /**
   * The columns {@code history: scd2} adds to the table (the names of {@code
   * HistoryMergeTransaction}'s, which this module cannot see).
   */
  private static final List<String> HISTORY_COLUMNS =
      List.of("_valid_from", "_valid_to", "_is_current");

  private final Problems problems;
  private final Draft draft;

  UpsertChecks(Problems problems, Draft draft) {
    this.problems = problems;
    this.draft = draft;
  }

  /**
   * @param input the query's input columns (schema and derived, with their declared type, null when
   *     not known yet), or null when broken or not declared (a Delta source)
   */
  void check(Map<String, ColumnType> input) {
    if (draft.sink() == null || draft.sink().upsert().isEmpty()) {
      return;
    }
    UpsertSpec upsert = draft.sink().upsert().get();
    boolean allColumns = draft.format() != null && draft.format().takesAllColumns();
    if (upsert.keyFromRecord() && !allColumns && !problems.brokenAt("format")) {
      problems.atKey("sink.delta.key", ColumnsAllMessages.keyRequired());
    }
    String stateful =
        problems.declared("aggregate")
            ? "aggregate"
            : problems.declared("deduplicate")
                ? "deduplicate"
                : problems.declared("watermark") ? "watermark" : null;
    if (stateful != null) {
      problems.atValue("sink.delta.write", Messages.upsertWithState(draft.id(), stateful));
      return;
    }
    if (problems.declared("output-mode")
        && draft.outputMode() != null
        && draft.outputMode() != OutputMode.APPEND) {
      problems.atValue("output-mode", Messages.upsertWithOutputMode(draft.outputMode().keyword()));
    }
    if (draft.source() instanceof KafkaSourceSpec kafka && kafka.assignment() == Assignment.GROUP) {
      problems.atValue("sink.delta.write", Messages.upsertInGroupMode(draft.id()));
    }
    if (draft.schemaEvolution() != null
        && !draft.schemaEvolution().equals(SchemaEvolutionSpec.DEFAULT)) {
      problems.atKey("schema-evolution", Messages.upsertWithEvolution());
    }
    boolean history = upsert.history() == UpsertSpec.History.SCD2;
    // a history merge closes versions by rewriting them; it has no deletion-vector form
    if (history && upsert.mergeStrategy() == UpsertSpec.MergeStrategy.DELETION_VECTORS) {
      problems.atValue("sink.delta.merge-strategy", Messages.historyWithDeletionVectors());
    }
    if (history && upsert.sequenceBy().isEmpty()) {
      problems.atValue("sink.delta.history", Messages.historyWithoutSequence());
    }
    Map<String, ColumnType> available = sinkColumns(input);
    if (available == null) {
      return;
    }
    if (history) {
      for (String taken : HISTORY_COLUMNS) {
        if (available.containsKey(taken)) {
          problems.atValue("sink.delta.history", Messages.historyColumnTaken(taken));
        }
      }
    }
    Set<String> seen = new HashSet<>();
    // with columns: all the key columns are writer-schema fields (or, without key, the record
    // key's): each table checks them when it is created
    List<String> key = allColumns ? List.of() : upsert.key();
    for (int i = 0; i < key.size(); i++) {
      String at = "sink.delta.key[" + i + "]";
      if (!seen.add(key.get(i))) {
        problems.atValue(at, Messages.duplicateColumn("sink.delta.key", key.get(i)));
      } else {
        column("key column", at, key.get(i), available);
      }
    }
    upsert
        .sequenceBy()
        .ifPresent(
            column -> {
              if (column("sequence-by column", "sink.delta.sequence-by", column, available)) {
                ColumnType type = available.get(column);
                if (type != null && !ORDERING.contains(type)) {
                  problems.atValue(
                      "sink.delta.sequence-by",
                      Messages.unorderableSequence(column, type.canonical()));
                } else if (history && type != null && type != ColumnType.Primitive.TIMESTAMP) {
                  problems.atValue(
                      "sink.delta.sequence-by",
                      Messages.historySequenceNotTimestamp(column, type.canonical()));
                }
              }
            });
  }

  /**
   * The columns the sink receives: the input columns, the Kafka columns, the columns joins pick;
   * null when they are only known at start (a Delta source, a join that adds its dimension's).
   */
  private Map<String, ColumnType> sinkColumns(Map<String, ColumnType> input) {
    if (input == null
        || draft.joins() == null
        || draft.joins().stream().anyMatch(j -> j.columns().isEmpty())) {
      return null;
    }
    Map<String, ColumnType> columns = new LinkedHashMap<>(input);
    columns.put("_kafka_topic", ColumnType.Primitive.STRING);
    columns.put("_kafka_partition", ColumnType.Primitive.INT);
    columns.put("_kafka_offset", ColumnType.Primitive.LONG);
    columns.put("_kafka_timestamp", ColumnType.Primitive.TIMESTAMP);
    draft
        .joins()
        .forEach(j -> j.columns().orElseThrow().forEach(c -> columns.putIfAbsent(c, null)));
    return columns;
  }

  /** Whether {@code column} is a top-level column rows carry; reports it otherwise. */
  private boolean column(
      String role, String path, String column, Map<String, ColumnType> available) {
    if (!available.containsKey(column)) {
      problems.atValue(
          path,
          Messages.unknownColumn(
              role,
              column,
              available.keySet(),
              Suggestions.nearest(column, available.keySet()).orElse(null)));
      return false;
    }
    if (column.contains(".")) {
      problems.atValue(path, Messages.nestedUpsertKey(role, column));
      return false;
    }
    return true;
  }
}
