package dev.tributary.storage.retry;

import dev.failsafe.Execution;
import dev.failsafe.RetryPolicyBuilder;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * How one retry site retries: at most {@code maxAttempts} attempts; between two attempts a wait
 * that starts at {@code initialDelay} and doubles up to {@code maxDelay}, with jitter; no retry
 * that would start later than {@code maxTotalTime} after the first attempt; and only failures that
 * {@code retryOn} accepts are retried (anything else ends the call at once). Each retry is counted
 * under {@code site} in {@link RetryCounters}.
 *
 * <p>Jitter {@code j} (0 to 1) draws each wait uniformly from {@code [(1 - j) * d, d]}, where
 * {@code d} is the exponential delay of that retry: {@code maxDelay} stays the longest wait, and
 * writers that failed together spread out. 0 means exact delays; 0.5 is "equal jitter", 1 "full
 * jitter".
 *
 * <p>A new policy ({@link #named}) retries nothing: a site says what is safe to retry with {@link
 * #retryingOn}. A failure whose outcome is unknown (a write that may have happened) must never be
 * accepted by that predicate unless the attempt itself settles the unknown first (Committer reads
 * the log back before every retry).
 *
 * <p>The policy is a value; {@link #call} runs an action under it. The waits and attempts are
 * computed by Failsafe ({@code dev.failsafe}, docs/DESIGN.md "Retries"); callers never see its API.
 *
 * @param site the low-cardinality name of the retry site, dotted lowercase ({@code delta.commit},
 *     {@code s3.put-if-absent}): the {@code site} tag of the retries metric
 * @param maxAttempts attempts in all, including the first (at least 1)
 * @param initialDelay the wait before the second attempt (zero: no waits at all)
 * @param maxDelay the longest wait, at least {@code initialDelay}
 * @param jitter the share of each wait drawn at random, 0 to 1
 * @param maxTotalTime when present, no retry starts later than this after the first attempt began
 * @param retryOn which failures are retried
 */
public record RetryPolicy(
    String site,
    int maxAttempts,
    Duration initialDelay,
    Duration maxDelay,
    double jitter,
    Optional<Duration> maxTotalTime,
    Predicate<? super Exception> retryOn) {

  public RetryPolicy {
    Objects.requireNonNull(site, "site");
    Objects.requireNonNull(initialDelay, "initialDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    Objects.requireNonNull(maxTotalTime, "maxTotalTime");
    Objects.requireNonNull(retryOn, "retryOn");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException(
          "Retry site " + site + ": maxAttempts must be at least 1, was " + maxAttempts);
    }
    if (initialDelay.isNegative() || maxDelay.compareTo(initialDelay) < 0) {
      throw new IllegalArgumentException(
          "Retry site "
              + site
              + ": delays must satisfy 0 <= initial <= max, were "
              + initialDelay
              + " and "
              + maxDelay);
    }
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException(
          "Retry site " + site + ": jitter must be between 0 and 1, was " + jitter);
    }
    if (maxTotalTime.isPresent()
        && (maxTotalTime.get().isNegative() || maxTotalTime.get().isZero())) {
      throw new IllegalArgumentException(
          "Retry site " + site + ": maxTotalTime must be positive, was " + maxTotalTime.get());
    }
    RetryCounters.declare(site); // checks the name, and shows the site with zero retries
  }

  /**
   * A policy for {@code site} that makes one attempt and retries nothing: set what may be retried
   * with {@link #retryingOn} and the limits with the other {@code with} methods.
   */
  public static RetryPolicy named(String site) {
    return new RetryPolicy(site, 1, Duration.ZERO, Duration.ZERO, 0, Optional.empty(), e -> false);
  }

  /** This policy with at most {@code attempts} attempts in all. */
  public RetryPolicy withMaxAttempts(int attempts) {
    return new RetryPolicy(site, attempts, initialDelay, maxDelay, jitter, maxTotalTime, retryOn);
  }

  /** This policy waiting {@code initial} before the second attempt, doubling up to {@code max}. */
  public RetryPolicy withBackoff(Duration initial, Duration max) {
    return new RetryPolicy(site, maxAttempts, initial, max, jitter, maxTotalTime, retryOn);
  }

  /** This policy with another share of each wait drawn at random (0 to 1). */
  public RetryPolicy withJitter(double share) {
    return new RetryPolicy(site, maxAttempts, initialDelay, maxDelay, share, maxTotalTime, retryOn);
  }

  /** This policy starting no retry later than {@code limit} after the first attempt began. */
  public RetryPolicy withMaxTotalTime(Duration limit) {
    return new RetryPolicy(
        site, maxAttempts, initialDelay, maxDelay, jitter, Optional.of(limit), retryOn);
  }

  /** This policy retrying exactly the failures {@code retryable} accepts. */
  public RetryPolicy retryingOn(Predicate<? super Exception> retryable) {
    return new RetryPolicy(
        site, maxAttempts, initialDelay, maxDelay, jitter, maxTotalTime, retryable);
  }

  /** One attempt of a retried action. */
  @FunctionalInterface
  public interface Attempt<T, E extends Exception> {
    /**
     * Runs the attempt.
     *
     * @param attempt the attempt's number, from 1
     * @return the action's result, which ends the call
     * @throws E a failure: retried if the policy's {@code retryOn} accepts it and the limits allow
     */
    T run(int attempt) throws E;
  }

  /**
   * Runs {@code attempt} until it returns, fails with an exception {@code retryOn} refuses, or the
   * attempts or the total time run out; waits between attempts on the calling thread. An interrupt
   * cuts the current wait short and stays set, so that the next attempt's blocking calls see it;
   * the policy itself does not give up on it.
   *
   * @return the first result an attempt returned
   * @throws E the last attempt's failure, as it was thrown (runtime exceptions too); errors pass
   *     through at once
   */
  public <T, E extends Exception> T call(Attempt<T, E> attempt) throws E {
    return call(attempt, Sleeper.THREAD, System::nanoTime);
  }

  /**
   * The wait before retry {@code retry} (1 = the first) on this policy's backoff, without jitter:
   * the schedule of a caller that runs its own loop between attempts (the supervisor that restarts
   * a pipeline after a transient failure), so that it backs off by the same rule as every other
   * retry. The attempt limit does not apply.
   */
  public Duration delayBeforeRetry(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retries count from 1, was " + retry);
    }
    if (initialDelay.isZero()) {
      return Duration.ZERO;
    }
    RetryPolicyBuilder<Object> schedule =
        dev.failsafe.RetryPolicy.builder().withMaxRetries(-1).handleIf((Throwable t) -> true);
    if (initialDelay.compareTo(maxDelay) < 0) {
      schedule.withBackoff(initialDelay, maxDelay);
    } else {
      schedule.withDelay(initialDelay);
    }
    Execution<Object> execution = Execution.of(schedule.build());
    RuntimeException failed = new RuntimeException("attempt failed");
    for (int n = 1; n < retry && n < 64; n++) { // past 64 doublings every delay is the maximum
      execution.recordException(failed);
    }
    execution.recordException(failed);
    return execution.getDelay();
  }

  /** {@link #call} with its waits and time taken from the given sleeper and nano clock. */
  <T, E extends Exception> T call(Attempt<T, E> attempt, Sleeper sleeper, LongSupplier nanoTime)
      throws E {
    Execution<Object> execution = Execution.of(engine());
    long start = nanoTime.getAsLong();
    for (int n = 1; ; n++) {
      try {
        return attempt.run(n);
      } catch (Exception e) {
        execution.recordException(e);
        Duration wait = execution.getDelay();
        if (execution.isComplete() || pastDeadline(start, nanoTime.getAsLong(), wait)) {
          throw RetryPolicy.<E>rethrow(e);
        }
        RetryCounters.retried(site);
        if (!wait.isZero()) {
          sleeper.sleep(wait);
        }
      }
    }
  }

  private boolean pastDeadline(long start, long now, Duration wait) {
    return maxTotalTime.isPresent()
        && Duration.ofNanos(now - start).plus(wait).compareTo(maxTotalTime.get()) > 0;
  }

  /**
   * The Failsafe policy. Failsafe's jitter spreads a delay {@code d} symmetrically over {@code d *
   * (1 +- f)}; ours takes it from {@code [(1 - j) * d, d]}. The two agree when Failsafe is given
   * the centre {@code d * (1 - j/2)} and the factor {@code (j/2) / (1 - j/2)}; doubling and the cap
   * scale by the same constant, so the whole schedule maps exactly.
   */
  private dev.failsafe.RetryPolicy<Object> engine() {
    RetryPolicyBuilder<Object> builder =
        dev.failsafe.RetryPolicy.builder()
            .withMaxAttempts(maxAttempts)
            .handleIf((Throwable t) -> t instanceof Exception e && retryOn.test(e));
    if (!initialDelay.isZero()) {
      double centre = 1 - jitter / 2;
      Duration initial = scaled(initialDelay, centre);
      Duration max = scaled(maxDelay, centre);
      if (initial.compareTo(max) < 0) {
        builder.withBackoff(initial, max);
      } else {
        builder.withDelay(initial);
      }
      if (jitter > 0) {
        builder.withJitter((jitter / 2) / centre);
      }
    }
    return builder.build();
  }

  private static Duration scaled(Duration d, double factor) {
    return Duration.ofNanos(Math.max(1, Math.round(d.toNanos() * factor)));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> RuntimeException rethrow(Exception e) throws E {
    if (e instanceof RuntimeException r) {
      throw r;
    }
    // Attempt.run declares only E and unchecked exceptions, so a checked one here is an E.
    throw (E) e;
  }

  @Override
  public String toString() {
    return "RetryPolicy["
        + site
        + ": "
        + maxAttempts
        + " attempts, "
        + initialDelay
        + " doubling to "
        + maxDelay
        + ", jitter "
        + jitter
        + maxTotalTime.map(t -> ", at most " + t + " in all").orElse("")
        + "]";
  }
}
