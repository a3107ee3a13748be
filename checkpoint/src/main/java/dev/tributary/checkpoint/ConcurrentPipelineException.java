package dev.tributary.checkpoint;

/**
 * Another process wrote a different entry for the same batch: two instances run one pipeline on one
 * checkpoint. The caller must stop this instance; continuing could not be exactly-once.
 */
public final class ConcurrentPipelineException extends CheckpointException {
  /** An exception with a complete user-facing message. */
  public ConcurrentPipelineException(String message) {
    super(message);
  }
}
