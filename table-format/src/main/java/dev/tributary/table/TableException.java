package dev.tributary.table;

/**
 * A table operation failed for a reason the caller must see: an unreadable or unsupported log, a
 * schema mismatch, a commit that could not be made. The message names the table location and the
 * version or file concerned and says how to fix it.
 *
 * <p>{@link #retryable()} tells whether trying the same operation again later may succeed.
 */
public class TableException extends RuntimeException {

  public TableException(String message) {
    super(message);
  }

  public TableException(String message, Throwable cause) {
    super(message, cause);
  }

  /** True if the same operation may succeed when tried again (e.g. after an I/O failure). */
  public boolean retryable() {
    return false;
  }
}
