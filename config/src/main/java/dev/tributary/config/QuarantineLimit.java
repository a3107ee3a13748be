package dev.tributary.config;

/**
 * The {@code quarantine.max-fraction} threshold: a batch that sends a larger share of its records
 * to the quarantine table fails the pipeline before anything of it is committed
 * (docs/SCHEMA_EVOLUTION.md).
 *
 * @param maxFraction in (0, 1]: the largest accepted share of quarantined records per batch
 */
public record QuarantineLimit(double maxFraction) {
  /** Checks the range. */
  public QuarantineLimit {
    if (!(maxFraction > 0 && maxFraction <= 1)) {
      throw new IllegalArgumentException(
          "quarantine.max-fraction must be in (0, 1], was " + maxFraction);
    }
  }

  /** True when {@code quarantined} of {@code read} records is more than the threshold allows. */
  public boolean exceededBy(long quarantined, long read) {
    return read > 0 && (double) quarantined / read > maxFraction;
  }
}
