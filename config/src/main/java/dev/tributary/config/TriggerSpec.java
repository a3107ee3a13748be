package dev.tributary.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code trigger} section: when micro-batches run. Written {@code { processing-time: 30s }},
 * {@code { available-now: true }} or {@code { once: true }} or {@code { continuous: 1s }}; the
 * default is processing time every 10s.
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

  /**
   * Records are read, transformed and sent as they arrive; progress is made durable every {@code
   * interval} (with exactly-once delivery, each interval is one Kafka transaction). Stateless Kafka
   * to Kafka pipelines only (docs/DESIGN.md, "The continuous trigger").
   *
   * @param interval how often progress is committed, positive
   */
  record Continuous(Duration interval) implements TriggerSpec {
    /** Checks the interval is positive. */
    public Continuous {
      if (Objects.requireNonNull(interval, "interval").isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("a continuous interval must be positive");
      }
    }
  }

  /**
   * Whether the run goes on until stopped ({@code processing-time}, {@code continuous}), rather
   * than ending once the input available at start is processed.
   */
  default boolean unbounded() {
    return this instanceof ProcessingTime || this instanceof Continuous;
  }
}
