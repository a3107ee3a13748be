package dev.tributary.checkpoint.internal;

import dev.tributary.checkpoint.CheckpointMetadata;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Log entries in words, for messages: "batch 7 planned at 2026-11-29T08:00:07Z to read orders/0
 * [700, 800), orders/1 [350, 350), watermark 2026-11-29T08:00:00Z". Never a record's {@code
 * toString}.
 */
public final class EntryDescriptions {
  // Enough partitions to see where two entries differ, few enough to keep a message readable.
  private static final int SHOWN_PARTITIONS = 8;

  private EntryDescriptions() {}

  /** Any log entry in words; an entry of another kind falls back to its string form. */
  public static String describe(Object entry) {
    if (entry instanceof OffsetsEntry o) {
      return offsets(o);
    }
    if (entry instanceof CommitEntry c) {
      return commit(c);
    }
    if (entry instanceof CheckpointMetadata m) {
      return metadata(m);
    }
    return String.valueOf(entry);
  }

  private static String offsets(OffsetsEntry e) {
    StringBuilder out =
        new StringBuilder("batch ")
            .append(e.batchId())
            .append(" planned at ")
            .append(e.plannedAt());
    if (e.ranges().isEmpty()) {
      out.append(" with no offset ranges");
    } else {
      out.append(" to read ").append(ranges(e.ranges()));
    }
    watermark(e.watermarkMicros()).ifPresent(w -> out.append(", watermark ").append(w));
    if (!e.extras().isEmpty()) {
      out.append(", extras ").append(e.extras());
    }
    return out.toString();
  }

  private static String commit(CommitEntry e) {
    StringBuilder out =
        new StringBuilder("batch ")
            .append(e.batchId())
            .append(" committed at ")
            .append(e.committedAt());
    watermark(e.nextWatermarkMicros()).ifPresent(w -> out.append(", next watermark ").append(w));
    if (!e.extras().isEmpty()) {
      out.append(", extras ").append(e.extras());
    }
    return out.toString();
  }

  private static String metadata(CheckpointMetadata m) {
    return "metadata version "
        + m.version()
        + " of pipeline "
        + m.pipelineId()
        + " written at "
        + m.writtenAt()
        + m.checkpointId().map(id -> ", checkpoint id " + id).orElse("")
        + ", identity "
        + m.identity();
  }

  private static String ranges(Map<SourcePartition, OffsetRange> ranges) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<SourcePartition, OffsetRange> r : ranges.entrySet()) {
      if (parts.size() == SHOWN_PARTITIONS) {
        parts.add("and " + (ranges.size() - SHOWN_PARTITIONS) + " more partitions");
        break;
      }
      parts.add(
          r.getKey().topic()
              + "/"
              + r.getKey().partition()
              + " ["
              + r.getValue().start()
              + ", "
              + r.getValue().end()
              + ")");
    }
    return String.join(", ", parts);
  }

  private static Optional<Instant> watermark(OptionalLong micros) {
    return micros.isPresent()
        ? Optional.of(Instant.EPOCH.plus(micros.getAsLong(), ChronoUnit.MICROS))
        : Optional.empty();
  }
}
