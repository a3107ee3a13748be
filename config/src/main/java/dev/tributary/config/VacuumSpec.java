package dev.tributary.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code maintenance.vacuum} section.
 *
 * <p>Retention floor: a retention under {@link #MINIMUM_RETENTION} (Delta's own floor, enforced by
 * Spark's {@code spark.databricks.delta.retentionDurationCheck.enabled}) is refused unless {@code
 * retention-check: false} is declared. Vacuum judges a file nobody references by its modification
 * time, so a short retention deletes the Parquet files a running batch has written but not yet
 * committed, and files an older snapshot that a reader still scans references. A {@code VacuumSpec}
 * below the floor with the check enabled cannot be constructed, so every vacuum path (the {@code
 * vacuum} command, REST and the schedule) gets the same guarantee.
 *
 * @param schedule a Spring cron expression with six fields, seconds first ({@code "0 0 3 * * *"})
 * @param retention files no snapshot of this age references are deleted (default 7 days)
 * @param retentionCheck whether a retention under {@link #MINIMUM_RETENTION} is refused (default
 *     true; {@code maintenance.vacuum.retention-check})
 */
public record VacuumSpec(String schedule, Duration retention, boolean retentionCheck) {

  /** The default of {@code retention}, Delta's own default. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  /** The shortest retention accepted while {@code retention-check} is on (Delta's floor). */
  public static final Duration MINIMUM_RETENTION = Duration.ofDays(7);

  /** Checks the retention is positive, and not under the floor unless the check is off. */
  public VacuumSpec {
    Objects.requireNonNull(schedule, "schedule");
    if (Objects.requireNonNull(retention, "retention").isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("vacuum retention must be positive");
    }
    if (retentionCheck && belowFloor(retention)) {
      throw new IllegalArgumentException(
          "vacuum retention "
              + Durations.format(retention)
              + " is under the minimum of "
              + Durations.format(MINIMUM_RETENTION)
              + "; set maintenance.vacuum.retention-check: false to allow it");
    }
  }

  /** A vacuum with the retention check on. */
  public VacuumSpec(String schedule, Duration retention) {
    this(schedule, retention, true);
  }

  /** Whether {@code retention} is under {@link #MINIMUM_RETENTION}. */
  public static boolean belowFloor(Duration retention) {
    return retention.compareTo(MINIMUM_RETENTION) < 0;
  }

  /** Whether this vacuum runs with a retention under the floor (the check was turned off). */
  public boolean unsafeRetention() {
    return belowFloor(retention);
  }
}
