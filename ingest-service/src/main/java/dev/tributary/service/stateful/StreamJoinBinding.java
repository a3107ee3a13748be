package dev.tributary.service.stateful;

import dev.tributary.config.Bound;
import dev.tributary.config.JoinSide;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.TimeBounds;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * A pipeline's stream-stream join ({@code join[0].stream}) compiled against its two sides: the
 * mapping of the declaration (config's {@link StreamJoinSpec}, {@link TimeBounds}) onto the
 * operator's {@link StreamJoinDefinition}, and the second input's decoder.
 *
 * <p>Sides (docs/DESIGN.md, "Declaration"): the left row is the main input's row after its
 * transforms and stream-static joins ({@code leftSchema}, the Kafka columns last); the right row is
 * the second input's parsed row, every column renamed {@code prefix + column}, without Kafka
 * columns. The output row is the left row then the right row (left semi: the left row alone).
 *
 * @param spec the declaration
 * @param leftWatermark the main input's watermark (the left side's), if declared
 * @param rightParser decodes the second input's records ({@code join[0].stream.format})
 * @param leftSchema the left rows' columns
 * @param rightSchema the right rows' columns, prefixed
 */
public record StreamJoinBinding(
    StreamJoinSpec spec,
    Optional<WatermarkSpec> leftWatermark,
    RecordDecoder rightParser,
    StructType leftSchema,
    StructType rightSchema) {

  /** Checks that no part is null. */
  public StreamJoinBinding {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(leftWatermark, "leftWatermark");
    Objects.requireNonNull(rightParser, "rightParser");
    Objects.requireNonNull(leftSchema, "leftSchema");
    Objects.requireNonNull(rightSchema, "rightSchema");
  }

  /**
   * Binds a join whose second input is Kafka records decoded by {@code rightParser}.
   *
   * @throws IllegalArgumentException naming the column when a key or time column is missing from a
   *     side (validate refuses such declarations first)
   */
  public static StreamJoinBinding of(
      StreamJoinSpec spec,
      Optional<WatermarkSpec> leftWatermark,
      RecordDecoder rightParser,
      StructType leftSchema) {
    List<StructField> right = new ArrayList<>();
    for (StructField f : rightParser.schema().fields()) {
      right.add(f.withName(spec.stream().prefixed(f.name())));
    }
    StreamJoinBinding binding =
        new StreamJoinBinding(spec, leftWatermark, rightParser, leftSchema, new StructType(right));
    binding.definition(); // every column is resolved now, not at the first batch
    return binding;
  }

  /**
   * Binds a join whose second input is the Delta table {@code table} (its rows typed, in the
   * table's schema read at start; the right columns are the table's, prefixed). What validate could
   * not check without the table is checked here, by name: the keys exist on both sides with the
   * same type (J4), and every time column of the condition and the watermark columns are
   * timestamps.
   *
   * @throws IllegalArgumentException naming the field ({@code join[0].on}, {@code join[0].time},
   *     {@code join[0].stream.watermark}), the column and the table
   */
  public static StreamJoinBinding ofTable(
      StreamJoinSpec spec,
      Optional<WatermarkSpec> leftWatermark,
      TableRowsInput table,
      StructType leftSchema) {
    StreamJoinBinding binding = of(spec, leftWatermark, checked(spec, table), leftSchema);
    binding.checkTypes("the second input's table " + table.location());
    return binding;
  }

  /**
   * Checks a join whose main input is a Delta table, once its left rows' columns are known: as
   * {@link #ofTable} does for a table as the second input.
   *
   * @throws IllegalArgumentException naming the field, the column and the table
   */
  public StreamJoinBinding checkedAgainstMainTable(String table) {
    checkTypes("the main input's table " + table);
    return this;
  }

  private static TableRowsInput checked(StreamJoinSpec spec, TableRowsInput table) {
    List<String> missing = new ArrayList<>();
    for (String key : spec.on()) {
      if (table.tableSchema().indexOf(key) < 0) {
        missing.add("join[0].on: key '" + key + "'");
      }
    }
    spec.stream()
        .watermark()
        .filter(w -> table.tableSchema().indexOf(w.column()) < 0)
        .ifPresent(w -> missing.add("join[0].stream.watermark.column '" + w.column() + "'"));
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          String.join("; ", missing)
              + (missing.size() == 1 ? " is" : " are")
              + " not a column of the second input's table "
              + table.location()
              + " (read at start; its columns are "
              + table.tableSchema().fieldNames()
              + ")");
    }
    return table;
  }

  /** The key types agree on both sides, the time and watermark columns are timestamps. */
  private void checkTypes(String table) {
    List<String> problems = new ArrayList<>();
    List<String> rightKeys = spec.rightKeys();
    for (int i = 0; i < spec.on().size(); i++) {
      var l = leftSchema.fields().get(leftSchema.indexOf(spec.on().get(i))).type();
      var r = rightSchema.fields().get(rightSchema.indexOf(rightKeys.get(i))).type();
      if (!l.equals(r)) {
        problems.add(
            "join[0].on: key '"
                + spec.on().get(i)
                + "' is "
                + l
                + " in the main input but "
                + r
                + " in the second input ("
                + rightKeys.get(i)
                + "); the types must be equal (derive a column with CAST on the main input)");
      }
    }
    Set<String> leftTimes = new LinkedHashSet<>();
    Set<String> rightTimes = new LinkedHashSet<>();
    leftWatermark.ifPresent(w -> leftTimes.add(w.column()));
    rightWatermark().ifPresent(rightTimes::add);
    for (Bound b : spec.time().bounds()) {
      (b.lower() == JoinSide.LEFT ? leftTimes : rightTimes).add(b.lowerColumn());
      (b.upper() == JoinSide.LEFT ? leftTimes : rightTimes).add(b.upperColumn());
    }
    timestamps(leftSchema, leftTimes, JoinSide.LEFT, problems);
    timestamps(rightSchema, rightTimes, JoinSide.RIGHT, problems);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          String.join("; ", problems) + " (checked at start against " + table + ")");
    }
  }

  private static void timestamps(
      StructType schema, Set<String> columns, JoinSide side, List<String> problems) {
    for (String c : columns) {
      int index = column(schema, c, side);
      var type = schema.fields().get(index).type();
      if (!type.equals(PrimitiveType.TIMESTAMP)) {
        problems.add(
            "join[0].time: column '"
                + c
                + "' of the "
                + side.keyword()
                + " side is "
                + type
                + ", not a timestamp (an event-time column must be one)");
      }
    }
  }

  /** The second input's table location, when it is a table rather than Kafka records. */
  public Optional<String> rightTable() {
    return rightParser instanceof TableRowsInput t ? Optional.of(t.location()) : Optional.empty();
  }

  /** The sink's columns: the left's then the right's (left semi: the left's alone, J2). */
  public StructType outputSchema() {
    if (spec.type() == dev.tributary.config.StreamJoinType.LEFT_SEMI) {
      return leftSchema;
    }
    List<StructField> fields = new ArrayList<>(leftSchema.fields());
    for (StructField f : rightSchema.fields()) {
      // the other side's columns are null in an outer row (J2)
      fields.add(StructField.nullable(f.name(), f.type()));
    }
    return new StructType(fields);
  }

  /** The bounds of the time condition and the state watermarks (S1r, S2r). */
  public TimeBounds bounds() {
    return TimeBounds.of(spec, leftWatermark);
  }

  /** The right input's watermark column, prefixed, if it has a watermark. */
  Optional<String> rightWatermark() {
    return spec.stream().watermarkColumn();
  }

  /** The operator's view of the join. */
  StreamJoinDefinition definition() {
    TimeBounds bounds = bounds();
    return new StreamJoinDefinition(
        type(),
        side(JoinSide.LEFT, leftSchema, spec.on(), bounds),
        side(JoinSide.RIGHT, rightSchema, spec.rightKeys(), bounds),
        timeMatch(bounds.bounds()));
  }

  private StreamJoinDefinition.StreamJoinType type() {
    return switch (spec.type()) {
      case INNER -> StreamJoinDefinition.StreamJoinType.INNER;
      case LEFT -> StreamJoinDefinition.StreamJoinType.LEFT_OUTER;
      case RIGHT -> StreamJoinDefinition.StreamJoinType.RIGHT_OUTER;
      case FULL -> StreamJoinDefinition.StreamJoinType.FULL_OUTER;
      case LEFT_SEMI -> StreamJoinDefinition.StreamJoinType.LEFT_SEMI;
    };
  }

  private StreamJoinDefinition.Side side(
      JoinSide side, StructType schema, List<String> keys, TimeBounds bounds) {
    int[] keyColumns = new int[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      keyColumns[i] = column(schema, keys.get(i), side);
    }
    Optional<String> time = bounds.evictionColumn(side).or(() -> bounds.watermark(side));
    if (time.isEmpty()) {
      // a time condition's column of this side (no watermark: validate allows only inner joins)
      time =
          bounds.bounds().stream()
              .map(b -> b.lower() == side ? b.lowerColumn() : b.upperColumn())
              .findFirst();
    }
    boolean evicts = bounds.evicts(side);
    LongFunction<java.util.OptionalLong> stateWatermark =
        evicts
            ? evict -> bounds.stateWatermarkMicros(side, evict)
            : StreamJoinDefinition.Side.NEVER;
    return new StreamJoinDefinition.Side(
        schema.size(),
        keyColumns,
        time.isPresent() ? column(schema, time.get(), side) : StreamJoinDefinition.Side.NO_TIME,
        bounds.watermark(side).isPresent(),
        stateWatermark);
  }

  private static StreamJoinDefinition.TimeMatch timeMatch(List<Bound> bounds) {
    if (bounds.isEmpty()) {
      return StreamJoinDefinition.TimeMatch.ANY;
    }
    List<Bound> all = List.copyOf(bounds);
    return (left, right) -> {
      for (Bound b : all) {
        boolean holds = b.lower() == JoinSide.LEFT ? b.holds(left, right) : b.holds(right, left);
        if (!holds) {
          return false;
        }
      }
      return true;
    };
  }

  private static int column(StructType schema, String name, JoinSide side) {
    int index = schema.indexOf(name);
    if (index < 0) {
      throw new IllegalArgumentException(
          "join[0]: column '"
              + name
              + "' is not a column of the "
              + side.keyword()
              + " side; its columns are "
              + schema.fieldNames());
    }
    return index;
  }
}
