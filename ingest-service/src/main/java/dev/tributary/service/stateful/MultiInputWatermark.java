package dev.tributary.service.stateful;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The watermark of a pipeline with several inputs (a stream-stream join), batch by batch: Spark's
 * {@code WatermarkTracker} with several watermark nodes and {@code MultipleWatermarkPolicy}
 * (docs/STREAM_JOINS_SPARK_RULES.md, W1-W3).
 *
 * <ul>
 *   <li>Each input keeps a value of its own (W1): none until the input has had a row reaching the
 *       operators, then {@code max(previous, its tracker's candidate)}, so it never goes back. The
 *       input's {@link WatermarkTracker} computes the candidate with the input's delay and policy.
 *   <li>The global watermark after a batch (W2) is {@code max(current, policy(values))}, the policy
 *       {@link Policy#MIN} (default) or {@link Policy#MAX}, an input without a value counting as 0:
 *       with {@code min} nothing moves until every input has had data.
 *   <li>Ours, not Spark's (W3): the per-input values survive a restart. Spark keeps them in memory
 *       only, so after a restart a {@code min} watermark waits until every input has data again and
 *       a crash changes results; here they are {@linkplain #encode() encoded} beside the global
 *       watermark in the checkpoint and {@linkplain #restore restored}, so a replayed batch starts
 *       from the values batch N-1 ended with.
 * </ul>
 *
 * Values are microseconds (multiples of 1,000, as the trackers make them).
 */
final class MultiInputWatermark {
  /** How the inputs' values make the global watermark ({@code watermark.multiple}). */
  enum Policy {
    MIN,
    MAX;

    /** The policy named in YAML ({@code min} or {@code max}). */
    static Policy of(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT));
    }
  }

  /** An input's value before it has had any row. */
  private static final long NONE = Long.MIN_VALUE;

  private final Policy policy;
  private final List<WatermarkTracker> trackers;
  private final long[] values;

  /**
   * @param trackers one per input, in input order (0 = the main input, 1 = the joined stream)
   */
  MultiInputWatermark(Policy policy, List<WatermarkTracker> trackers) {
    if (trackers.size() < 2) {
      throw new IllegalArgumentException("a multi-input watermark needs two inputs or more");
    }
    this.policy = policy;
    this.trackers = List.copyOf(trackers);
    this.values = new long[trackers.size()];
    Arrays.fill(values, NONE);
  }

  /** The tracker of input {@code index}, to which the batch reports that input's rows. */
  WatermarkTracker input(int index) {
    return trackers.get(index);
  }

  /**
   * Starts a batch that judges late rows with {@code lateMicros}. Each input's tracker starts from
   * the input's own value (none stays none when the input has no row in the batch).
   */
  void begin(long lateMicros) {
    for (int i = 0; i < values.length; i++) {
      trackers.get(i).begin(values[i], lateMicros);
    }
  }

  /**
   * Ends the batch: takes each input's new value from its tracker and returns the global watermark
   * the next batch evicts with.
   *
   * @param currentMicros the global watermark this batch evicted with
   */
  long end(long currentMicros) {
    long chosen = policy == Policy.MIN ? Long.MAX_VALUE : Long.MIN_VALUE;
    for (int i = 0; i < values.length; i++) {
      values[i] = trackers.get(i).nextMicros();
      long counted = values[i] == NONE ? 0 : values[i];
      chosen = policy == Policy.MIN ? Math.min(chosen, counted) : Math.max(chosen, counted);
    }
    return Math.max(currentMicros, chosen);
  }

  /** Input {@code index}'s own value; empty until it has had a row. */
  OptionalLong value(int index) {
    return values[index] == NONE ? OptionalLong.empty() : OptionalLong.of(values[index]);
  }

  /**
   * The inputs' values for the checkpoint: comma-separated, in input order, each a number of
   * microseconds or {@code none} (e.g. {@code 1764547200000000,none}).
   */
  String encode() {
    List<String> parts = new ArrayList<>();
    for (long v : values) {
      parts.add(v == NONE ? "none" : Long.toString(v));
    }
    return String.join(",", parts);
  }

  /**
   * Restores the values {@link #encode()} wrote at the end of the batch before the one about to
   * run.
   *
   * @throws IllegalArgumentException when {@code encoded} is not such a list for this many inputs
   */
  void restore(String encoded) {
    String[] parts = encoded.split(",", -1);
    if (parts.length != values.length) {
      throw new IllegalArgumentException(
          "the checkpoint holds watermarks of "
              + parts.length
              + " inputs ("
              + encoded
              + "), the pipeline has "
              + values.length);
    }
    for (int i = 0; i < parts.length; i++) {
      values[i] = parts[i].equals("none") ? NONE : Long.parseLong(parts[i]);
    }
  }
}
