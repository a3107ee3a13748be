package dev.tributary.checkpoint;

/**
 * A checkpoint file is empty, truncated, malformed, of an unknown format version, or the files
 * contradict each other (e.g. a commit without its offsets entry). The message names the location,
 * the file and what is wrong. Never ignored: a silently skipped file could replay or lose a batch.
 */
public final class CorruptCheckpointException extends CheckpointException {
  /** An exception with a complete user-facing message. */
  public CorruptCheckpointException(String message) {
    super(message);
  }

  /** An exception with a complete user-facing message and the error that caused it. */
  public CorruptCheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
