package dev.tributary.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code aggregate} section: a windowed aggregation, or without a window a running aggregation
 * (one result row per group-by key, updated as events arrive). Its output columns are {@code
 * window_start}, {@code window_end} (windowed only), the group-by columns, then the measures, in
 * that order.
 *
 * @param window the event-time window; empty for a running aggregation
 * @param groupBy the grouping columns besides the window, possibly none
 * @param measures output column name to measure, in declaration order, at least one
 */
public record AggregateSpec(
    Optional<WindowSpec> window, List<String> groupBy, Map<String, Measure> measures) {

  /** The name of the window start output column. */
  public static final String WINDOW_START = "window_start";

  /** The name of the window end output column. */
  public static final String WINDOW_END = "window_end";

  /** Copies the lists keeping their order and checks there is at least one measure. */
  public AggregateSpec {
    Objects.requireNonNull(window, "window");
    groupBy = List.copyOf(groupBy);
    measures = OrderedMaps.copyOf(measures);
    if (measures.isEmpty()) {
      throw new IllegalArgumentException("an aggregation needs at least one measure");
    }
  }

  /** A windowed aggregation. */
  public AggregateSpec(WindowSpec window, List<String> groupBy, Map<String, Measure> measures) {
    this(Optional.of(window), groupBy, measures);
  }

  /** Whether this is a running aggregation: no window, one row per group-by key. */
  public boolean running() {
    return window.isEmpty();
  }

  /** Returns the window as a canonical string, or {@code none} for a running aggregation. */
  public String canonicalWindow() {
    return window.map(WindowSpec::canonical).orElse("none");
  }

  /**
   * Returns the output columns: window_start, window_end (windowed only), group-by columns,
   * measures.
   */
  public List<String> outputColumns() {
    List<String> columns =
        new ArrayList<>(running() ? List.of() : List.of(WINDOW_START, WINDOW_END));
    columns.addAll(groupBy);
    columns.addAll(measures.keySet());
    return List.copyOf(columns);
  }

  /**
   * Returns the measures as a canonical string such as {@code orders=count(), total=sum(amount)}.
   */
  public String canonicalMeasures() {
    return measures.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue().canonical())
        .collect(Collectors.joining(", "));
  }
}
