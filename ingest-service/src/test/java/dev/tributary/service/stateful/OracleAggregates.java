package dev.tributary.service.stateful;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.Measure;
import dev.tributary.service.stateful.EventStream.Event;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The oracle's part for running aggregations and the measures first, last and
 * approx_count_distinct, computed from plain lists of events in input order (the order the engine
 * reads them: batch by batch, each batch in the order its rows arrive). Independent of the
 * operators' code: no state, no sketches.
 */
final class OracleAggregates {
  private OracleAggregates() {}

  /**
   * The table of a running aggregation (no window) in update or complete mode: one row per group-by
   * key seen, the group values then the measures over all of the key's events; a global aggregation
   * (no group-by) is one row even without events.
   */
  static List<List<Object>> running(AggregateSpec agg, List<Event> events) {
    Map<List<Object>, List<Event>> groups = new LinkedHashMap<>();
    if (agg.groupBy().isEmpty()) {
      groups.put(List.of(), new ArrayList<>());
    }
    for (Event e : events) {
      List<Object> key = new ArrayList<>();
      agg.groupBy().forEach(c -> key.add(Oracle.value(e, c)));
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
    }
    List<List<Object>> table = new ArrayList<>();
    for (Map.Entry<List<Object>, List<Event>> g : groups.entrySet()) {
      List<Object> row = new ArrayList<>(g.getKey());
      for (Measure m : agg.measures().values()) {
        row.add(Oracle.measure(m, g.getValue()));
      }
      table.add(row);
    }
    return table;
  }

  /**
   * first/last: the input value of the first/last event, null included (Spark's ignoreNulls=false).
   * approx_count_distinct: the exact distinct count of the non-null values, which the engine's
   * sketch returns while a group's cardinality is small (the example streams have five users and
   * three event types; the estimate's error bound is tested on its own in {@code MeasuresTest}).
   */
  static Object measure(Measure m, List<Event> events) {
    String column = m.input().orElseThrow();
    switch (m.function()) {
      case FIRST:
        return events.isEmpty() ? null : Oracle.value(events.get(0), column);
      case LAST:
        return events.isEmpty() ? null : Oracle.value(events.get(events.size() - 1), column);
      case APPROX_COUNT_DISTINCT:
        {
          Set<Object> distinct = new HashSet<>();
          for (Event e : events) {
            Object v = Oracle.value(e, column);
            if (v != null) {
              distinct.add(v);
            }
          }
          return (long) distinct.size();
        }
      default:
        throw new IllegalStateException("not a measure of OracleAggregates: " + m.function());
    }
  }
}
