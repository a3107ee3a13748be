package dev.tributary.service.server;

/** Where a served pipeline is in its life; reported by the REST API, health and metrics. */
public enum PipelineState {
  /** A run is being opened (checkpoint recovery, tables, Kafka consumer). */
  STARTING,
  /** Batches are running. */
  RUNNING,
  /** The last run failed with a transient error; the next attempt starts after a backoff delay. */
  RETRYING,
  /** A finite run (available-now, once) finished; schedules or the REST API may start another. */
  IDLE,
  /** Stopped on request (REST or shutdown); {@code start} resumes from the checkpoint. */
  STOPPED,
  /**
   * Stopped by a permanent failure; the reason says how to fix it. Restarted only by {@code start}.
   */
  FAILED
}
