package dev.tributary.table;

import dev.tributary.table.data.DataWriteOptions;
import java.time.Clock;
import java.util.Objects;

/**
 * How a {@link DeltaTable} commits and writes.
 *
 * @param logCheckpointInterval write a log checkpoint at every version divisible by this (>= 1)
 * @param commitRetry attempts and backoff for commits
 * @param dataWriteOptions target file size and codec of data files
 * @param clock source of commit timestamps and vacuum's "now"
 */
public record TableOptions(
    int logCheckpointInterval,
    RetryPolicy commitRetry,
    DataWriteOptions dataWriteOptions,
    Clock clock) {
  public TableOptions {
    if (logCheckpointInterval < 1) {
      throw new IllegalArgumentException(
          "logCheckpointInterval must be >= 1, was " + logCheckpointInterval);
    }
    Objects.requireNonNull(commitRetry, "commitRetry");
    Objects.requireNonNull(dataWriteOptions, "dataWriteOptions");
    Objects.requireNonNull(clock, "clock");
  }

  /** Checkpoint every 10 commits, default retries, default data files, the system UTC clock. */
  public static TableOptions defaults() {
    return new TableOptions(
        10, RetryPolicy.defaults(), DataWriteOptions.defaults(), Clock.systemUTC());
  }

  public TableOptions withLogCheckpointInterval(int interval) {
    return new TableOptions(interval, commitRetry, dataWriteOptions, clock);
  }

  public TableOptions withCommitRetry(RetryPolicy policy) {
    return new TableOptions(logCheckpointInterval, policy, dataWriteOptions, clock);
  }

  public TableOptions withDataWriteOptions(DataWriteOptions options) {
    return new TableOptions(logCheckpointInterval, commitRetry, options, clock);
  }

  public TableOptions withClock(Clock newClock) {
    return new TableOptions(logCheckpointInterval, commitRetry, dataWriteOptions, newClock);
  }
}
