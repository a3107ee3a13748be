package dev.tributary.service.stateful;

import java.io.IOException;

/**
 * Where the stateful operators send rows: the sink, the late-events table, or nowhere (counted).
 */
interface Emitter {
  /** A result row for the sink (aggregate row, or deduplicated input row). */
  void output(Object[] row) throws IOException;

  /**
   * An input row an operator left out as late; {@code why} says which operator and against what.
   */
  void late(Object[] row, Late why) throws IOException;

  /** An input row dropped for lack of an event time. */
  void filtered();

  /**
   * Why a row was late: the operator that dropped it ({@link #DEDUPLICATE}, {@link #AGGREGATE} or
   * {@link #JOIN}), the watermark it was judged against and, for an aggregation, the window it was
   * dropped from ({@link #NO_WINDOW} for deduplication). Built only for late rows, never on the hot
   * path.
   */
  record Late(String operator, long watermarkMicros, long windowStartMicros, long windowEndMicros) {
    static final String DEDUPLICATE = "deduplicate";
    static final String AGGREGATE = "aggregate";

    /** A stream-stream join's left input row at or behind the late watermark (L1). */
    static final String JOIN = "join";

    static final long NO_WINDOW = Long.MIN_VALUE;

    static Late dedup(long watermarkMicros) {
      return new Late(DEDUPLICATE, watermarkMicros, NO_WINDOW, NO_WINDOW);
    }

    static Late join(long watermarkMicros) {
      return new Late(JOIN, watermarkMicros, NO_WINDOW, NO_WINDOW);
    }

    static Late window(long watermarkMicros, long startMicros, long endMicros) {
      return new Late(AGGREGATE, watermarkMicros, startMicros, endMicros);
    }
  }
}
