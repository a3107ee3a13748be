package dev.tributary.service.engine;

import java.io.IOException;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;

/**
 * Which watermark a batch of the {@link WriteAheadLog} applies: the one the pipeline computed
 * itself ({@link Own}, every pipeline but a stateful group-mode sub-pipeline), or the one several
 * sub-pipelines agree on ({@link Agreed}, docs/DESIGN.md "Stateful pipelines in group mode").
 * Either way the applied watermark is written in the batch's offsets entry, so a replay applies it
 * again.
 */
public sealed interface WatermarkPolicy {

  /** The pipeline's own watermark: the one the previous batch computed. */
  WatermarkPolicy OWN = new Own();

  /**
   * The watermark the next batch applies.
   *
   * @param own the watermark computed by the latest committed batch
   * @param applied the watermark the latest batch applied
   */
  OptionalLong next(OptionalLong own, OptionalLong applied) throws IOException;

  /**
   * Whether a batch without input is wanted.
   *
   * @param next what the next batch would apply ({@link #next})
   * @param applied the watermark the latest batch applied
   * @param processor asked for its own wish (state the watermark would finalise)
   */
  boolean wantsNoDataBatch(OptionalLong next, OptionalLong applied, RecordProcessor processor);

  /**
   * The watermark the commits entry records as this pipeline's own after a batch.
   *
   * @param previousOwn what the entry before recorded
   * @param computed what the processor computed from the watermark the batch applied
   */
  OptionalLong recorded(OptionalLong previousOwn, OptionalLong computed);

  /** The pipeline computes its watermark from its own rows. */
  record Own() implements WatermarkPolicy {
    @Override
    public OptionalLong next(OptionalLong own, OptionalLong applied) {
      return own;
    }

    @Override
    public boolean wantsNoDataBatch(
        OptionalLong next, OptionalLong applied, RecordProcessor processor) {
      return processor.wantsNoDataBatch();
    }

    @Override
    public OptionalLong recorded(OptionalLong previousOwn, OptionalLong computed) {
      return computed;
    }
  }

  /**
   * Each batch applies what {@code agreement} decides rather than the watermark the previous batch
   * computed: the offsets entry gets {@code agreement.agreed(own)}, never less than the watermark
   * the last batch applied; a batch without input runs when (and only when) the agreed watermark is
   * above the applied one — the processor's own wish follows its own watermark, which the agreement
   * replaces. The commits entry records the sub-pipeline's own watermark, which never goes back
   * either: the processor computes its next watermark from the agreed one it applied (lower than
   * its own), so the recorded one is the max of the previous own one and the processor's.
   *
   * @param agreement the watermark the sub-pipelines agree on
   */
  record Agreed(WatermarkAgreement agreement) implements WatermarkPolicy {
    public Agreed {
      Objects.requireNonNull(agreement, "agreement");
    }

    @Override
    public OptionalLong next(OptionalLong own, OptionalLong applied) throws IOException {
      OptionalLong agreed = agreement.agreed(own);
      if (applied.isPresent() && (agreed.isEmpty() || agreed.getAsLong() < applied.getAsLong())) {
        return applied;
      }
      return agreed;
    }

    @Override
    public boolean wantsNoDataBatch(
        OptionalLong next, OptionalLong applied, RecordProcessor processor) {
      return next.isPresent() && (applied.isEmpty() || next.getAsLong() > applied.getAsLong());
    }

    @Override
    public OptionalLong recorded(OptionalLong previousOwn, OptionalLong computed) {
      if (previousOwn.isEmpty()) {
        return computed;
      }
      if (computed.isEmpty() || computed.getAsLong() < previousOwn.getAsLong()) {
        return previousOwn;
      }
      return computed;
    }
  }

  /**
   * A bounded run's watermark (a backfill, docs/DESIGN.md "Backfills"): the pipeline's own while
   * input remains; once the bounded input is read to its end, at least {@code closingMicros}, so
   * that one last batch without input emits every window ending by then (a live run would wait for
   * later events to move the watermark; a bounded run's input has ended). Like every applied
   * watermark it is written in the batch's offsets entry, so a replay applies the same one.
   *
   * @param drained whether the source's latest plan found nothing left below its end offsets
   * @param closingMicros the watermark once drained (microseconds since the epoch)
   */
  record Closing(BooleanSupplier drained, long closingMicros) implements WatermarkPolicy {
    public Closing {
      Objects.requireNonNull(drained, "drained");
    }

    @Override
    public OptionalLong next(OptionalLong own, OptionalLong applied) {
      if (!drained.getAsBoolean()) {
        return own;
      }
      return OptionalLong.of(Math.max(own.orElse(Long.MIN_VALUE), closingMicros));
    }

    @Override
    public boolean wantsNoDataBatch(
        OptionalLong next, OptionalLong applied, RecordProcessor processor) {
      boolean closes =
          next.isPresent() && (applied.isEmpty() || next.getAsLong() > applied.getAsLong());
      return closes || processor.wantsNoDataBatch();
    }

    @Override
    public OptionalLong recorded(OptionalLong previousOwn, OptionalLong computed) {
      return computed;
    }
  }
}
