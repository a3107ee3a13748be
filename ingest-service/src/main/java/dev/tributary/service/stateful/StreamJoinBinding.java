package dev.tributary.service.stateful;

import dev.tributary.config.Bound;
import dev.tributary.config.JoinSide;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.TimeBounds;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
