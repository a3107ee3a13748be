package dev.tributary.table;

import java.util.concurrent.atomic.LongAdder;

/** The mutable counters behind {@link CommitCounters}. */
final class Counters {
  final LongAdder attempts = new LongAdder();
  final LongAdder commits = new LongAdder();
  final LongAdder lostRaces = new LongAdder();
  final LongAdder retries = new LongAdder();
  final LongAdder conflicts = new LongAdder();
  final LongAdder unknownStates = new LongAdder();
  final LongAdder skipped = new LongAdder();
  final LongAdder checkpoints = new LongAdder();
  final LongAdder checkpointFailures = new LongAdder();

  CommitCounters snapshot() {
    return new CommitCounters(
        attempts.sum(),
        commits.sum(),
        lostRaces.sum(),
        retries.sum(),
        conflicts.sum(),
        unknownStates.sum(),
        skipped.sum(),
        checkpoints.sum(),
        checkpointFailures.sum());
  }
}
