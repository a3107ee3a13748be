package dev.tributary.checkpoint.internal;

import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.ConcurrentPipelineException;
import dev.tributary.checkpoint.CorruptCheckpointException;
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
        "Inconsistent checkpoint in " + location + ": " + problem
            + ". The checkpoint was modified by hand or by a tool that does not follow its"
            + " protocol; restore it from a backup or start a new checkpoint location.");
  }

  /**
   * The declaration changed incompatibly. {@code changes} are rendered as "part changed from
   * [old] to [new]".
   */
  public static CheckpointMismatchException mismatch(
      String pipelineId, String location, List<String> changedParts, List<String> changes) {
    return new CheckpointMismatchException(
        "Cannot start pipeline " + pipelineId + ": the checkpoint in " + location
            + " was written by a different declaration (" + String.join("; ", changes)
            + "); start a new checkpoint location or restore the old declaration.",
        changedParts);
  }

  /** Another process created the same log entry with different content. */
  public static ConcurrentPipelineException concurrentWriter(
      String pipelineId, String location, String key, String existing, String ours) {
    return new ConcurrentPipelineException(
        "Pipeline " + pipelineId + ": checkpoint file '" + key + "' in " + location
            + " was already written by another process with different content (found " + existing
            + ", this process wrote " + ours + "). Two instances are running this pipeline on one"
            + " checkpoint; stop all but one of them, then restart it.");
  }

  /** A batch written out of order: the engine's run loop broke the write-ahead protocol. */
  public static IllegalStateException outOfOrder(
      String pipelineId, String location, String problem) {
    return new IllegalStateException(
        "Pipeline " + pipelineId + ", checkpoint " + location + ": " + problem
            + ". Call Checkpoint.recover() at start and follow its plan: replay or resume.");
  }
}
