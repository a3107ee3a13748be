package dev.tributary.service.stateful;

import java.io.IOException;

/** An aggregation (windowed, session or running) over a state store; one batch at a time. */
interface Aggregator {
  /** How results leave the aggregation. */
  enum Mode {
    APPEND,
    UPDATE,
    COMPLETE
  }

  /**
   * Adds a row whose window column holds {@code timeMicros} (unused by a running aggregation),
   * except to the windows the late watermark closed: each such (row, window) goes to {@link
   * Emitter#late} instead.
   */
  void add(Object[] row, long timeMicros, Emitter out) throws IOException;

  /**
   * Ends the batch: writes touched groups back to state, then emits per mode: APPEND the windows
   * ending at or before {@code evictBeforeMicros} (and evicts them), UPDATE the groups this batch
   * changed (then evicts the same windows silently), COMPLETE every group (nothing evicted). A
   * running aggregation never evicts and emits nothing in APPEND (see {@link RunningAggregator}).
   *
   * @param evictBeforeMicros the watermark, or {@link Long#MIN_VALUE} to evict nothing
   */
  void finish(Mode mode, long evictBeforeMicros, Emitter out) throws IOException;

  /** Windows evicted since {@link #resetCounters()}. */
  long evicted();

  void resetCounters();

  /** Forgets what the batch touched (the batch is abandoned). */
  void discard();
}
