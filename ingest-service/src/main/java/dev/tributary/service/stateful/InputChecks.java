package dev.tributary.service.stateful;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.MeasureFunction;
import dev.tributary.config.WindowSpec;
import dev.tributary.table.data.RowChecks;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks an input row of a stateful pipeline before it enters state: once a row is folded into a
 * window or a dedup key, it can no longer be set aside alone, and a value that cannot be encoded or
 * written would fail every later batch. So every value that reaches state or the sink is checked
 * here, as the sink would check it:
 *
 * <ul>
 *   <li>the event time (watermark and window columns): a timestamp of years 0001-9999 (its
 *       microseconds are what state keys and the watermark hold);
 *   <li>the windows the row falls into: their start and end must be such timestamps too (an event
 *       in the last hour of 9999 has a window ending in the year 10000);
 *   <li>dedup keys, count_distinct and approx_count_distinct inputs: values a state key (or a
 *       sketch's hash) can hold (no unpaired surrogate, which would make two different strings one
 *       key);
 *   <li>values copied to an output row (group-by columns, min/max/first/last inputs): as {@link
 *       RowChecks} checks the output column, partition columns included;
 *   <li>without an aggregation the input row is the output row: all of {@link RowChecks}.
 * </ul>
 */
final class InputChecks {
  private static final long MIN_MICROS = Times.micros(RowChecks.MIN_TIMESTAMP);
  private static final long MAX_MICROS = Times.micros(RowChecks.MAX_TIMESTAMP);

  private final StatefulPlan plan;
  private final RowChecks sinkRows;
  private final List<Check> checks = new ArrayList<>();

  /**
   * A value at {@code index} checked as {@code column} of {@code type} (a partition column or not).
   */
  private record Check(int index, String column, DataType type, boolean partition) {}

  /**
   * @param partitionColumns the sink's partition-by columns
   */
  InputChecks(StatefulPlan plan, List<String> partitionColumns) {
    this.plan = plan;
    StructType input = plan.inputSchema();
    this.sinkRows = plan.aggregates() ? null : RowChecks.forTable(input, partitionColumns);
    if (plan.hasWatermark()) {
      add(input, plan.watermarkColumn(), input.fields().get(plan.watermarkColumn()).name(), false);
    }
    if (plan.deduplicates()) {
      for (int c : plan.dedupColumns()) {
        add(input, c, input.fields().get(c).name(), false);
      }
    }
    if (plan.aggregates()) {
      if (!plan.runningAggregation()) {
        add(input, plan.windowColumn(), input.fields().get(plan.windowColumn()).name(), false);
      }
      for (int c : plan.groupColumns()) {
        String name = input.fields().get(c).name();
        add(input, c, name, partitionColumns.contains(name));
      }
      Measures m = plan.measures();
      List<StructField> outputs = m.outputFields();
      for (int i = 0; i < m.size(); i++) {
        int in = m.input(i);
        if (in < 0) {
          continue;
        }
        boolean copied =
            m.function(i) == MeasureFunction.MIN
                || m.function(i) == MeasureFunction.MAX
                || m.function(i) == MeasureFunction.FIRST
                || m.function(i) == MeasureFunction.LAST;
        String name = copied ? outputs.get(i).name() : input.fields().get(in).name();
        add(input, in, name, copied && partitionColumns.contains(name));
      }
    }
  }

  private void add(StructType input, int index, String column, boolean partition) {
    DataType type = input.fields().get(index).type();
    checks.add(new Check(index, column, type, partition));
  }

  /** Why the row cannot enter state or reach the sink, naming the column; null when it can. */
  String problem(Object[] row) {
    if (sinkRows != null) {
      String problem = sinkRows.problem(row);
      if (problem != null) {
        return problem;
      }
    }
    for (Check c : checks) {
      Object v = row[c.index];
      String problem =
          c.partition
              ? RowChecks.partitionValueProblem(c.column, c.type, v)
              : RowChecks.valueProblem(c.column, c.type, v);
      if (problem != null) {
        return problem;
      }
    }
    return plan.aggregates() && !plan.runningAggregation() ? windowProblem(row) : null;
  }

  /** The first window start and the last window end of the row's event time must be writable. */
  private String windowProblem(Object[] row) {
    Object w = row[plan.windowColumn()];
    if (!(w instanceof Instant t)) {
      return null; // null event times are dropped before any window
    }
    long micros = Times.micros(t);
    long firstStart;
    long lastEnd;
    WindowSpec window = plan.window();
    if (window instanceof WindowSpec.Session s) {
      firstStart = micros;
      lastEnd = micros + Times.micros(s.gap());
    } else {
      long size =
          Times.micros(
              window instanceof WindowSpec.Sliding s
                  ? s.size()
                  : ((WindowSpec.Tumbling) window).size());
      long slide = window instanceof WindowSpec.Sliding s ? Times.micros(s.slide()) : size;
      long lastStart = micros - Math.floorMod(micros, slide);
      lastEnd = lastStart + size;
      firstStart =
          lastStart - (size / slide - 1) * slide; // the windows WindowAggregator.add updates
    }
    String column = plan.inputSchema().fields().get(plan.windowColumn()).name();
    if (firstStart < MIN_MICROS) {
      return StatefulErrors.windowOutOfRange(
          column, t, AggregateSpec.WINDOW_START, Times.instant(firstStart));
    }
    if (lastEnd > MAX_MICROS) {
      return StatefulErrors.windowOutOfRange(
          column, t, AggregateSpec.WINDOW_END, Times.instant(lastEnd));
    }
    return null;
  }
}
