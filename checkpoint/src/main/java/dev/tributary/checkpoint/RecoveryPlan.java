package dev.tributary.checkpoint;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the engine must do when a pipeline starts, decided from the two logs by {@link
 * Checkpoint#recover()}:
 *
 * <ul>
 *   <li>{@link Action#NONE} (fresh checkpoint): no batch was ever planned; nothing to recover; the
 *       first batch is 0.
 *   <li>{@link Action#RESUME}: the latest planned batch is committed; plan batch {@link
 *       #nextBatchId()} starting at {@link #startOffsets()} with watermark {@link
 *       #watermarkMicros()}.
 *   <li>{@link Action#REPLAY}: the latest planned batch has no commit entry; run it again with
 *       exactly the ranges and watermark of {@link #batchToReplay()}, loading the state version of
 *       the batch before it. The table's {@code txn} decides whether its output is already in.
 * </ul>
 *
 * @param action the decision
 * @param latestOffsets the latest offsets entry, empty only for {@code NONE}
 * @param latestCommit the latest commit entry, empty if no batch was ever committed
 */
public record RecoveryPlan(
    Action action, Optional<OffsetsEntry> latestOffsets, Optional<CommitEntry> latestCommit) {

  /** The three possible decisions. */
  public enum Action {
    NONE,
    RESUME,
    REPLAY
  }

  public RecoveryPlan {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(latestOffsets, "latestOffsets");
    Objects.requireNonNull(latestCommit, "latestCommit");
    if ((action == Action.NONE) != latestOffsets.isEmpty()) {
      throw new IllegalArgumentException(action + " with latestOffsets " + latestOffsets);
    }
    if (action == Action.RESUME
        && latestCommit.map(c -> c.batchId() != latestOffsets.get().batchId()).orElse(true)) {
      throw new IllegalArgumentException("RESUME needs a commit for the latest offsets entry");
    }
  }

  /**
   * The id of the next batch the engine runs: 0 when fresh, the replayed batch's id for {@code
   * REPLAY}, the latest committed batch + 1 for {@code RESUME}.
   */
  public long nextBatchId() {
    return switch (action) {
      case NONE -> 0;
      case REPLAY -> latestOffsets.get().batchId();
      case RESUME -> latestOffsets.get().batchId() + 1;
    };
  }

  /** The batch to run again with exactly these ranges and watermark; present only for REPLAY. */
  public Optional<OffsetsEntry> batchToReplay() {
    return action == Action.REPLAY ? latestOffsets : Optional.empty();
  }

  /**
   * The watermark the next batch applies: the replayed batch's own for {@code REPLAY}, the last
   * commit's next watermark for {@code RESUME}, none when fresh.
   */
  public OptionalLong watermarkMicros() {
    return switch (action) {
      case NONE -> OptionalLong.empty();
      case REPLAY -> latestOffsets.get().watermarkMicros();
      case RESUME -> latestCommit.get().nextWatermarkMicros();
    };
  }

  /**
   * Where the first new batch planned after recovery starts reading, per partition: the end offsets
   * of the latest offsets entry (for {@code REPLAY}, after the replay). Empty when fresh.
   */
  public Map<SourcePartition, Long> startOffsets() {
    return latestOffsets.map(OffsetsEntry::endOffsets).orElse(Map.of());
  }

  /**
   * The state version stateful operators load before running {@link #nextBatchId()}: the state
   * after the batch before it, or empty (the initial, empty state) when that is batch 0.
   */
  public OptionalLong stateVersionToLoad() {
    long next = nextBatchId();
    return next == 0 ? OptionalLong.empty() : OptionalLong.of(next - 1);
  }
}
