package dev.tributary.service.stateful;

import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of the late-events table: the operator's input row (the stateless sink's columns)
 * followed by why it was left out: {@value #OPERATOR} ({@code deduplicate} or {@code aggregate}),
 * {@value #WATERMARK} (the watermark it was judged against), and {@value #WINDOW_START} / {@value
 * #WINDOW_END} (the window it was dropped from; null for deduplication). A sliding window drops a
 * row per window, so a row can appear once per window it was too late for.
 */
public final class LateEvents {
  public static final String OPERATOR = "_late_operator";
  public static final String WATERMARK = "_late_watermark";
  public static final String WINDOW_START = "_late_window_start";
  public static final String WINDOW_END = "_late_window_end";

  /** The columns added to the input row, in order. */
  public static final List<StructField> COLUMNS =
      List.of(
          StructField.nullable(OPERATOR, PrimitiveType.STRING),
          StructField.nullable(WATERMARK, PrimitiveType.TIMESTAMP),
          StructField.nullable(WINDOW_START, PrimitiveType.TIMESTAMP),
          StructField.nullable(WINDOW_END, PrimitiveType.TIMESTAMP));

  private LateEvents() {}

  /** The late-events table's schema for operators reading rows of {@code input}. */
  public static StructType schema(StructType input) {
    List<StructField> fields = new ArrayList<>(input.fields());
    fields.addAll(COLUMNS);
    return new StructType(fields);
  }

  /**
   * Whether {@code existing} is the schema an older release gave the table: the input columns
   * alone.
   */
  public static boolean isPreviousSchema(StructType existing, StructType input) {
    return existing.equals(input);
  }

  /** The late-events row of an input row. */
  static Object[] row(Object[] input, Emitter.Late why) {
    Object[] out = new Object[input.length + COLUMNS.size()];
    System.arraycopy(input, 0, out, 0, input.length);
    out[input.length] = why.operator();
    out[input.length + 1] = Times.instant(why.watermarkMicros());
    if (why.windowStartMicros() != Emitter.Late.NO_WINDOW) {
      out[input.length + 2] = Times.instant(why.windowStartMicros());
      out[input.length + 3] = Times.instant(why.windowEndMicros());
    }
    return out;
  }
}
