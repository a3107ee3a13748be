package dev.tributary.config.internal;

import dev.tributary.config.Assignment;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.StartingOffsets;

/**
 * The checks of {@code sink.delta.route} that relate it to other parts (docs/DESIGN.md, "Routing to
 * many tables"): a stateless pipeline only (a stateful query's state and its update or complete
 * writes belong to one table), one writer per checkpoint (no consumer-group mode: the routed tables
 * hold no shared positions), the only sink, declared columns (no schema evolution), no {@code
 * starting-offsets: table} (it continues after one table's positions). The route expression itself
 * is compiled against the output columns by the service ({@code Sinks.problems}).
 */
final class RouteChecks {
  private final Problems problems;
  private final Draft draft;

  RouteChecks(Problems problems, Draft draft) {
    this.problems = problems;
    this.draft = draft;
  }

  void check() {
    if (draft.sink() == null || draft.sink().route().isEmpty()) {
      return;
    }
    String at = problems.declared("sinks") ? "sinks" : "sink.delta.route";
    if (problems.declared("sinks")) {
      problems.atKey(at, RouteMessages.routeAmongSinks());
      return;
    }
    String stateful =
        problems.declared("aggregate")
            ? "aggregate"
            : problems.declared("deduplicate")
                ? "deduplicate"
                : problems.declared("watermark") ? "watermark" : null;
    if (stateful != null) {
      problems.atValue(at, RouteMessages.routeWithState(draft.id(), stateful));
    }
    if (draft.source() instanceof KafkaSourceSpec kafka) {
      if (kafka.assignment() == Assignment.GROUP) {
        problems.atValue(at, RouteMessages.routeInGroupMode(draft.id()));
      }
      if (kafka.startingOffsets() instanceof StartingOffsets.FromTable) {
        problems.atValue("source.kafka.starting-offsets", RouteMessages.routeStartingFromTable());
      }
    }
    if (draft.schemaEvolution() != null
        && !draft.schemaEvolution().equals(SchemaEvolutionSpec.DEFAULT)) {
      problems.atKey("schema-evolution", RouteMessages.routeWithEvolution());
    }
  }
}
