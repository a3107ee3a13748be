package dev.tributary.service.exchange;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.service.engine.WatermarkAgreement;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The watermark the sub-pipelines of a stateful group-mode pipeline agree on (docs/DESIGN.md, "The
 * agreed watermark"): the minimum over ALL repartition partitions {@code 0..N-1}, owned here or
 * not, of the watermark each partition's latest commits entry records ({@code
 * nextWatermarkMicros}); none until every partition has recorded one. Minimum, so that a row is
 * late only against the progress of its own partition, never against a faster instance's.
 *
 * <p>Read from the sub-checkpoints, so every instance computes the same value: {@link #refresh}
 * reads each partition's latest commits entry once (a listing and one small file per partition),
 * once per round of {@link PartitionPipelines}; {@link #agreed} answers from that reading.
 */
public final class AgreedWatermark implements WatermarkAgreement {
  /** Opens (and caches) the checkpoint of a partition. */
  interface Checkpoints {
    Checkpoint of(int partition) throws IOException;
  }

  private final Checkpoints checkpoints;
  private final int partitions;
  private volatile OptionalLong agreed = OptionalLong.empty();
  private boolean read;

  AgreedWatermark(Checkpoints checkpoints, int partitions) {
    this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
    this.partitions = partitions;
  }

  /** Reads every partition's latest commits entry again and returns the agreed watermark. */
  public OptionalLong refresh() throws IOException {
    List<Optional<CommitEntry>> latest = new ArrayList<>(partitions);
    for (int n = 0; n < partitions; n++) {
      latest.add(checkpoints.of(n).latestCommit());
    }
    agreed = minimum(latest);
    read = true;
    return agreed;
  }

  /** The agreed watermark of the last {@link #refresh} (which runs now if it never did). */
  @Override
  public OptionalLong agreed(OptionalLong own) throws IOException {
    return read ? agreed : refresh();
  }

  /** The last value read, without reading. */
  public OptionalLong current() {
    return agreed;
  }

  /**
   * The minimum of every partition's recorded watermark; empty if one has none (or no commit yet).
   */
  static OptionalLong minimum(List<Optional<CommitEntry>> latestCommits) {
    long min = Long.MAX_VALUE;
    for (Optional<CommitEntry> commit : latestCommits) {
      if (commit.isEmpty() || commit.get().nextWatermarkMicros().isEmpty()) {
        return OptionalLong.empty();
      }
      min = Math.min(min, commit.get().nextWatermarkMicros().getAsLong());
    }
    return latestCommits.isEmpty() ? OptionalLong.empty() : OptionalLong.of(min);
  }
}
