package dev.tributary.checkpoint;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The write-ahead record of one batch (file {@code offsets/<batchId>}): exactly what the batch
 * reads and the watermark it applies, fixed before it reads anything, so that a replay after a
 * crash does exactly the same work.
 *
 * <p>The ranges must list every partition the pipeline reads, including those without new data (an
 * empty range at the current position): the latest entry is where the next batch starts.
 *
 * @param batchId the batch number, zero or more; batches are numbered 0, 1, 2, ... without gaps
 * @param ranges the offsets the batch reads per partition; iterated in partition order
 * @param watermarkMicros the event-time watermark (microseconds since the epoch) the batch applies
 *     to evict state and emit results, or empty if the pipeline has none yet
 * @param lateWatermarkMicros the watermark the batch's stateful operators judge late rows against:
 *     the previous batch's {@code watermarkMicros} (Spark's two watermarks per batch), 0 (the
 *     epoch) when that batch had none but this one has; empty only when {@code watermarkMicros} is;
 *     an entry written before this field existed has the same value as {@code watermarkMicros}
 * @param plannedAt when the batch was planned
 * @param extras free-form values the engine wants back on replay (e.g. a source's own metadata)
 */
public record OffsetsEntry(
    long batchId,
    Map<SourcePartition, OffsetRange> ranges,
    OptionalLong watermarkMicros,
    OptionalLong lateWatermarkMicros,
    Instant plannedAt,
    Map<String, String> extras) {

  public OffsetsEntry {
    if (batchId < 0) {
      throw new IllegalArgumentException("batchId must be >= 0, got " + batchId);
    }
    Objects.requireNonNull(watermarkMicros, "watermarkMicros");
    Objects.requireNonNull(lateWatermarkMicros, "lateWatermarkMicros");
    if (watermarkMicros.isPresent() && lateWatermarkMicros.isEmpty()) {
      // The previous batch had none: late rows are judged against the epoch, Spark's initial
      // watermark. Normalised so that an absent field in the file keeps meaning "an older entry".
      lateWatermarkMicros = OptionalLong.of(0);
    }
    Objects.requireNonNull(plannedAt, "plannedAt");
    // A sorted, unmodifiable copy: iteration order is the file order, and equality is by content.
    ranges = SortedMaps.copy(ranges, "ranges");
    extras = SortedMaps.copy(extras, "extras");
  }

  /** An entry whose late rows are judged against the same watermark it applies. */
  public OffsetsEntry(
      long batchId,
      Map<SourcePartition, OffsetRange> ranges,
      OptionalLong watermarkMicros,
      Instant plannedAt,
      Map<String, String> extras) {
    this(batchId, ranges, watermarkMicros, watermarkMicros, plannedAt, extras);
  }

  /** The end offset of every partition: where the batch after this one starts reading. */
  public Map<SourcePartition, Long> endOffsets() {
    TreeMap<SourcePartition, Long> ends = new TreeMap<>();
    ranges.forEach((p, r) -> ends.put(p, r.end()));
    return Collections.unmodifiableSortedMap(ends);
  }

  /** Total number of offsets the batch covers, over all partitions. */
  public long offsetCount() {
    return ranges.values().stream().mapToLong(OffsetRange::count).sum();
  }
}
