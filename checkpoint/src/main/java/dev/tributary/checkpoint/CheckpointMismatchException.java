package dev.tributary.checkpoint;

import java.util.List;

/**
 * The checkpoint was written for a different pipeline id or declaration: starting would read
 * offsets or state the current declaration cannot interpret. The message lists every changed part,
 * old value to new value.
 */
public final class CheckpointMismatchException extends CheckpointException {
  private final List<String> changedParts;

  /** The message lists the changes; {@code changedParts} their names, for programs. */
  public CheckpointMismatchException(String message, List<String> changedParts) {
    super(message);
    this.changedParts = List.copyOf(changedParts);
  }

  /** Names of the parts that changed incompatibly ({@code "pipeline-id"} for the id), sorted. */
  public List<String> changedParts() {
    return changedParts;
  }
}
