package dev.tributary.config.internal;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.Assignment;
import dev.tributary.config.ColumnSpec;
import dev.tributary.config.ColumnType;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.DeltaTableSpec;
import dev.tributary.config.JoinSpec;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.Measure;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.StartingOffsets;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.StreamJoinType;
import dev.tributary.config.TransformStep;
import dev.tributary.config.WatermarkSpec;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks that relate parts of a pipeline: referenced columns exist and have the right type, the
 * output mode fits the query, locations are disjoint (see {@link LocationRules}). A check runs only
 * when the parts it needs were converted without error, so one mistake is not reported many times.
 */
final class SpecValidator {

  private final Problems problems;
  private final Draft draft;

  SpecValidator(Problems problems, Draft draft) {
    this.problems = problems;
    this.draft = draft;
  }

  void validate() {
    Map<String, ColumnType> columns = inputColumns();
    if (columns != null) {
      checkJoins(columns);
      Map<String, ColumnType> joined = joinedColumns(columns);
      checkWatermark(joined);
      checkDeduplicate(joined);
      checkAggregate(joined);
      checkPartitionBy(columns);
      checkKeyedBy(columns);
    }
    new StreamJoinChecks(problems, draft).check(leftColumns(columns));
    new UpsertChecks(problems, draft).check(columns);
    new RouteChecks(problems, draft).check();
    new ColumnsAllChecks(problems, draft).check();
    checkOutputMode();
    checkAssignment();
    checkLocations();
    checkSchemaEvolution();
    new SinkRules(problems, draft).check();
  }

  /**
   * add-columns only where a new input column reaches the table as it is; rescue's column name is
   * reserved.
   */
  private void checkSchemaEvolution() {
    SchemaEvolutionSpec evolution = draft.schemaEvolution();
    if (evolution == null || evolution.equals(SchemaEvolutionSpec.DEFAULT)) {
      return;
    }
    if (draft.source() instanceof DeltaSourceSpec) {
      problems.atKey("schema-evolution", Messages.evolutionNeedsRecords());
      return;
    }
    if (draft.format() != null && draft.format().envelope().isDebezium()) {
      problems.atKey("schema-evolution", Messages.envelopeWithEvolution());
      return;
    }
    String stateful =
        problems.declared("aggregate")
            ? "aggregate"
            : problems.declared("deduplicate") ? "deduplicate" : null;
    if (stateful != null) {
      problems.atKey("schema-evolution", Messages.evolutionWithState(stateful));
      return;
    }
    if (evolution.rescue()) {
      String schemaKey =
          "format." + (draft.format() == null ? "json" : draft.format().keyword()) + ".schema";
      if (draft.format() != null
          && draft.format().columns().stream()
              .anyMatch(c -> c.name().equals(SchemaEvolutionSpec.RESCUED_COLUMN))) {
        problems.atKey(
            schemaKey + "." + SchemaEvolutionSpec.RESCUED_COLUMN,
            Messages.rescuedColumnTaken("column in " + schemaKey));
      }
      if (draft.transforms() != null
          && draft.transforms().stream()
              .anyMatch(
                  t ->
                      t instanceof TransformStep.Derive d
                          && d.columns().containsKey(SchemaEvolutionSpec.RESCUED_COLUMN))) {
        problems.atKey("transform", Messages.rescuedColumnTaken("derived column"));
      }
    }
  }

  /**
   * {@code source.kafka.keyed-by} names columns of the parsed value (or derived ones) and is a
   * claim only a stateful group pipeline uses (docs/PIPELINE_REFERENCE.md, "keyed-by"): declared
   * anywhere else it would be checked nowhere, so it is refused.
   */
  private void checkKeyedBy(Map<String, ColumnType> columns) {
    if (!(draft.source() instanceof KafkaSourceSpec kafka) || kafka.keyedBy().isEmpty()) {
      return;
    }
    String path = "source.kafka.keyed-by";
    if (kafka.assignment() != Assignment.GROUP) {
      problems.atValue(
          path, Messages.keyedByNeedsGroupStateful(draft.id(), "the source is read exclusively"));
      return;
    }
    if (!problems.declared("deduplicate") && !problems.declared("aggregate")) {
      problems.atValue(
          path,
          Messages.keyedByNeedsGroupStateful(
              draft.id(), "the pipeline has no deduplicate or aggregate"));
      return;
    }
    for (String column : kafka.keyedBy()) {
      checkExists("keyed-by column", path, column, columns.keySet());
    }
  }

  /**
   * Consumer-group mode shares partitions between instances. A stateful query runs there through a
   * repartition topic (docs/DESIGN.md, "Stateful pipelines in group mode"): append output only, one
   * watermark the partitions agree on.
   */
  private void checkAssignment() {
    if (!(draft.source() instanceof KafkaSourceSpec kafka)
        || kafka.assignment() != Assignment.GROUP) {
      return;
    }
    if (!problems.declared("deduplicate") && !problems.declared("aggregate")) {
      return;
    }
    if (draft.outputMode() != null && draft.outputMode() != OutputMode.APPEND) {
      problems.atValue(
          "output-mode",
          Messages.groupAssignmentNeedsAppend(draft.id(), draft.outputMode().keyword()));
    }
    if (kafka.startingOffsets() instanceof StartingOffsets.FromTable) {
      problems.atValue(
          "source.kafka.starting-offsets",
          Messages.groupStatefulStartsFromGroupOffsets(draft.id()));
    }
    if (draft.watermark() != null
        && draft.watermark().policy() == WatermarkSpec.Policy.PER_PARTITION) {
      problems.atValue(
          "watermark.policy", Messages.groupAssignmentNeedsGlobalWatermark(draft.id()));
    }
  }

  /**
   * The columns the query can reference: schema columns with their types, then derived columns with
   * no known type (null); null when the schema or transforms are broken.
   */
  private Map<String, ColumnType> inputColumns() {
    if (draft.format() == null || draft.transforms() == null) {
      return null;
    }
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    for (ColumnSpec column : draft.format().columns()) {
      columns.put(column.name(), column.type());
    }
    for (TransformStep step : draft.transforms()) {
      if (step instanceof TransformStep.Derive derive) {
        // A derived column's type is only known once the service compiles its expression.
        derive.columns().keySet().forEach(name -> columns.put(name, null));
      }
    }
    return columns;
  }

  /**
   * The keys of each join are stream columns (or columns an earlier join added); the columns a join
   * picks are neither keys nor names the stream already has. Columns a join adds without {@code
   * columns} are known only once the service reads the dimension, which checks them then.
   */
  private void checkJoins(Map<String, ColumnType> columns) {
    if (draft.joins() == null) {
      return;
    }
    Map<String, String> stream = new LinkedHashMap<>();
    columns.keySet().forEach(c -> stream.put(c, "the stream"));
    PipelineSpec.KAFKA_METADATA_COLUMNS.forEach(c -> stream.put(c, "the stream"));
    for (int i = 0; i < draft.joins().size(); i++) {
      JoinSpec join = draft.joins().get(i);
      String path = "join[" + i + "]";
      checkColumnList("join key", path + ".on", join.on(), stream.keySet());
      List<String> picked = join.columns().orElse(List.of());
      Set<String> seen = new HashSet<>();
      for (int k = 0; k < picked.size(); k++) {
        String column = picked.get(k);
        String at = path + ".columns[" + k + "]";
        if (!seen.add(column)) {
          problems.atValue(at, Messages.duplicateColumn(path + ".columns", column));
        } else if (join.on().contains(column)) {
          problems.atValue(at, Messages.joinPicksKey(column));
        } else if (stream.containsKey(column)) {
          problems.atValue(at, Messages.joinColumnClash(column, stream.get(column)));
        }
      }
      picked.forEach(c -> stream.putIfAbsent(c, path));
    }
  }

  /**
   * The columns the watermark, deduplication and aggregation can reference: the stream's, then the
   * columns each join picks, with no known type (null: a dimension's types are read at start), then
   * a stream join's second input's columns with its prefix and their types.
   */
  private Map<String, ColumnType> joinedColumns(Map<String, ColumnType> columns) {
    if ((draft.joins() == null || draft.joins().isEmpty()) && !hasStreamJoin()) {
      return columns;
    }
    Map<String, ColumnType> joined = new LinkedHashMap<>(columns);
    if (draft.joins() != null) {
      draft
          .joins()
          .forEach(
              j ->
                  j.columns()
                      .ifPresent(picked -> picked.forEach(c -> joined.putIfAbsent(c, null))));
    }
    if (hasStreamJoin()) {
      StreamJoinSpec join = draft.streamJoins().get(0);
      if (join.type() != StreamJoinType.LEFT_SEMI) {
        join.stream()
            .format()
            .ifPresent(
                f ->
                    f.columns()
                        .forEach(
                            c -> joined.putIfAbsent(join.stream().prefixed(c.name()), c.type())));
      }
    }
    return joined;
  }

  private boolean hasStreamJoin() {
    return draft.streamJoins() != null && !draft.streamJoins().isEmpty();
  }

  /**
   * The left side of a stream join: the main input's columns after its stream-static joins, or null
   * when they are only known at start (a join adding every dimension column) or broken.
   */
  private Map<String, ColumnType> leftColumns(Map<String, ColumnType> columns) {
    if (columns == null || draft.joins() == null || joinAddsUnknownColumns()) {
      return null;
    }
    Map<String, ColumnType> left = new LinkedHashMap<>(columns);
    PipelineSpec.KAFKA_METADATA_COLUMNS.forEach(c -> left.putIfAbsent(c, null));
    draft.joins().forEach(j -> j.columns().orElseThrow().forEach(c -> left.putIfAbsent(c, null)));
    return left;
  }

  /**
   * Whether a join adds every dimension column (no {@code columns}): a column the stateful part
   * names may then be one of those, known only once the service reads the table, which checks it
   * then, naming the column.
   */
  private boolean joinAddsUnknownColumns() {
    return (draft.joins() != null && draft.joins().stream().anyMatch(j -> j.columns().isEmpty()))
        || (hasStreamJoin() && draft.streamJoins().get(0).stream().format().isEmpty());
  }

  private void checkWatermark(Map<String, ColumnType> columns) {
    if (draft.watermark() != null) {
      checkTimestamp("watermark column", "watermark.column", draft.watermark().column(), columns);
    }
  }

  private void checkDeduplicate(Map<String, ColumnType> columns) {
    if (draft.deduplicate() == null) {
      return;
    }
    checkColumnList(
        "deduplicate key", "deduplicate.keys", draft.deduplicate().keys(), columns.keySet(), true);
    if (draft.deduplicate().withinWatermark() && !problems.declared("watermark")) {
      problems.atValue("deduplicate.within-watermark", Messages.withinWatermarkNeedsWatermark());
    }
  }

  private void checkAggregate(Map<String, ColumnType> columns) {
    AggregateSpec aggregate = draft.aggregate();
    if (aggregate == null) {
      return;
    }
    aggregate
        .window()
        .ifPresent(
            w -> checkTimestamp("window column", "aggregate.window.column", w.column(), columns));
    checkColumnList(
        "group-by column", "aggregate.group-by", aggregate.groupBy(), columns.keySet(), true);
    Set<String> taken =
        new HashSet<>(
            aggregate.running()
                ? List.of()
                : List.of(AggregateSpec.WINDOW_START, AggregateSpec.WINDOW_END));
    taken.addAll(aggregate.groupBy());
    for (Map.Entry<String, Measure> entry : aggregate.measures().entrySet()) {
      String path = "aggregate.measures." + entry.getKey();
      if (taken.contains(entry.getKey())) {
        problems.atKey(path, Messages.measureClash(entry.getKey()));
      }
      entry
          .getValue()
          .input()
          .ifPresent(input -> checkExists("measure input", path, input, columns.keySet(), true));
    }
  }

  private void checkPartitionBy(Map<String, ColumnType> columns) {
    if (draft.sink() == null) {
      return;
    }
    Set<String> available;
    if (draft.aggregate() != null) {
      available = new LinkedHashSet<>(draft.aggregate().outputColumns());
    } else if (problems.declared("aggregate")) {
      return; // a broken aggregation: its output columns are unknown
    } else if (draft.joins() == null || draft.streamJoins() == null || joinAddsUnknownColumns()) {
      return; // a join adds columns known only once its dimension is read: the service checks then
    } else {
      available = new LinkedHashSet<>(columns.keySet());
      available.addAll(PipelineSpec.KAFKA_METADATA_COLUMNS);
      available.addAll(joinedColumns(columns).keySet());
    }
    checkColumnList(
        "partition column", "sink.delta.partition-by", draft.sink().partitionBy(), available);
  }

  private void checkOutputMode() {
    OutputMode mode = draft.outputMode();
    boolean aggregate = problems.declared("aggregate");
    if (mode == null || problems.brokenAt("output-mode")) {
      return;
    }
    String at = problems.declared("output-mode") ? "output-mode" : "aggregate";
    if (mode == OutputMode.APPEND && draft.aggregate() != null && draft.aggregate().running()) {
      problems.atValue(
          at,
          hasStreamJoin()
              ? StreamJoinMessages.runningAggregateAfterJoin(draft.streamJoinPath(0))
              : Messages.appendWithRunningAggregate());
    } else if (mode == OutputMode.APPEND && draft.aggregate() != null && hasStreamJoin()) {
      // D2: after the join both sides' watermark columns are event-time columns.
      List<String> times = StreamJoinChecks.eventTimeColumns(draft);
      String window = draft.aggregate().window().get().column();
      if (times.isEmpty()) {
        problems.atValue(at, Messages.appendNeedsWatermark());
      } else if (!times.contains(window) && !problems.brokenAt("watermark")) {
        problems.atValue(
            "aggregate.window.column",
            StreamJoinMessages.windowColumn(draft.streamJoinPath(0), window, times));
      }
    } else if (mode == OutputMode.APPEND && draft.aggregate() != null) {
      if (!problems.declared("watermark")) {
        problems.atValue(at, Messages.appendNeedsWatermark());
      } else if (draft.watermark() != null
          && !draft.watermark().column().equals(draft.aggregate().window().get().column())) {
        problems.atValue(
            "aggregate.window.column",
            Messages.appendWatermarkColumn(
                draft.aggregate().window().get().column(), draft.watermark().column()));
      }
    }
    if (mode == OutputMode.COMPLETE && !aggregate) {
      problems.atValue("output-mode", Messages.completeNeedsAggregate());
    } else if (mode != OutputMode.APPEND && !aggregate && problems.declared("deduplicate")) {
      problems.atValue("output-mode", Messages.modeWithDeduplicateOnly(mode.keyword()));
    }
  }

  private void checkLocations() {
    Map<String, String> locations = new LinkedHashMap<>();
    if (draft.sink() != null) {
      locations.put("sink.delta.path", draft.sink().tablesFolder());
    }
    if (draft.sinks() != null && (draft.sink() != null || draft.checkpoint() != null)) {
      DeltaTableSpec quarantine =
          draft.quarantine() != null
              ? draft.quarantine()
              : problems.declared("quarantine.delta")
                  ? null
                  : DeltaTableSpec.quarantineFor(draft.sinks(), draft.checkpoint());
      if (quarantine != null) {
        locations.put("quarantine.delta.path", quarantine.path());
      }
    }
    if (draft.lateEvents() != null) {
      locations.put("late-events.delta.path", draft.lateEvents().path());
    }
    if (draft.checkpoint() != null) {
      locations.put("checkpoint", draft.checkpoint());
    }
    List<LocationRules.Declared> declared = LocationRules.declared(locations, Path.of(""));
    for (LocationRules.Conflict conflict : LocationRules.conflicts(declared)) {
      problems.atValue(conflict.reported().key(), LocationRules.message(conflict));
    }
    if (draft.source() instanceof DeltaSourceSpec delta) {
      // A pipeline reading what it writes would read each batch's output again in the next batch.
      List<LocationRules.Declared> source =
          LocationRules.declared(Map.of("source.delta.path", delta.path()), Path.of(""));
      for (LocationRules.Declared own : declared) {
        if (!source.isEmpty() && source.get(0).location().overlaps(own.location())) {
          problems.atValue(
              "source.delta.path",
              Messages.sourceOverlapsOwnLocation(delta.path(), own.key(), own.text()));
          break;
        }
      }
    }
  }

  /** An event-time column of the stateful part (which a join may add at start). */
  private void checkTimestamp(
      String role, String path, String column, Map<String, ColumnType> columns) {
    if (checkExists(role, path, column, columns.keySet(), true)) {
      ColumnType type = columns.get(column);
      if (type != null && !type.isTimestamp()) {
        problems.atValue(path, Messages.notTimestamp(role, column, type.canonical()));
      }
    }
  }

  private void checkColumnList(
      String role, String path, List<String> names, Set<String> available) {
    checkColumnList(role, path, names, available, false);
  }

  /**
   * @param query true for a column of the stateful part, which a join may add at start
   */
  private void checkColumnList(
      String role, String path, List<String> names, Set<String> available, boolean query) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (!seen.add(name)) {
        problems.atValue(path + "[" + i + "]", Messages.duplicateColumn(path, name));
      } else {
        checkExists(role, path + "[" + i + "]", name, available, query);
      }
    }
  }

  private boolean checkExists(String role, String path, String column, Set<String> available) {
    return checkExists(role, path, column, available, false);
  }

  /**
   * @param query true for a column of the stateful part: one a join without {@code columns} may add
   *     is left to the check at start (returns false: its type is not known either)
   */
  private boolean checkExists(
      String role, String path, String column, Set<String> available, boolean query) {
    if (available.contains(column)) {
      return true;
    }
    if (query && joinAddsUnknownColumns()) {
      return false;
    }
    problems.atValue(
        path,
        Messages.unknownColumn(
            role, column, available, Suggestions.nearest(column, available).orElse(null)));
    return false;
  }
}
