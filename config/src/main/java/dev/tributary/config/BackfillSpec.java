package dev.tributary.config;

import java.util.Objects;

/**
 * The {@code backfill} section: in serve mode, an available-now run of the pipeline on a schedule.
 *
 * @param schedule a Spring cron expression with six fields, seconds first ({@code "0 0 2 * * *"})
 */
public record BackfillSpec(String schedule) {

  /** Checks the schedule is not null. */
  public BackfillSpec {
    Objects.requireNonNull(schedule, "schedule");
  }
}
