package dev.tributary.service.server;

import dev.tributary.service.engine.RunActivity;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The outage bookkeeping of one supervised pipeline ({@link PipelineSupervisor}): whether it is in
 * an outage, since when, why (a failed run or a run without progress), whether the run has moved on
 * since, and the DEGRADED reason. Plain logic on snapshots of the run's {@link RunActivity} and the
 * time given; not thread-safe (the supervisor calls it holding its lock).
 *
 * <p>An outage begins when the run went quiet in the phase that failed or stalled (not when the
 * trouble was noticed: a plan that fails after Kafka's 30 s metadata timeout has been an outage for
 * 30 s) and lasts, through the failures and stalls that follow, until the run moves on: a batch
 * completes, or a round ends waiting for the next trigger.
 */
final class Outage {
  /** The phases in which a run without progress is stuck: opening may legitimately take long. */
  private static final Set<RunActivity.Phase> STALLABLE =
      EnumSet.of(
          RunActivity.Phase.PLANNING, RunActivity.Phase.READING, RunActivity.Phase.COMMITTING);

  /** What went wrong last. */
  private sealed interface Trouble {
    RunActivity.Phase phase();
  }

  private record FailedRun(RunActivity.Phase phase, String description, int attempt, Duration delay)
      implements Trouble {}

  private record NoProgress(RunActivity.Phase phase, Instant quietSince) implements Trouble {}

  /** Whether a reason tells the next restart attempt (not when giving up: there is none). */
  private enum Restart {
    SAID,
    UNSAID
  }

  private final String source;
  private final String sink;
  private final Duration stallAfter;

  // Null outside an outage.
  private Instant since;
  // The run's activity when the last trouble was noticed: a later snapshot that has moved on from
  // it shows that the run works again.
  private RunActivity.Snapshot mark;
  private Trouble trouble;

  /**
   * @param source how the reasons name the source ({@link ServerMessages#source})
   * @param sink how they name the sink table
   */
  Outage(String source, String sink, Duration stallAfter) {
    this.source = source;
    this.sink = sink;
    this.stallAfter = stallAfter;
  }

  /** Whether an outage is in progress. */
  boolean ongoing() {
    return since != null;
  }

  /** A run failed with a transient error; {@code seen} is its activity then. */
  void failed(RunActivity.Snapshot seen, String description, int attempt, Duration delay) {
    note(seen, new FailedRun(seen.phase(), description, attempt, delay));
  }

  /**
   * Notes a stall not noticed yet: the run has shown no progress for the stall threshold while
   * planning, reading or committing.
   *
   * @return whether {@code seen} is such a new stall
   */
  boolean stalled(RunActivity.Snapshot seen, Instant now) {
    if (!STALLABLE.contains(seen.phase())
        || Duration.between(seen.quietSince(), now).compareTo(stallAfter) < 0
        || (trouble instanceof NoProgress known && known.quietSince().equals(seen.quietSince()))) {
      return false;
    }
    note(seen, new NoProgress(seen.phase(), seen.quietSince()));
    return true;
  }

  /**
   * Ends the outage if {@code seen} shows the run working since the last trouble was noticed.
   *
   * @return how long the outage lasted, if it ended
   */
  Optional<Duration> endIfMovedOn(RunActivity.Snapshot seen, Instant now) {
    if (!ongoing()) {
      return Optional.empty();
    }
    boolean movedOn =
        seen.batches() > mark.batches()
            || (seen.phase() == RunActivity.Phase.WAITING && seen.changes() > mark.changes());
    if (!movedOn) {
      return Optional.empty();
    }
    Duration lasted = lasted(now);
    clear();
    return Optional.of(lasted);
  }

  /** How long the outage in progress has lasted. */
  Duration lasted(Instant now) {
    return Duration.between(since, now);
  }

  /** Forgets the outage (the pipeline ended). */
  void clear() {
    since = null;
    mark = null;
    trouble = null;
  }

  /** The DEGRADED reason as of {@code now}: what, for how long, the last trouble, the restart. */
  String reason(Instant now) {
    return describe(now, Restart.SAID);
  }

  /** The reason without the next restart, for a supervisor that gives up. */
  String lastReason(Instant now) {
    return describe(now, Restart.UNSAID);
  }

  private void note(RunActivity.Snapshot seen, Trouble what) {
    if (since == null) {
      since = seen.quietSince();
    }
    mark = seen;
    trouble = what;
  }

  private String describe(Instant now, Restart restart) {
    String detail;
    if (trouble instanceof FailedRun f) {
      detail =
          restart == Restart.SAID
              ? ServerMessages.failedRun(f.description(), f.attempt(), f.delay())
              : f.description();
    } else {
      detail =
          ServerMessages.noProgress(
              trouble.phase(), Duration.between(((NoProgress) trouble).quietSince(), now));
    }
    return ServerMessages.degraded(
        ServerMessages.target(trouble.phase(), source, sink), lasted(now), detail);
  }
}
