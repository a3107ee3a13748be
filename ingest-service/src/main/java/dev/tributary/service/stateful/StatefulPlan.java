package dev.tributary.service.stateful;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.DeduplicateSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.config.WindowSpec;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The stateful part of a pipeline (watermark, deduplication, windowed or running aggregation)
 * compiled against the rows the stateless part produces: column positions, measure types and the
 * sink's schema. Built without I/O, so {@code validate} reports every problem.
 */
public final class StatefulPlan {
  private final String pipelineId;
  private final StructType input;
  private final OutputMode mode;
  private final int watermarkColumn;
  private final long delayMicros;
  private final boolean perPartitionWatermark;
  private final int[] dedupColumns;
  private final Deduplicator.Expiry dedupExpiry;
  private final WindowSpec window;
  private final int windowColumn;
  private final int[] groupColumns;
  private final Measures measures;
  private final StructType outputSchema;
  private final List<String> keyColumns;
  private final List<String> partitionColumns;

  private final boolean provisional;

  private StatefulPlan(
      PipelineSpec spec, StructType input, Predicate<String> later, List<String> problems) {
    this.provisional = later != NONE_LATER;
    this.pipelineId = spec.id();
    this.partitionColumns = List.copyOf(spec.partitionBy());
    this.input = input;
    this.mode = spec.outputMode();
    Optional<WatermarkSpec> wm = spec.watermark();
    this.watermarkColumn =
        wm.map(w -> timestampColumn(input, w.column(), "watermark.column", later, problems))
            .orElse(-1);
    this.delayMicros = wm.map(w -> Times.micros(w.delay())).orElse(0L);
    this.perPartitionWatermark =
        wm.map(w -> w.policy() == WatermarkSpec.Policy.PER_PARTITION).orElse(false);
    Optional<DeduplicateSpec> dedup = spec.deduplicate();
    this.dedupColumns =
        dedup.map(d -> columns(input, d.keys(), "deduplicate.keys", later, problems)).orElse(null);
    boolean keysHoldEventTime =
        dedup.isPresent() && wm.isPresent() && dedup.get().keys().contains(wm.get().column());
    boolean within = dedup.isPresent() && dedup.get().withinWatermark() && wm.isPresent();
    this.dedupExpiry =
        keysHoldEventTime
            ? Deduplicator.Expiry.EVENT_TIME_IN_KEY
            : within ? Deduplicator.Expiry.FIRST_SEEN_PLUS_DELAY : Deduplicator.Expiry.NEVER;
    Optional<AggregateSpec> agg = spec.aggregate();
    if (agg.isPresent()) {
      AggregateSpec a = agg.get();
      // A running aggregation (no window) has no window column: -1, like an absent watermark.
      this.window = a.window().orElse(null);
      this.windowColumn =
          a.window()
              .map(
                  w ->
                      timestampColumn(
                          input, w.column(), "aggregate.window.column", later, problems))
              .orElse(-1);
      this.groupColumns = columns(input, a.groupBy(), "aggregate.group-by", later, problems);
      this.measures = new Measures(a.measures(), input, later, problems);
      List<StructField> out = new ArrayList<>();
      if (window != null) {
        out.add(StructField.nullable(AggregateSpec.WINDOW_START, PrimitiveType.TIMESTAMP));
        out.add(StructField.nullable(AggregateSpec.WINDOW_END, PrimitiveType.TIMESTAMP));
      }
      for (int i = 0; i < groupColumns.length; i++) {
        if (groupColumns[i] >= 0) {
          out.add(input.fields().get(groupColumns[i]));
        }
      }
      out.addAll(measures.outputFields());
      this.outputSchema = new StructType(out);
      List<String> keys =
          new ArrayList<>(
              window == null
                  ? List.of()
                  : List.of(AggregateSpec.WINDOW_START, AggregateSpec.WINDOW_END));
      keys.addAll(a.groupBy());
      this.keyColumns = List.copyOf(keys);
      if (window == null && dedup.isEmpty() && spec.lateEvents().isPresent()) {
        problems.add(
            "late-events: no row can be late for a running aggregation (aggregate without window) without"
                + " deduplicate: its keys carry no event time, so the watermark leaves every row in (as in Spark) and"
                + " the table would stay empty; remove late-events, or add a window");
      }
      if (window instanceof WindowSpec.Session && mode == OutputMode.UPDATE) {
        problems.add(
            "output-mode: update is not supported with session windows, as in Spark (a session's start"
                + " changes when sessions merge, so its rows cannot be upserted by key); use append or complete");
      }
    } else {
      this.window = null;
      this.windowColumn = -1;
      this.groupColumns = new int[0];
      this.measures = null;
      this.outputSchema = input;
      this.keyColumns = List.of();
    }
  }

  /**
   * Compiles the stateful part of {@code spec}, or returns empty when the pipeline has none.
   *
   * @param input the schema of the rows after parsing and transforms (the stateless sink schema)
   * @param problems receives one message per problem, naming the key concerned
   */
  public static Optional<StatefulPlan> compile(
      PipelineSpec spec, StructType input, List<String> problems) {
    return compile(spec, input, NONE_LATER, problems);
  }

  /**
   * Compiles the stateful part of {@code spec} before its joins are bound, to report every problem
   * without I/O: a column that is not in {@code stream} but for which {@code fromJoin} is true (a
   * join's declared column, or any column when a join adds the dimension's columns) is taken to
   * come from a join and checked when the pipeline starts, against the joined schema. The plan
   * returned is {@linkplain #provisional() provisional}: it cannot process rows.
   *
   * @param stream the schema of the rows after parsing and transforms, before the joins
   */
  public static Optional<StatefulPlan> compileBeforeJoins(
      PipelineSpec spec, StructType stream, Predicate<String> fromJoin, List<String> problems) {
    return compile(spec, stream, fromJoin, problems);
  }

  private static Optional<StatefulPlan> compile(
      PipelineSpec spec, StructType input, Predicate<String> later, List<String> problems) {
    if (spec.watermark().isEmpty() && spec.deduplicate().isEmpty() && spec.aggregate().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new StatefulPlan(spec, input, later, problems));
  }

  /** No column is checked later: every one must be in the input schema. */
  private static final Predicate<String> NONE_LATER = name -> false;

  /**
   * Whether this plan was compiled before the joins were bound ({@link #compileBeforeJoins}): its
   * input and output schemas then lack the joins' columns.
   */
  public boolean provisional() {
    return provisional;
  }

  /** The message for a column the rows do not have; used again when the joined schema is known. */
  static String missingColumn(String key, String name, StructType input) {
    return key
        + ": column '"
        + name
        + "' is not a column of the transformed rows; columns are "
        + input.fieldNames();
  }

  private static int timestampColumn(
      StructType input, String name, String key, Predicate<String> later, List<String> problems) {
    int i = input.indexOf(name);
    if (i < 0) {
      if (!later.test(name)) {
        problems.add(missingColumn(key, name, input));
      }
    } else if (input.fields().get(i).type() != PrimitiveType.TIMESTAMP) {
      problems.add(
          key
              + ": column '"
              + name
              + "' is "
              + input.fields().get(i).type().deltaName()
              + ", an event time must be a timestamp; declare it as timestamp in format.json.schema");
    }
    return i;
  }

  private static int[] columns(
      StructType input,
      List<String> names,
      String key,
      Predicate<String> later,
      List<String> problems) {
    int[] out = new int[names.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = input.indexOf(names.get(i));
      if (out[i] < 0 && !later.test(names.get(i))) {
        problems.add(missingColumn(key, names.get(i), input));
      }
    }
    return out;
  }

  /** The pipeline id. */
  public String pipelineId() {
    return pipelineId;
  }

  /**
   * The rows the stateful operators read: the stateless sink schema (parsed, derived, Kafka
   * columns).
   */
  public StructType inputSchema() {
    return input;
  }

  /** The sink's schema: aggregate rows, or the input rows when there is no aggregation. */
  public StructType outputSchema() {
    return outputSchema;
  }

  /** The output mode. */
  public OutputMode outputMode() {
    return mode;
  }

  /** Whether there is an aggregation (windowed or running). */
  public boolean aggregates() {
    return measures != null;
  }

  /** Whether the aggregation is a running one: no window, one result row per group-by key. */
  public boolean runningAggregation() {
    return measures != null && window == null;
  }

  /**
   * The columns that identify an aggregate row (window_start, window_end, group-by; only the
   * group-by columns for a running aggregation, none for a global one): update mode merges by them.
   */
  public List<String> keyColumns() {
    return keyColumns;
  }

  /** The sink's partition-by columns (checked on input rows before they enter state). */
  List<String> partitionColumns() {
    return partitionColumns;
  }

  boolean hasWatermark() {
    return watermarkColumn >= 0;
  }

  int watermarkColumn() {
    return watermarkColumn;
  }

  long delayMicros() {
    return delayMicros;
  }

  /**
   * Whether the watermark follows the slowest partition ({@code watermark.policy: per-partition}).
   */
  boolean perPartitionWatermark() {
    return perPartitionWatermark;
  }

  boolean deduplicates() {
    return dedupColumns != null;
  }

  int[] dedupColumns() {
    return dedupColumns.clone();
  }

  Deduplicator.Expiry dedupExpiry() {
    return dedupExpiry;
  }

  /** The window, or null for a running aggregation (and without aggregation). */
  WindowSpec window() {
    return window;
  }

  int windowColumn() {
    return windowColumn;
  }

  int[] groupColumns() {
    return groupColumns.clone();
  }

  Measures measures() {
    return measures;
  }

  /**
   * Whether rows behind the watermark are left out (late). Not for a running aggregation without
   * deduplication: as in Spark, its keys carry no event time, so no row is late for it (nor is a
   * row without event time dropped); the watermark is still tracked and persisted.
   */
  boolean judgesLateness() {
    return hasWatermark() && !(runningAggregation() && !deduplicates());
  }

  /**
   * Windows are evicted only when the watermark is on the window column (else the state grows, as
   * in Spark); never for a running aggregation (no window column), whose keys carry no event time.
   */
  boolean evictsWindows() {
    return hasWatermark()
        && windowColumn >= 0
        && windowColumn == watermarkColumn
        && mode != OutputMode.COMPLETE;
  }

  /**
   * Whether the aggregation drops (row, window) pairs whose window the late watermark closed: only
   * for a window on the watermark column (else the window carries no watermark, as in Spark);
   * tumbling and sliding windows not in complete mode (Spark's StateStoreSaveExec ignores the
   * watermark there), session windows in every mode (SessionWindowStateStoreRestoreExec filters
   * before any output mode applies).
   */
  boolean filtersLateWindows() {
    if (!hasWatermark() || windowColumn != watermarkColumn) {
      return false;
    }
    return window instanceof WindowSpec.Session || mode != OutputMode.COMPLETE;
  }
}
