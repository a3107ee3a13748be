package dev.tributary.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code watermark} section: the event-time watermark is the largest event time seen minus the
 * delay, computed at the end of a batch and applied to the next.
 *
 * @param column the timestamp column holding the event time
 * @param delay how late an event may arrive and still count; zero or more
 */
public record WatermarkSpec(String column, Duration delay) {

  /** Checks the delay is not negative. */
  public WatermarkSpec {
    Objects.requireNonNull(column, "column");
    if (Objects.requireNonNull(delay, "delay").isNegative()) {
      throw new IllegalArgumentException("a watermark delay cannot be negative");
    }
  }
}
