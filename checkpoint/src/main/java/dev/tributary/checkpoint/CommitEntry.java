package dev.tributary.checkpoint;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The record that a batch is done (file {@code commits/<batchId>}): its output is in the table and
 * its state is stored. Written after the table commit; its absence after a crash means the batch
 * must be replayed.
 *
 * @param batchId the batch number; an offsets entry with that number must exist
 * @param nextWatermarkMicros the watermark computed at the end of this batch, applied by the next
 *     one (microseconds since the epoch), or empty if no event time has been seen yet
 * @param committedAt when the batch completed
 * @param extras free-form values, e.g. {@code "table-version" -> "42"}
 */
public record CommitEntry(
    long batchId,
    OptionalLong nextWatermarkMicros,
    Instant committedAt,
    Map<String, String> extras) {

  public CommitEntry {
    if (batchId < 0) {
      throw new IllegalArgumentException("batchId must be >= 0, got " + batchId);
    }
    Objects.requireNonNull(nextWatermarkMicros, "nextWatermarkMicros");
    Objects.requireNonNull(committedAt, "committedAt");
    extras = SortedMaps.copy(extras, "extras");
  }
}
