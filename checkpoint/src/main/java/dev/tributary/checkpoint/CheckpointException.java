package dev.tributary.checkpoint;

import java.io.IOException;

/**
 * A checkpoint cannot be used as it is. Subclasses say why; the message always names the checkpoint
 * location and the file or batch concerned, and how to fix it. Never retryable as is: retrying the
 * same call gives the same answer.
 */
public class CheckpointException extends IOException {
  /** An exception with a complete user-facing message. */
  public CheckpointException(String message) {
    super(message);
  }

  /** An exception with a complete user-facing message and the error that caused it. */
  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
