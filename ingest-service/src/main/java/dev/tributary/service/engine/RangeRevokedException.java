package dev.tributary.service.engine;

/**
 * A source that shares its input with other instances (a consumer-group member) lost partitions of
 * the range it was reading: the batch cannot be completed here. The trigger loop drops the batch
 * (its data files become orphans for vacuum) and plans again over what this instance still owns;
 * the new owner continues the lost partitions from where the last committed batch ended.
 */
public final class RangeRevokedException extends PartitionMovedException {
  private static final long serialVersionUID = 1L;

  public RangeRevokedException(String message) {
    super(message);
  }
}
