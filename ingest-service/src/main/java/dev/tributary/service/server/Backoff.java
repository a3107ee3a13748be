package dev.tributary.service.server;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff between restarts of a pipeline after transient failures: the first retry
 * waits {@code initial}, each further one twice as long, never more than {@code max}.
 *
 * @param initial delay before the first retry, positive
 * @param max the longest delay, at least {@code initial}
 */
public record Backoff(Duration initial, Duration max) {

  /** Checks that both delays are positive and ordered. */
  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("backoff initial delay must be positive, was " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "backoff max delay " + max + " is shorter than the initial delay " + initial);
    }
  }

  /** The delay before retry number {@code attempt} (1 = the first retry). */
  public Duration delay(int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("retry attempts count from 1, was " + attempt);
    }
    // Doubling past 2^30 overflows long nanos long before it matters: cap the exponent.
    int exponent = Math.min(attempt - 1, 30);
    Duration d = initial.multipliedBy(1L << exponent);
    return d.compareTo(max) > 0 || d.isNegative() ? max : d;
  }
}
