package dev.tributary.service.stateful;

import java.util.OptionalLong;
import java.util.function.LongFunction;

/**
 * The watermark the stateful operators after a stream-stream join see (rule D1 of
 * docs/STREAM_JOINS_SPARK_RULES.md): {@code max(0, min(stateWM(left), stateWM(right), W))} over the
 * sides' state watermarks that are defined, for the batch's global watermark {@code W}. Applied to
 * {@code W_evict} it is the eviction watermark of the operators after the join, applied to {@code
 * W_late} their late watermark.
 *
 * <p>Read in Spark 4's source: {@code StreamingSymmetricHashJoinExec.produceOutputWatermark}
 * returns the minimum of the two sides' state watermarks ({@code StreamingSymmetricHashJoinHelper
 * .getStateWatermark}: the input watermark itself with a watermark in the join keys, the state
 * value watermark of a side with a watermark of its own, none otherwise) and the input watermark;
 * {@code PropagateWatermarkSimulator} ({@code WatermarkPropagator.scala}) makes that the input
 * watermark of the next stateful operator, skips the propagation (every operator gets 0) when the
 * global watermark is 0, floors every operator's input watermark at 0 ({@code getInputWatermark}),
 * and gives an operator batch N-1's value to judge late rows ({@code
 * getInputWatermarkForLateEvents}) and batch N's to evict ({@code getInputWatermarkForEviction}).
 */
final class DownstreamWatermark {
  private final LongFunction<OptionalLong> left;
  private final LongFunction<OptionalLong> right;

  /** The join's sides' state watermarks as functions of {@code W_evict} (micros). */
  DownstreamWatermark(LongFunction<OptionalLong> left, LongFunction<OptionalLong> right) {
    this.left = left;
    this.right = right;
  }

  /** The downstream watermark of {@code definition}'s join. */
  static DownstreamWatermark of(StreamJoinDefinition definition) {
    return new DownstreamWatermark(
        definition.left().stateWatermark(), definition.right().stateWatermark());
  }

  /**
   * The operators' watermark for the global watermark {@code watermarkMicros} (0 before the first
   * one is computed, as in Spark).
   */
  long micros(long watermarkMicros) {
    long out = watermarkMicros;
    OptionalLong l = left.apply(watermarkMicros);
    if (l.isPresent()) {
      out = Math.min(out, l.getAsLong());
    }
    OptionalLong r = right.apply(watermarkMicros);
    if (r.isPresent()) {
      out = Math.min(out, r.getAsLong());
    }
    return Math.max(0, out);
  }
}
