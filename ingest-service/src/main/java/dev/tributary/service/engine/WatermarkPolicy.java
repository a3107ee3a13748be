package dev.tributary.service.engine;

import java.io.IOException;
import java.util.Objects;
import java.util.OptionalLong;

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
}
