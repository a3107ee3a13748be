package dev.tributary.service.server;

import dev.tributary.config.Secrets;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;

/**
 * The state of one pipeline, its reason and since when, changed only along the transitions of
 * {@link PipelineState}. Lives as long as the pipeline (across its runs); thread-safe.
 */
final class PipelineLifecycle {

  /**
   * A consistent view.
   *
   * @param state the current state
   * @param reason why it is FAILED or DEGRADED (null otherwise), secrets masked
   * @param since when it entered the current state
   * @param restarts restarts after transient failures so far
   */
  record Snapshot(PipelineState state, String reason, Instant since, int restarts) {}

  private final String pipeline;
  private final Clock clock;
  private final Secrets secrets;

  // Guarded by this.
  private PipelineState state;
  private String reason;
  private Instant since;
  private int restarts;

  PipelineLifecycle(
      String pipeline, PipelineState initial, String reason, Clock clock, Secrets secrets) {
    this.pipeline = pipeline;
    this.clock = clock;
    this.secrets = secrets;
    this.state = Objects.requireNonNull(initial, "initial");
    this.reason = secrets.mask(reason);
    this.since = clock.instant();
  }

  /**
   * Changes to {@code next} with {@code why} (null for none). Moving to the current state only
   * replaces the reason (a DEGRADED pipeline's reason follows the outage) and keeps {@code since}.
   *
   * @throws IllegalStateException if the state may not change to {@code next}
   */
  synchronized void moveTo(PipelineState next, String why) {
    if (next != state) {
      state.checkMove(pipeline, next);
      state = next;
      since = clock.instant();
    }
    reason = secrets.mask(why);
  }

  /** Counts a restart after a transient failure. */
  synchronized void restarted() {
    restarts++;
  }

  synchronized PipelineState state() {
    return state;
  }

  synchronized Snapshot snapshot() {
    return new Snapshot(state, reason, since, restarts);
  }
}
