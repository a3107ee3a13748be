package dev.tributary.table;

/**
 * A fenced commit ({@link DeltaTable#newFencedAppend}) found one of its positions moved by another
 * writer: the table does not hold the version the commit expected, or a concurrent commit recorded
 * it. Nothing of ours was committed and retrying the same commit can never succeed; the caller must
 * re-read the positions and redo its work from there (or leave the position to its new owner).
 */
public final class PositionConflictException extends CommitConflictException {
  private final String appId;

  public PositionConflictException(String appId, String message) {
    super(message);
    this.appId = appId;
  }

  /** The position that moved. */
  public String appId() {
    return appId;
  }
}
