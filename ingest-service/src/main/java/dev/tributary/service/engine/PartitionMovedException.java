package dev.tributary.service.engine;

/**
 * This process no longer owns (part of) the batch it is running: another instance or process took
 * the input over. Raised where the fencing is detected — a consumer group revoked a partition
 * mid-read ({@link RangeRevokedException}), a fenced table commit found another owner's position, a
 * stage-1 Kafka transaction was fenced, another writer won the race for a checkpoint entry — and
 * handled once, by the {@link TriggerLoop}: nothing of the batch became visible in the place that
 * refused it, so a pipeline that shares its input drops the batch and plans again; a pipeline that
 * owns its input alone ends its run (another process is running it).
 *
 * <p>The one type replaces four cause-chain walkers that each kept their own list of fencing
 * exceptions: a new fencing signal is translated here, at the boundary where it is detected.
 */
public class PartitionMovedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what moved and who was first, naming the pipeline and the partitions
   */
  public PartitionMovedException(String message) {
    super(message);
  }

  /**
   * @param message what moved and who was first, naming the pipeline and the partitions
   * @param cause the fencing signal as the component detected it (kept for the logs)
   */
  public PartitionMovedException(String message, Throwable cause) {
    super(message, cause);
  }
}
