package dev.tributary.service.engine;

import dev.tributary.config.QuarantineLimit;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * A batch sent a larger share of its records to the quarantine table than {@code
 * quarantine.max-fraction} allows: usually a producer changed its records and most of them no
 * longer fit the declaration. Thrown before anything of the batch is committed (sink, quarantine or
 * late-events table), so a restart replays the same batch and fails the same way until the
 * declaration or the threshold changes: a permanent failure, not one to retry.
 */
public final class QuarantineLimitExceededException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * @param range the batch's input as its source names it
   * @param sample the error of one quarantined record of the batch (the first), or null
   */
  public QuarantineLimitExceededException(
      String pipelineId,
      long batchId,
      String range,
      long quarantined,
      long read,
      QuarantineLimit limit,
      String sample) {
    super(
        String.format(
            Locale.ROOT,
            "Pipeline %s: batch %d (%s) quarantined %d of %d records (fraction %.4f),"
                + " more than quarantine.max-fraction %s allows; nothing of the batch was committed%s. Look at what the"
                + " producer changed, then fix the declaration (format.json.schema, schema-evolution) or raise"
                + " quarantine.max-fraction; the batch is replayed with the same offsets at the next start.",
            pipelineId,
            batchId,
            range,
            quarantined,
            read,
            (double) quarantined / read,
            stripZeros(limit.maxFraction()),
            sample == null ? "" : ". First error: " + sample));
  }

  private static String stripZeros(double d) {
    return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
  }
}
