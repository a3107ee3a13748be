package dev.tributary.table;

import dev.tributary.storage.retry.RetryPolicy;
import dev.tributary.table.data.DataWriteOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link DeltaTable} commits and writes.
 *
 * @param logCheckpointInterval write a log checkpoint at every version divisible by this (>= 1)
 * @param commitRetry the limits of a commit's attempts (site, attempts, backoff, jitter, total
 *     time); what is retried is the commit's own rule (a lost race without conflict, an outcome
 *     settled by reading the log back), whatever this policy's predicate says
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

  /**
   * The commit retries by default, site {@code delta.commit}: 20 attempts, waiting 5-10 ms doubling
   * up to 1-2 s (jitter 0.5), which rides out bursts of concurrent writers.
   */
  public static final RetryPolicy DEFAULT_COMMIT_RETRY =
      RetryPolicy.named("delta.commit")
          .withMaxAttempts(20)
          .withBackoff(Duration.ofMillis(10), Duration.ofSeconds(2))
          .withJitter(0.5);

  /** Checkpoint every 10 commits, default retries, default data files, the system UTC clock. */
  public static TableOptions defaults() {
    return new TableOptions(
        10, DEFAULT_COMMIT_RETRY, DataWriteOptions.defaults(), Clock.systemUTC());
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
