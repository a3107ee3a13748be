package dev.tributary.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code maintenance.vacuum} section.
 *
 * @param schedule a Spring cron expression with six fields, seconds first ({@code "0 0 3 * * *"})
 * @param retention files no snapshot of this age references are deleted (default 7 days)
 */
public record VacuumSpec(String schedule, Duration retention) {

  /** The default of {@code retention}, Delta's own default. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  /** Checks the retention is positive. */
  public VacuumSpec {
    Objects.requireNonNull(schedule, "schedule");
    if (Objects.requireNonNull(retention, "retention").isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("vacuum retention must be positive");
    }
  }
}
