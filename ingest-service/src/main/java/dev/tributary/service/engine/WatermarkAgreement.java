package dev.tributary.service.engine;

import java.io.IOException;
import java.util.OptionalLong;

/**
 * The watermark several exclusive sub-pipelines agree on (docs/DESIGN.md, "Stateful pipelines in
 * group mode": the minimum of what every repartition partition recorded). Given to a {@link
 * WriteAheadLog} (through {@link WatermarkPolicy.Agreed}), it decides the watermark each new batch
 * applies, which the engine writes in the batch's offsets entry (so a replay applies it again); the
 * engine never lets it go back below the watermark its last batch applied, and runs a batch without
 * data when it moved past that one.
 */
public interface WatermarkAgreement {
  /**
   * The watermark the next batch applies.
   *
   * @param own the watermark this sub-pipeline computed, from its latest commits entry (empty
   *     before its first commit or without a watermark)
   * @return the agreed watermark in microseconds; empty while there is none yet
   * @throws IOException if the other sub-pipelines' progress cannot be read
   */
  OptionalLong agreed(OptionalLong own) throws IOException;
}
