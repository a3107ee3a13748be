package dev.tributary.service.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link Source} planned for the next batch.
 *
 * @param range the range the batch reads, as the offsets log records it
 * @param hasInput whether the range reads anything or records something worth a batch (skipped
 *     input); an idle source plans a range without input, which the engine runs only when the
 *     processor wants a no-data batch (or for the checkpoint's first batch)
 * @param progress per partition, where the range starts and ends and how far the input went when
 *     planned (the lag)
 * @param sourceLag the source's own lag measures after the range, by name (a Delta table: {@code
 *     versionsBehind}, {@code filesBehind}, {@code bytesBehind}); empty when the partitions say it
 *     all (Kafka)
 */
public record PlannedBatch(
    BatchRange range,
    boolean hasInput,
    List<BatchProgress.PartitionProgress> progress,
    Map<String, Long> sourceLag) {
  public PlannedBatch {
    Objects.requireNonNull(range, "range");
    progress = List.copyOf(progress);
    sourceLag = Map.copyOf(sourceLag);
  }

  /** A plan whose lag is its partitions'. */
  public PlannedBatch(
      BatchRange range, boolean hasInput, List<BatchProgress.PartitionProgress> progress) {
    this(range, hasInput, progress, Map.of());
  }

  /**
   * A recorded batch run again after a restart: the latest input when it was planned is not known
   * any more, so the progress reports each partition's range end as the latest.
   */
  public static PlannedBatch replay(BatchRange range) {
    List<BatchProgress.PartitionProgress> progress = new ArrayList<>();
    range
        .offsets()
        .forEach(
            (p, r) ->
                progress.add(
                    new BatchProgress.PartitionProgress(
                        p.topic(), p.partition(), r.start(), r.end(), r.end())));
    return new PlannedBatch(range, true, progress);
  }
}
