package dev.tributary.service.server;

import dev.tributary.storage.retry.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff between restarts of a pipeline after transient failures: the first retry
 * waits {@code initial}, each further one twice as long, never more than {@code max} — the shared
 * {@link RetryPolicy}'s schedule, for the supervisor's own restart loop.
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

  /**
   * The delay before retry number {@code attempt} (1 = the first retry): the shared retry policy's
   * backoff ({@link RetryPolicy#delayBeforeRetry}), so restarts back off by the same rule as every
   * other retry in the code base.
   */
  public Duration delay(int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("retry attempts count from 1, was " + attempt);
    }
    return RetryPolicy.named("pipeline.restart")
        .withBackoff(initial, max)
        .delayBeforeRetry(attempt);
  }
}
