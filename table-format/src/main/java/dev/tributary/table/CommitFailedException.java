package dev.tributary.table;

/**
 * A commit was not made within the retry policy's attempts (repeated lost races or I/O errors).
 * Retryable: nothing semantic prevents the commit; try again later.
 *
 * <p>If {@link #stateUnknown()} is true, the last attempt ended in an I/O error after which the log
 * could not be read back: the commit MAY exist. The caller must not clean up data files; a later
 * attempt with the same transaction id resolves it (the table reports it as already committed if it
 * was).
 */
public final class CommitFailedException extends TableException {
  private final boolean stateUnknown;

  public CommitFailedException(String message, boolean stateUnknown, Throwable cause) {
    super(message, cause);
    this.stateUnknown = stateUnknown;
  }

  @Override
  public boolean retryable() {
    return true;
  }

  /** True if the commit may have been written (do not clean up). */
  public boolean stateUnknown() {
    return stateUnknown;
  }
}
