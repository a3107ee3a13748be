package dev.tributary.config;

import java.util.Objects;

/**
 * The {@code maintenance.compaction} section.
 *
 * @param schedule a Spring cron expression with six fields, seconds first ({@code "0 0 * * * *"})
 * @param minFiles a partition is compacted when it has at least this many files smaller than the
 *     target size (default 10, at least 2)
 */
public record CompactionSpec(String schedule, int minFiles) {

  /** The default of {@code min-files}. */
  public static final int DEFAULT_MIN_FILES = 10;

  /** Checks minFiles >= 2. */
  public CompactionSpec {
    Objects.requireNonNull(schedule, "schedule");
    if (minFiles < 2) {
      throw new IllegalArgumentException("min-files must be at least 2");
    }
  }
}
