package dev.tributary.service.engine;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a pipeline's run is doing now: the phase of its trigger loop and since when, and when its
 * last batch completed. The supervisor reads it to tell a run that works from one that is stuck (an
 * unreachable broker blocks planning or reading without failing for a while), which the batches
 * alone cannot tell: no batch also means no new data.
 *
 * <p>Protocol of a run loop, one line per step: {@code enter(PLANNING)} before planning a batch,
 * {@code enter(READING)} before reading it, {@code enter(COMMITTING)} before its first commit,
 * {@code enter(WAITING)} before waiting for the next trigger, and {@link #progressed()} for each
 * record or row read. The supervisor enters {@link Phase#OPENING} before it opens a run, and {@link
 * ProgressLog#add} records each completed batch. The run's thread writes; any thread reads {@link
 * #snapshot()}.
 */
public final class RunActivity {

  /** The steps of a run's trigger loop. */
  public enum Phase {
    /** The run is being opened: checkpoint recovery, tables, consumers, state restore. */
    OPENING,
    /** A batch is being planned: the source's offsets or the table versions to read. */
    PLANNING,
    /** A planned batch is being read, transformed and written to data files. */
    READING,
    /** A batch's commits are being made: tables, state, checkpoint. */
    COMMITTING,
    /** Waiting for the next trigger; the loop is healthy. */
    WAITING
  }

  /**
   * What the run was doing when the snapshot was taken.
   *
   * @param phase the current phase
   * @param since when the run entered it
   * @param quietSince when the run last showed progress: it entered the phase, or read a record
   *     seen by an earlier snapshot (a record read is noticed at the next snapshot, so this is as
   *     precise as snapshots are frequent)
   * @param lastBatch when the last batch completed (empty before the first one)
   * @param batches batches completed so far
   * @param changes a counter that grows at every phase change and completed batch: a later snapshot
   *     with a greater value has seen the run move on
   */
  public record Snapshot(
      Phase phase,
      Instant since,
      Instant quietSince,
      Optional<Instant> lastBatch,
      long batches,
      long changes) {

    /** Checks that nothing is null. */
    public Snapshot {
      Objects.requireNonNull(phase, "phase");
      Objects.requireNonNull(since, "since");
      Objects.requireNonNull(quietSince, "quietSince");
      Objects.requireNonNull(lastBatch, "lastBatch");
    }
  }

  private final Clock clock;
  // Written by the run's thread only, without a fence: progressed() is called for every record.
  private final AtomicLong reads = new AtomicLong();

  // Guarded by this.
  private Phase phase = Phase.OPENING;
  private Instant since;
  private Instant quietSince;
  private long readsSeen;
  private volatile long readsAtLastBatch;
  private Instant lastBatch;
  private long batches;
  private long changes;

  /** An activity in {@link Phase#OPENING} from now on. */
  public RunActivity(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.since = clock.instant();
    this.quietSince = since;
  }

  /** The run enters {@code next}; entering the current phase again changes nothing. */
  public synchronized void enter(Phase next) {
    if (next == phase) {
      return;
    }
    phase = next;
    since = clock.instant();
    quietSince = since;
    readsSeen = reads.get();
    changes++;
  }

  /** The run read one record or row. Cheap enough for every record: no lock, no fence, no clock. */
  public void progressed() {
    reads.lazySet(reads.get() + 1);
  }

  /** A batch completed (called by {@link ProgressLog#add}). */
  synchronized void batchDone() {
    readsAtLastBatch = reads.get();
    lastBatch = clock.instant();
    quietSince = lastBatch;
    batches++;
    changes++;
  }

  /**
   * The commit lag: records (Kafka offsets, or a Delta source's rows) the run read since its last
   * batch completed, that is, read by the batch in flight and not committed yet. 0 between batches;
   * it stays above 0 while a batch is stuck between its read and its commits, and counts again the
   * records of a batch that failed and is replayed. Read on any thread (the count of the run's
   * thread shows with a little delay).
   */
  public long uncommittedReads() {
    return Math.max(0, reads.get() - readsAtLastBatch);
  }

  /** What the run is doing now. */
  public synchronized Snapshot snapshot() {
    long read = reads.get();
    if (read != readsSeen) {
      readsSeen = read;
      quietSince = clock.instant();
    }
    return new Snapshot(phase, since, quietSince, Optional.ofNullable(lastBatch), batches, changes);
  }

  @Override
  public synchronized String toString() {
    return "RunActivity[" + phase + " since " + since + "]";
  }
}
