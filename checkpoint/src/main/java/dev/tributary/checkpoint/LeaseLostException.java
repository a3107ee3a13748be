package dev.tributary.checkpoint;

/**
 * This process held the checkpoint's lease but another process has taken it over (after this one
 * failed to renew it in time, or with {@code break-lease}): it must not write to the checkpoint any
 * more. Thrown by {@link Checkpoint#writeOffsets}, {@link Checkpoint#writeCommit} and {@link
 * Checkpoint#purge} of a checkpoint {@linkplain Checkpoint#fencedBy fenced} by the lease, before
 * anything is written. The message names the new owner and when it took over.
 */
public final class LeaseLostException extends CheckpointException {
  /** An exception with a complete user-facing message. */
  public LeaseLostException(String message) {
    super(message);
  }
}
