package dev.tributary.config;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@code maintenance} section: table upkeep the service schedules.
 *
 * @param compaction scheduled compaction, if declared
 * @param vacuum scheduled vacuum, if declared
 * @param logCheckpointInterval a Delta log checkpoint is written every this many commits (default
 *     10)
 */
public record MaintenanceSpec(
    Optional<CompactionSpec> compaction, Optional<VacuumSpec> vacuum, int logCheckpointInterval) {

  /** The default of {@code log-checkpoint-interval}. */
  public static final int DEFAULT_LOG_CHECKPOINT_INTERVAL = 10;

  /** Maintenance when the file declares none: no schedules, log checkpoints every 10 commits. */
  public static final MaintenanceSpec DEFAULT =
      new MaintenanceSpec(Optional.empty(), Optional.empty(), DEFAULT_LOG_CHECKPOINT_INTERVAL);

  /** Checks the interval is positive. */
  public MaintenanceSpec {
    Objects.requireNonNull(compaction, "compaction");
    Objects.requireNonNull(vacuum, "vacuum");
    if (logCheckpointInterval < 1) {
      throw new IllegalArgumentException("log-checkpoint-interval must be at least 1");
    }
  }
}
