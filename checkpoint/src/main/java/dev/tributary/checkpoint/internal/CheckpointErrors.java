package dev.tributary.checkpoint.internal;

import dev.tributary.checkpoint.CheckpointInUseException;
import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.ConcurrentPipelineException;
import dev.tributary.checkpoint.CorruptCheckpointException;
import dev.tributary.checkpoint.Lease;
import dev.tributary.checkpoint.LeaseLostException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Every user-facing message of the checkpoint module, built in one place so they stay consistent:
 * what failed, where (location, file, batch) and how to fix it.
 */
public final class CheckpointErrors {
  private CheckpointErrors() {}

  /** A file that cannot be decoded; {@code problem} says what is wrong with it. */
  public static CorruptCheckpointException corrupt(String location, String key, String problem) {
    return new CorruptCheckpointException(
        "Cannot read checkpoint file '" + key + "' in " + location + ": " + problem + ".");
  }

  /** Two files that contradict each other, or a log that breaks its own numbering rules. */
  public static CorruptCheckpointException inconsistent(String location, String problem) {
    return new CorruptCheckpointException(
        "Inconsistent checkpoint in "
            + location
            + ": "
            + problem
            + ". The checkpoint was modified by hand or by a tool that does not follow its"
            + " protocol; restore it from a backup or start a new checkpoint location.");
  }

  /**
   * The declaration changed incompatibly. {@code changes} are rendered as "part changed from [old]
   * to [new]".
   */
  public static CheckpointMismatchException mismatch(
      String pipelineId, String location, List<String> changedParts, List<String> changes) {
    return new CheckpointMismatchException(
        "Cannot start pipeline "
            + pipelineId
            + ": the checkpoint in "
            + location
            + " was written by a different declaration ("
            + String.join("; ", changes)
            + "); restore the old declaration, or start a new checkpoint location (with"
            + " source.kafka.starting-offsets: table to continue after the data the sink table holds).",
        changedParts);
  }

  /** Another process created the same log entry with different content. */
  public static ConcurrentPipelineException concurrentWriter(
      String pipelineId, String location, String key, String existing, String ours) {
    return new ConcurrentPipelineException(
        "Pipeline "
            + pipelineId
            + ": checkpoint file '"
            + key
            + "' in "
            + location
            + " was already written by another process with different content (it holds "
            + existing
            + "; this process wrote "
            + ours
            + "). Two instances are running this pipeline on one"
            + " checkpoint; stop all but one of them, then restart it.");
  }

  /**
   * A start refused because {@code holder} holds the checkpoint's lease and renews it.
   *
   * @param expiresAt when the lease expires if the owner stopped renewing it (store clock)
   * @param left how long that is from now (store clock)
   */
  public static CheckpointInUseException inUse(
      String pipelineId, String location, Lease holder, Instant expiresAt, Duration left) {
    return new CheckpointInUseException(
        "Cannot start pipeline "
            + pipelineId
            + ": its checkpoint "
            + location
            + " is in use by another process ("
            + holder.owner().describe()
            + ", running pipeline "
            + holder.pipelineId()
            + " since "
            + holder.acquiredAt()
            + "). If that process stopped renewing its lease (killed, paused, or its machine is"
            + " down), the lease expires at "
            + expiresAt
            + " (in "
            + seconds(left)
            + ") and a start after that takes the checkpoint over. Two processes must not run"
            + " one pipeline on one checkpoint: stop the other process (a graceful stop releases"
            + " the lease at once) or wait until its lease expires; if its machine is down and you"
            + " cannot wait, break the lease with 'tributary break-lease --pipeline FILE'.",
        holder);
  }

  /**
   * The lease this process held ({@code ours}) was taken over by {@code successor}, or its file is
   * gone ({@code successor} null).
   */
  public static LeaseLostException leaseLost(
      String pipelineId, String location, Lease ours, Lease successor) {
    String how;
    if (successor == null) {
      how =
          "its lease file 'lease/"
              + String.format("%020d", ours.epoch())
              + "' and every later one are gone (deleted by hand?)";
    } else if (successor.brokenEpoch().isPresent()) {
      how =
          "its lease was broken with break-lease ("
              + successor.owner().describe()
              + ") at "
              + successor.acquiredAt();
    } else {
      how =
          "it lost its lease to "
              + successor.owner().describe()
              + " at "
              + successor.acquiredAt()
              + ", which took the checkpoint over after this process had not renewed the lease"
              + " for "
              + seconds(ours.duration())
              + " (paused, or cut off from the store)";
    }
    return new LeaseLostException(
        "Pipeline "
            + pipelineId
            + ": this process ("
            + ours.owner().describe()
            + ") no longer owns checkpoint "
            + location
            + ": "
            + how
            + ". It stops without writing to the checkpoint; the other process continues the"
            + " pipeline. To run the pipeline here instead, stop the other process first.");
  }

  /** A lease that could not be taken because other processes kept taking it first. */
  public static IOException leaseContended(String pipelineId, String location, int attempts) {
    return new IOException(
        "Cannot start pipeline "
            + pipelineId
            + ": "
            + attempts
            + " attempts to take the lease of checkpoint "
            + location
            + " were each won by another process starting at the same time; stop the other"
            + " processes, then start this one again.");
  }

  private static String seconds(Duration d) {
    long millis = Math.max(0, d.toMillis());
    return millis % 1000 == 0
        ? (millis / 1000) + " s"
        : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /** A batch written out of order: the engine's run loop broke the write-ahead protocol. */
  public static IllegalStateException outOfOrder(
      String pipelineId, String location, String problem) {
    return new IllegalStateException(
        "Pipeline "
            + pipelineId
            + ", checkpoint "
            + location
            + ": "
            + problem
            + ". Call Checkpoint.recover() at start and follow its plan: replay or resume.");
  }

  /** The local directory given to a state store holds something else. */
  public static IllegalArgumentException foreignLocalDir(String dir, String marker) {
    return new IllegalArgumentException(
        "State store local directory "
            + dir
            + " is not empty and was not created by a state"
            + " store (no "
            + marker
            + " file in it); give an empty or dedicated directory, since"
            + " the store deletes its contents.");
  }

  /** Two open state stores were given the same local directory. */
  public static IllegalStateException localDirInUse(String operatorId, String dir, String holder) {
    return new IllegalStateException(
        "State store of operator "
            + operatorId
            + " cannot use local directory "
            + dir
            + ": the open state store of operator "
            + holder
            + " uses it. Give every operator"
            + " (and every pipeline) its own directory, or close the other store first.");
  }

  /** The local RocksDB working copy failed. */
  public static UncheckedIOException localStateFailed(
      String operatorId, String dir, String action, Exception cause) {
    return new UncheckedIOException(
        new IOException(
            "State of operator "
                + operatorId
                + ": local working copy in "
                + dir
                + " failed to "
                + action
                + ": "
                + cause.getMessage()
                + ". Check free disk space and permissions of "
                + dir
                + "; the state can be reloaded from the checkpoint.",
            cause));
  }
}
