package dev.tributary.checkpoint.internal;

import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.ConcurrentPipelineException;
import dev.tributary.checkpoint.CorruptCheckpointException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

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
            + " was already written by another process with different content (found "
            + existing
            + ", this process wrote "
            + ours
            + "). Two instances are running this pipeline on one"
            + " checkpoint; stop all but one of them, then restart it.");
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
