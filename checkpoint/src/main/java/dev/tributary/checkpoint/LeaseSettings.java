package dev.tributary.checkpoint;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How a process holds a checkpoint lease.
 *
 * @param duration how long a lease lasts without renewal: after a {@code kill -9} of the owner, a
 *     start on another machine waits at most this long; the owner renews every third of it
 * @param clock the owner's clock, for the times written into the lease file (informational: expiry
 *     is judged by the store's clock)
 */
public record LeaseSettings(Duration duration, Clock clock) {
  /** The default lease duration. */
  public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);

  /** The shortest duration accepted: renewals every third of it must still fit a slow request. */
  public static final Duration MIN_DURATION = Duration.ofSeconds(1);

  public LeaseSettings {
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(clock, "clock");
    if (duration.compareTo(MIN_DURATION) < 0) {
      throw new IllegalArgumentException(
          "a checkpoint lease must last at least " + MIN_DURATION + ", got " + duration);
    }
  }

  /** {@link #DEFAULT_DURATION} and the system clock. */
  public static LeaseSettings defaults() {
    return new LeaseSettings(DEFAULT_DURATION, Clock.systemUTC());
  }

  /** These settings with another duration. */
  public LeaseSettings withDuration(Duration newDuration) {
    return new LeaseSettings(newDuration, clock);
  }

  /** How often the owner renews: a third of the duration, so two renewals may fail in a row. */
  public Duration renewalInterval() {
    return duration.dividedBy(3);
  }
}
