package dev.tributary.table;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how patiently a commit is retried after a lost race or an I/O error: at most {@code
 * maxAttempts} attempts, waiting an exponentially growing, jittered backoff between them, starting
 * at {@code initialBackoff} and capped at {@code maxBackoff}.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "backoff must satisfy 0 <= initial <= max, was " + initialBackoff + " and " + maxBackoff);
    }
  }

  /** 20 attempts, 10 ms doubling up to 2 s: rides out bursts of concurrent writers. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(20, Duration.ofMillis(10), Duration.ofSeconds(2));
  }

  /** The pause before attempt {@code attempt + 1} (attempt counts from 1): full jitter. */
  public Duration backoff(int attempt) {
    long base = initialBackoff.toNanos() << Math.min(attempt - 1, 30);
    long capped = Math.min(Math.max(base, 0), maxBackoff.toNanos());
    return capped == 0
        ? Duration.ZERO
        : Duration.ofNanos(capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1));
  }
}
