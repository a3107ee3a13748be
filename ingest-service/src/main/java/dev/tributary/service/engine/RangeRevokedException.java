package dev.tributary.service.engine;

/**
 * A source that shares its input with other instances (a consumer-group member) lost partitions of
 * the range it was reading: the batch cannot be completed here. The engine drops the batch (its
 * data files become orphans for vacuum) and plans again over what this instance still owns; the new
 * owner continues the lost partitions from the sink table's positions.
 */
public final class RangeRevokedException extends RuntimeException {
  public RangeRevokedException(String message) {
    super(message);
  }
}
