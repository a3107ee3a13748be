package dev.tributary.service.server;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link PipelineSupervisor} rides out trouble.
 *
 * @param backoff restart delays after transient failures
 * @param stallAfter how long a run may show no progress while planning, reading (no record) or
 *     committing before the pipeline counts as DEGRADED; positive
 * @param maxOutage how long an outage (DEGRADED) may last before the supervisor gives up: the
 *     pipeline is FAILED and {@link PipelineSupervisor#run} throws {@link OutageLimitException};
 *     empty = never give up (serve mode, where the state and the alerts tell the operator)
 * @param awaited whether to wait for a condition only someone else can end (a checkpoint another
 *     process holds, a topic that does not exist yet), or fail at once
 */
public record SupervisorSettings(
    Backoff backoff, Duration stallAfter, Optional<Duration> maxOutage, Awaited awaited) {

  /**
   * What a condition only someone else can end means to the supervisor: a checkpoint that another
   * process holds (its lease, {@code CheckpointInUseException}, or a lease lost to it, {@code
   * LeaseLostException}), or a declared topic the broker does not know ({@code
   * NoSuchTopicException}).
   */
  public enum Awaited {
    /**
     * Wait for it, DEGRADED, restarting with the backoff: a served pipeline whose other owner will
     * stop (a rolling update) or whose lease will expire (a crashed machine), or whose topic is
     * created after the pipeline was deployed.
     */
    WAIT,
    /**
     * Fail at once: {@code run} in a terminal, where the operator started a second process or
     * misspelt a topic.
     */
    FAIL
  }

  /** Settings that wait for what only someone else can end ({@link Awaited#WAIT}). */
  public SupervisorSettings(Backoff backoff, Duration stallAfter, Optional<Duration> maxOutage) {
    this(backoff, stallAfter, maxOutage, Awaited.WAIT);
  }

  /**
   * The default {@link #stallAfter}: above the longest legitimate pause of a healthy run (a Kafka
   * metadata call is bounded by 30 s, a commit takes seconds), so that a slow but working run is
   * not reported DEGRADED.
   */
  public static final Duration DEFAULT_STALL_AFTER = Duration.ofSeconds(60);

  /** Checks that nothing is null and the durations are not negative. */
  public SupervisorSettings {
    Objects.requireNonNull(backoff, "backoff");
    Objects.requireNonNull(stallAfter, "stallAfter");
    Objects.requireNonNull(maxOutage, "maxOutage");
    Objects.requireNonNull(awaited, "awaited");
    if (stallAfter.isNegative() || stallAfter.isZero()) {
      throw new IllegalArgumentException("the stall threshold must be positive, was " + stallAfter);
    }
    if (maxOutage.isPresent() && maxOutage.get().isNegative()) {
      throw new IllegalArgumentException("the outage limit must not be negative, was " + maxOutage);
    }
  }

  /** Serve mode's settings: never give up. */
  static SupervisorSettings serve(Backoff backoff, Duration stallAfter) {
    return new SupervisorSettings(backoff, stallAfter, Optional.empty());
  }
}
