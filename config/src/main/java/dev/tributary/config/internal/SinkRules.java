package dev.tributary.config.internal;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.Assignment;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.SinkSpec;
import dev.tributary.config.StartingOffsets;
import dev.tributary.config.TransformStep;
import dev.tributary.config.TriggerSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules that relate the sinks and the trigger to the rest of a pipeline: combinations that
 * cannot work are refused with the reason (a JDBC sink in consumer-group mode, a continuous trigger
 * on a stateful pipeline, …). Runs after the parts were read, like {@link SpecValidator}.
 */
final class SinkRules {
  private final Problems problems;
  private final Draft draft;

  SinkRules(Problems problems, Draft draft) {
    this.problems = problems;
    this.draft = draft;
  }

  /**
   * The key an upsert of an aggregation's rows matches by in update mode: the window and the
   * group-by columns (only the group-by columns for a running aggregation).
   */
  static List<String> aggregateKey(AggregateSpec aggregate) {
    List<String> key = new ArrayList<>();
    if (!aggregate.running()) {
      key.add(AggregateSpec.WINDOW_START);
      key.add(AggregateSpec.WINDOW_END);
    }
    key.addAll(aggregate.groupBy());
    return key;
  }

  /**
   * The sinks with the defaults that depend on other parts: in update mode, a JDBC upsert without a
   * key upserts by the aggregation's key.
   */
  static List<SinkSpec> withDefaults(List<SinkSpec> sinks, OutputMode mode, AggregateSpec agg) {
    if (mode != OutputMode.UPDATE || agg == null) {
      return sinks;
    }
    List<SinkSpec> out = new ArrayList<>();
    for (SinkSpec sink : sinks) {
      if (sink instanceof JdbcSinkSpec jdbc
          && jdbc.write() == JdbcSinkSpec.Write.UPSERT
          && jdbc.key().isEmpty()) {
        out.add(jdbc.withKey(aggregateKey(agg)));
      } else {
        out.add(sink);
      }
    }
    return out;
  }

  void check() {
    List<SinkSpec> sinks = draft.sinks();
    if (sinks == null) {
      return;
    }
    checkList(sinks);
    for (int i = 0; i < sinks.size(); i++) {
      String path = path(i, sinks.get(i).keyword());
      if (sinks.get(i) instanceof JdbcSinkSpec jdbc) {
        checkJdbc(jdbc, path);
      }
      if (!(sinks.get(i) instanceof DeltaSinkSpec)) {
        checkNotDelta(sinks.get(i).keyword(), path);
      }
    }
    checkWithoutDelta(sinks);
    checkContinuous(sinks);
  }

  /** {@code sink.jdbc} or {@code sinks[2].jdbc}. */
  private String path(int index, String kind) {
    return (problems.declared("sinks") ? "sinks[" + index + "]" : "sink") + "." + kind;
  }

  private void checkList(List<SinkSpec> sinks) {
    Map<String, Integer> seen = new HashMap<>();
    boolean delta = false;
    for (int i = 0; i < sinks.size(); i++) {
      SinkSpec sink = sinks.get(i);
      String at = path(i, sink.keyword());
      if (sink instanceof DeltaSinkSpec) {
        if (delta) {
          problems.atKey(at, SinkMessages.twoDeltaSinks());
        }
        delta = true;
      }
      Integer first = seen.putIfAbsent(sink.location(), i);
      if (first != null) {
        problems.atKey(at, SinkMessages.duplicateSink(sink.location(), first));
      }
    }
  }

  private void checkJdbc(JdbcSinkSpec jdbc, String path) {
    OutputMode mode = draft.outputMode();
    AggregateSpec aggregate = draft.aggregate();
    if (mode == OutputMode.UPDATE && aggregate != null) {
      List<String> key = aggregateKey(aggregate);
      if (jdbc.write() != JdbcSinkSpec.Write.UPSERT) {
        problems.atKey(path, SinkMessages.updateNeedsUpsert(key));
      } else if (key.isEmpty()) {
        problems.atKey(path, SinkMessages.globalAggregateUpsert());
      } else if (!jdbc.key().isEmpty()
          && !new LinkedHashSet<>(jdbc.key()).equals(Set.copyOf(key))) {
        problems.atValue(path + ".key", SinkMessages.updateKey(jdbc.key(), key));
      }
      return;
    }
    if (jdbc.write() == JdbcSinkSpec.Write.UPSERT && jdbc.key().isEmpty()) {
      problems.atKey(path, SinkMessages.upsertNeedsKey());
    } else if (jdbc.write() == JdbcSinkSpec.Write.APPEND && !jdbc.key().isEmpty()) {
      problems.atValue(path + ".key", SinkMessages.keyWithoutUpsert());
    }
    Set<String> output = knownOutputColumns();
    if (output != null) {
      for (int i = 0; i < jdbc.key().size(); i++) {
        String column = jdbc.key().get(i);
        if (!output.contains(column)) {
          problems.atValue(
              path + ".key[" + i + "]",
              Messages.unknownColumn(
                  "key column", column, output, Suggestions.nearest(column, output).orElse(null)));
        }
      }
    }
  }

  /** Rules for a JDBC or Kafka sink. */
  private void checkNotDelta(String kind, String path) {
    if (draft.source() instanceof KafkaSourceSpec kafka && kafka.assignment() == Assignment.GROUP) {
      problems.atKey(path, SinkMessages.groupAssignment(kind));
    }
    if (draft.outputMode() == OutputMode.COMPLETE) {
      problems.atValue("output-mode", SinkMessages.completeMode(kind));
    }
    SchemaEvolutionSpec evolution = draft.schemaEvolution();
    if (evolution != null && !evolution.equals(SchemaEvolutionSpec.DEFAULT)) {
      problems.atKey("schema-evolution", SinkMessages.evolutionNeedsDelta(kind));
    }
  }

  /** What only a Delta sink table has. */
  private void checkWithoutDelta(List<SinkSpec> sinks) {
    if (sinks.stream().anyMatch(DeltaSinkSpec.class::isInstance)) {
      return;
    }
    if (draft.source() instanceof KafkaSourceSpec kafka
        && kafka.startingOffsets() instanceof StartingOffsets.FromTable) {
      problems.atValue("source.kafka.starting-offsets", SinkMessages.fromTableNeedsDelta());
    }
    if (draft.maintenance() != null) {
      if (draft.maintenance().compaction().isPresent()) {
        problems.atKey("maintenance.compaction", SinkMessages.maintenanceNeedsDelta("compaction"));
      }
      if (draft.maintenance().vacuum().isPresent()) {
        problems.atKey("maintenance.vacuum", SinkMessages.maintenanceNeedsDelta("vacuum"));
      }
    }
  }

  private void checkContinuous(List<SinkSpec> sinks) {
    if (!(draft.trigger() instanceof TriggerSpec.Continuous)) {
      return;
    }
    String at = "trigger.continuous";
    if (draft.source() instanceof DeltaSourceSpec) {
      problems.atValue(at, SinkMessages.continuousNeedsKafkaSource());
    }
    if (draft.source() instanceof KafkaSourceSpec kafka && kafka.assignment() == Assignment.GROUP) {
      problems.atValue(at, SinkMessages.continuousGroup());
    }
    for (SinkSpec sink : sinks) {
      if (!(sink instanceof KafkaSinkSpec)) {
        problems.atValue(at, SinkMessages.continuousNeedsKafkaSinks(sink.keyword()));
        break;
      }
    }
    for (String part : List.of("watermark", "deduplicate", "aggregate")) {
      if (problems.declared(part)) {
        problems.atValue(at, SinkMessages.continuousStateless(part));
        break;
      }
    }
    if (problems.declared("join")) {
      problems.atValue(at, SinkMessages.continuousJoins());
    }
    if (draft.quarantineLimit() != null) {
      problems.atValue(at, SinkMessages.continuousQuarantineLimit());
    }
  }

  /**
   * The output columns when they are known from the declaration alone (no aggregation: the schema
   * columns, derived columns and Kafka metadata; an aggregation: its output columns); null when a
   * join adds columns known only at start, or the source is a Delta table.
   */
  private Set<String> knownOutputColumns() {
    if (draft.aggregate() != null) {
      return new LinkedHashSet<>(draft.aggregate().outputColumns());
    }
    if (problems.declared("aggregate")
        || draft.format() == null
        || draft.transforms() == null
        || draft.joins() == null
        || draft.joins().stream().anyMatch(j -> j.columns().isEmpty())) {
      return null;
    }
    Set<String> columns = new LinkedHashSet<>();
    draft.format().columns().forEach(c -> columns.add(c.name()));
    for (TransformStep step : draft.transforms()) {
      if (step instanceof TransformStep.Derive derive) {
        columns.addAll(derive.columns().keySet());
      }
    }
    columns.addAll(PipelineSpec.KAFKA_METADATA_COLUMNS);
    draft.joins().forEach(j -> columns.addAll(j.columns().orElseThrow()));
    return columns;
  }
}
