package dev.tributary.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code trigger} section: when micro-batches run. Written {@code { processing-time: 30s }},
 * {@code { available-now: true }} or {@code { once: true }}; the default is processing time every
 * 10s.
 */
public sealed interface TriggerSpec {

  /** The trigger used when the file declares none. */
  TriggerSpec DEFAULT = new ProcessingTime(Duration.ofSeconds(10));

  /**
   * A batch starts every {@code interval} (immediately when the previous one overran it).
   *
   * @param interval the batch interval, positive
   */
  record ProcessingTime(Duration interval) implements TriggerSpec {
    /** Checks the interval is positive. */
    public ProcessingTime {
      if (Objects.requireNonNull(interval, "interval").isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("a processing-time interval must be positive");
      }
    }
  }

  /**
   * Process everything available at start in as many batches as the rate limit needs, then stop.
   */
  record AvailableNow() implements TriggerSpec {}

  /** Process everything available at start in one batch, then stop. */
  record Once() implements TriggerSpec {}
}
