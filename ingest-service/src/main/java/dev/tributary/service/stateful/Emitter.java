package dev.tributary.service.stateful;

import java.io.IOException;

/** Where the stateful operators send rows: the sink, the late-events table, or nowhere (counted). */
interface Emitter {
  /** A result row for the sink (aggregate row, or deduplicated input row). */
  void output(Object[] row) throws IOException;

  /** An input row behind the watermark. */
  void late(Object[] row) throws IOException;

  /** An input row dropped for lack of an event time. */
  void filtered();
}
