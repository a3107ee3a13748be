package dev.tributary.service.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of serve mode, from Spring properties ({@code tributary.*}, see application.yml).
 *
 * @param pipelinesDir the folder whose {@code *.yaml} / {@code *.yml} files are served
 * @param apiToken the bearer token the pipelines API and the health details require; empty = the
 *     pipelines API and the health details answer on loopback only, mutating endpoints are disabled
 * @param backoff restart delays after transient failures
 * @param shutdownTimeout how long shutdown waits for the batches in progress to finish
 * @param healthTimeout the time bound of each health check (Kafka, object stores)
 * @param healthCacheFor how long the outcome of a remote health check is reused
 * @param stallAfter how long a run may show no progress (planning, reading, committing) before its
 *     pipeline counts as DEGRADED ({@link SupervisorSettings#stallAfter()})
 */
public record ServeSettings(
    Path pipelinesDir,
    Optional<String> apiToken,
    Backoff backoff,
    Duration shutdownTimeout,
    Duration healthTimeout,
    Duration healthCacheFor,
    Duration stallAfter) {

  /** Settings with the default stall threshold ({@link SupervisorSettings#DEFAULT_STALL_AFTER}). */
  public ServeSettings(
      Path pipelinesDir,
      Optional<String> apiToken,
      Backoff backoff,
      Duration shutdownTimeout,
      Duration healthTimeout,
      Duration healthCacheFor) {
    this(
        pipelinesDir,
        apiToken,
        backoff,
        shutdownTimeout,
        healthTimeout,
        healthCacheFor,
        SupervisorSettings.DEFAULT_STALL_AFTER);
  }

  /** Checks that nothing is null; a blank token counts as none. */
  public ServeSettings {
    Objects.requireNonNull(pipelinesDir, "pipelinesDir");
    apiToken = Objects.requireNonNull(apiToken, "apiToken").filter(t -> !t.isBlank());
    Objects.requireNonNull(backoff, "backoff");
    Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
    Objects.requireNonNull(healthTimeout, "healthTimeout");
    Objects.requireNonNull(healthCacheFor, "healthCacheFor");
    Objects.requireNonNull(stallAfter, "stallAfter");
  }

  /** How the supervisors of the served pipelines ride out trouble: never giving up. */
  SupervisorSettings supervisor() {
    return SupervisorSettings.serve(backoff, stallAfter);
  }

  /** Never shows the token. */
  @Override
  public String toString() {
    return "ServeSettings[pipelinesDir="
        + pipelinesDir
        + ", apiToken="
        + (apiToken.isPresent() ? "(set)" : "(none)")
        + ", backoff="
        + backoff
        + ", shutdownTimeout="
        + shutdownTimeout
        + ", healthTimeout="
        + healthTimeout
        + ", healthCacheFor="
        + healthCacheFor
        + ", stallAfter="
        + stallAfter
        + "]";
  }
}
