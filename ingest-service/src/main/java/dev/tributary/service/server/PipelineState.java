package dev.tributary.service.server;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a pipeline is in its life; reported by the REST API, health and metrics. A state changes
 * only to one of its {@link #successors()}; {@link #checkMove} refuses any other change (as Kafka
 * Streams' {@code StreamThread.State} does), so that a state seen by an operator always came about
 * the one documented way.
 *
 * <pre>
 *                    start
 *   STOPPED, IDLE, ──────────> STARTING ──(run opened)──> RUNNING
 *   FAILED                        │                        │   ^
 *                                 │ transient failure      │   │ a batch completes, or a round
 *                                 │                        │   │ ends waiting for the trigger
 *                                 v                        v   │
 *                              DEGRADED <──(transient failure, or no progress for stall-after)
 *
 *   STARTING, RUNNING, DEGRADED ──(stop)──────────────────> STOPPED
 *   STARTING, RUNNING, DEGRADED ──(permanent failure, or the outage limit of run)──> FAILED
 *   RUNNING, DEGRADED ──(a finite run ends: available-now, once)──> IDLE
 * </pre>
 *
 * <table>
 *   <caption>Transitions</caption>
 *   <tr><th>From</th><th>To</th></tr>
 *   <tr><td>STARTING</td><td>RUNNING, DEGRADED, STOPPED, FAILED</td></tr>
 *   <tr><td>RUNNING</td><td>DEGRADED, IDLE, STOPPED, FAILED</td></tr>
 *   <tr><td>DEGRADED</td><td>RUNNING, IDLE, STOPPED, FAILED</td></tr>
 *   <tr><td>IDLE, STOPPED, FAILED</td><td>STARTING</td></tr>
 * </table>
 *
 * <p>A pipeline stays DEGRADED through the restarts of an outage (the backoff wait and the next
 * attempt's opening included): it becomes RUNNING again only once a run shows it works, so that an
 * alert on DEGRADED does not flap with every restart attempt.
 */
public enum PipelineState {
  /** A run is being opened (checkpoint recovery, tables, Kafka consumer). */
  STARTING,
  /** Batches are running. */
  RUNNING,
  /**
   * The pipeline is trying but cannot reach its source or sink: a run failed with a transient error
   * (the next attempt starts after a backoff delay), or a run has made no progress for the stall
   * threshold (planning, reading or committing gets no answer). The reason says what, since when
   * and the last error; the status shows the time since the last successful batch.
   */
  DEGRADED,
  /** A finite run (available-now, once) finished; schedules or the REST API may start another. */
  IDLE,
  /** Stopped on request (REST or shutdown); {@code start} resumes from the checkpoint. */
  STOPPED,
  /**
   * Stopped by a permanent failure (or, for {@code run}, an outage longer than its limit); the
   * reason says how to fix it. Restarted only by {@code start}.
   */
  FAILED;

  /** The states this one may change to. */
  public Set<PipelineState> successors() {
    return switch (this) {
      case STARTING -> EnumSet.of(RUNNING, DEGRADED, STOPPED, FAILED);
      case RUNNING -> EnumSet.of(DEGRADED, IDLE, STOPPED, FAILED);
      case DEGRADED -> EnumSet.of(RUNNING, IDLE, STOPPED, FAILED);
      case IDLE, STOPPED, FAILED -> EnumSet.of(STARTING);
    };
  }

  /** Whether a run (or the wait before its next attempt) is in progress in this state. */
  public boolean active() {
    return this == STARTING || this == RUNNING || this == DEGRADED;
  }

  /**
   * Checks that {@code pipeline} may change from this state to {@code next}.
   *
   * @throws IllegalStateException naming the pipeline and both states if it may not
   */
  public void checkMove(String pipeline, PipelineState next) {
    if (!successors().contains(next)) {
      throw new IllegalStateException(
          "Pipeline "
              + pipeline
              + " cannot change from "
              + this
              + " to "
              + next
              + ": "
              + this
              + " may only change to "
              + successors()
              + ". This is a bug in the supervisor; please report it with the log.");
    }
  }
}
