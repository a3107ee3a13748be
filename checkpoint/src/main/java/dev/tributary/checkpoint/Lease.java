package dev.tributary.checkpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One epoch of a checkpoint's lease (file {@code lease/<epoch>}): who holds the checkpoint, since
 * when, and until when if it stops renewing. The file with the highest epoch is the current lease;
 * see {@link CheckpointLease} for the protocol.
 *
 * <p>The times are the owner's clock and are for people to read: whether a lease has expired is
 * judged by the store's clock (the file's modification time plus {@code duration}, against the
 * store's time now), so that hosts whose clocks disagree still agree on it.
 *
 * @param epoch 0, 1, 2, ...: one more than the lease it took over; equals the file name
 * @param pipelineId the pipeline of the owner
 * @param owner who holds it
 * @param acquiredAt when the owner took the lease
 * @param renewedAt when the owner last renewed it
 * @param duration how long the lease lasts after a renewal; the owner renews every third of it
 * @param releasedAt when the owner gave it up (a graceful stop), or empty while it holds it
 * @param brokenEpoch for a lease written by {@code break-lease}: the epoch it broke; such a lease
 *     is released from the start
 */
public record Lease(
    long epoch,
    String pipelineId,
    LeaseOwner owner,
    Instant acquiredAt,
    Instant renewedAt,
    Duration duration,
    Optional<Instant> releasedAt,
    OptionalLong brokenEpoch) {

  public Lease {
    if (epoch < 0) {
      throw new IllegalArgumentException("lease epoch must be >= 0, got " + epoch);
    }
    Objects.requireNonNull(pipelineId, "pipelineId");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(acquiredAt, "acquiredAt");
    Objects.requireNonNull(renewedAt, "renewedAt");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(releasedAt, "releasedAt");
    Objects.requireNonNull(brokenEpoch, "brokenEpoch");
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("lease duration must be positive, got " + duration);
    }
  }

  /**
   * When the lease ends by the owner's clock if it is not renewed: {@code renewedAt + duration}.
   */
  public Instant expiresAt() {
    return renewedAt.plus(duration);
  }

  /** True once the owner gave the lease up (or it was broken): anyone may take it at once. */
  public boolean released() {
    return releasedAt.isPresent();
  }

  /** The same lease, renewed at {@code now}. */
  public Lease asRenewedAt(Instant now) {
    return new Lease(epoch, pipelineId, owner, acquiredAt, now, duration, releasedAt, brokenEpoch);
  }

  /** The same lease, given up at {@code now}. */
  public Lease asReleasedAt(Instant now) {
    return new Lease(
        epoch, pipelineId, owner, acquiredAt, renewedAt, duration, Optional.of(now), brokenEpoch);
  }
}
