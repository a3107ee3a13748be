package dev.tributary.table;

/**
 * Cumulative counters of one {@link DeltaTable} instance, for metrics.
 *
 * @param attempts put-if-absent attempts
 * @param commits successful commits
 * @param lostRaces attempts that found the version already taken by another writer
 * @param retries attempts after the first, for any reason
 * @param conflicts commits that failed with a {@link CommitConflictException}
 * @param unknownStates I/O errors of unknown outcome on the commit put
 * @param skipped commits skipped because the transaction was already in the table
 * @param checkpoints log checkpoints written
 * @param checkpointFailures checkpoints that failed (the commits themselves succeeded)
 */
public record CommitCounters(
    long attempts,
    long commits,
    long lostRaces,
    long retries,
    long conflicts,
    long unknownStates,
    long skipped,
    long checkpoints,
    long checkpointFailures) {

  /** No commit yet. */
  public static final CommitCounters ZERO = new CommitCounters(0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** These counters and {@code other}'s, added up (the tables of a sink made of several). */
  public CommitCounters plus(CommitCounters other) {
    return new CommitCounters(
        attempts + other.attempts,
        commits + other.commits,
        lostRaces + other.lostRaces,
        retries + other.retries,
        conflicts + other.conflicts,
        unknownStates + other.unknownStates,
        skipped + other.skipped,
        checkpoints + other.checkpoints,
        checkpointFailures + other.checkpointFailures);
  }
}
