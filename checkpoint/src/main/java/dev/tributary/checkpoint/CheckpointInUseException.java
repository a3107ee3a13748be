package dev.tributary.checkpoint;

import java.util.Objects;

/**
 * A start was refused because another process holds the checkpoint's lease and keeps renewing it.
 * The message names the pipeline, the checkpoint, the owner (host, pid, since when), when the lease
 * expires if the owner stopped renewing it, and what to do. Retrying succeeds once the owner stops
 * (a graceful stop releases the lease) or its lease expires.
 */
public final class CheckpointInUseException extends CheckpointException {
  private final transient Lease holder;

  /** An exception with a complete user-facing message about the live lease {@code holder}. */
  public CheckpointInUseException(String message, Lease holder) {
    super(message);
    this.holder = Objects.requireNonNull(holder, "holder");
  }

  /** The lease that is in force. */
  public Lease holder() {
    return holder;
  }
}
