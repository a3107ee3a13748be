package dev.tributary.service.stateful;

import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.LongFunction;

/**
 * What {@link StreamJoinOperator} needs to know of a stream-stream join, and nothing more: the
 * engine maps the pipeline's declaration (config's {@code StreamJoinSpec}, {@code TimeCondition},
 * {@code TimeBounds}) onto it, so the operator does not depend on how joins are declared.
 *
 * <p>The operator sees each side's rows exactly as they are to be stored and output: the left row
 * first, then the right row, in the output row (left semi: the left row only, J2). The engine trims
 * what is not output (the right input's Kafka columns) before handing a right row over.
 *
 * @param type the join type (J1)
 * @param left the main input's side
 * @param right the second input's side
 * @param time the both-side condition on the two event times, evaluated on every candidate pair of
 *     equal keys (P5); {@link TimeMatch#ANY} when the join has none
 */
record StreamJoinDefinition(StreamJoinType type, Side left, Side right, TimeMatch time) {

  /** Spark's stream-stream join types (J1); left anti is refused by validation. */
  enum StreamJoinType {
    INNER,
    LEFT_OUTER,
    RIGHT_OUTER,
    FULL_OUTER,
    LEFT_SEMI;

    /** Whether the left side's unmatched rows are output with nulls at eviction (O1). */
    boolean keepsUnmatchedLeft() {
      return this == LEFT_OUTER || this == FULL_OUTER;
    }

    /** Whether the right side's unmatched rows are output with nulls at eviction (O1). */
    boolean keepsUnmatchedRight() {
      return this == RIGHT_OUTER || this == FULL_OUTER;
    }
  }

  /**
   * The time condition on a candidate pair, in exact microseconds: true if the left row with event
   * time {@code leftMicros} and the right row with {@code rightMicros} may be joined.
   */
  @FunctionalInterface
  interface TimeMatch {
    /** No time condition: every pair of equal keys joins. */
    TimeMatch ANY = (leftMicros, rightMicros) -> true;

    boolean test(long leftMicros, long rightMicros);
  }

  /**
   * One side of the join.
   *
   * @param width the number of columns of this side's rows
   * @param keyColumns the equi-join key columns, in the order of {@code on} (the other side's list
   *     has the same length and types, J4)
   * @param timeColumn the column holding this side's event time (a timestamp, read as an {@link
   *     java.time.Instant}): the one the time condition and the state watermark speak of, and the
   *     side's watermark column when it has one; {@link #NO_TIME} when the side has neither a time
   *     condition nor a state watermark (its rows are then kept forever, E3)
   * @param dropsLate whether the side's input has a watermark, so that rows at or behind the late
   *     watermark are dropped (L1); a side without one drops nothing
   * @param stateWatermark the side's state watermark as a function of the batch's eviction
   *     watermark {@code W_evict} (both in microseconds): the side's rows with an event time at or
   *     before it are evicted at the end of the batch (S1r, S2r); empty when the side is never
   *     evicted. With a watermark in the join keys (S1r.1) both sides return {@code W_evict}
   *     itself, and their time columns are the key's time columns.
   */
  record Side(
      int width,
      int[] keyColumns,
      int timeColumn,
      boolean dropsLate,
      LongFunction<OptionalLong> stateWatermark) {
    /** {@link #timeColumn} of a side without an event time. */
    static final int NO_TIME = -1;

    /** Never evicted. */
    static final LongFunction<OptionalLong> NEVER = evict -> OptionalLong.empty();

    Side {
      keyColumns = keyColumns.clone();
      Objects.requireNonNull(stateWatermark, "stateWatermark");
      if (timeColumn == NO_TIME && (dropsLate || stateWatermark != NEVER)) {
        throw new IllegalArgumentException(
            "a join side without an event-time column can neither drop late rows nor be evicted");
      }
      for (int c : keyColumns) {
        Objects.checkIndex(c, width);
      }
      if (timeColumn != NO_TIME) {
        Objects.checkIndex(timeColumn, width);
      }
    }

    @Override
    public int[] keyColumns() {
      return keyColumns.clone();
    }

    boolean hasTime() {
      return timeColumn != NO_TIME;
    }
  }

  StreamJoinDefinition {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(time, "time");
    if (left.keyColumns.length != right.keyColumns.length) {
      throw new IllegalArgumentException(
          "the join needs as many key columns on the left as on the right: "
              + left.keyColumns.length
              + " and "
              + right.keyColumns.length);
    }
    if (time != TimeMatch.ANY && (!left.hasTime() || !right.hasTime())) {
      throw new IllegalArgumentException("a time condition needs an event-time column per side");
    }
  }

  /** The width of an output row: left and right, or the left alone for left semi (J2). */
  int outputWidth() {
    return type == StreamJoinType.LEFT_SEMI ? left.width() : left.width() + right.width();
  }
}
