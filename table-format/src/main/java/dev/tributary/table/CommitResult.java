package dev.tributary.table;

/**
 * What a commit did.
 *
 * @param outcome committed, or skipped because the table already held the transaction
 * @param tableVersion the version we committed; for a skip, the table version in which we saw the
 *     transaction already recorded
 * @param attempts put-if-absent attempts made (0 for a skip detected before any attempt)
 * @param filesAdded files added by the commit (0 for a skip)
 * @param filesRemoved files removed by the commit (0 for a skip)
 */
public record CommitResult(
    Outcome outcome, long tableVersion, int attempts, int filesAdded, int filesRemoved) {

  /** Whether the commit happened. */
  public enum Outcome {
    /** Our actions are the table version {@link #tableVersion()}. */
    COMMITTED,
    /** The table already holds this appId at a version >= ours: nothing was committed. */
    SKIPPED_ALREADY_COMMITTED
  }

  public boolean committed() {
    return outcome == Outcome.COMMITTED;
  }

  static CommitResult skipped(long tableVersion, int attempts) {
    return new CommitResult(Outcome.SKIPPED_ALREADY_COMMITTED, tableVersion, attempts, 0, 0);
  }
}
