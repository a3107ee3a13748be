package dev.tributary.service.server;

/**
 * Where a range backfill job of serve mode stands. RUNNING moves to exactly one of the others,
 * once; the others are final.
 */
public enum BackfillJobState {
  /** Its thread is planning or running batches. */
  RUNNING,
  /** The range is written; the summary says what was done. */
  SUCCEEDED,
  /** It ended with an error, which says why; posting the same request again continues it. */
  FAILED,
  /** Stopped on request after its batch in progress; posting the same request continues it. */
  STOPPED;

  /** Whether the job has ended. */
  boolean ended() {
    return this != RUNNING;
  }
}
