package dev.tributary.service.source;

import dev.tributary.checkpoint.OffsetRange;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The ranges one batch will read, and what planning noticed on the way.
 *
 * @param ranges per partition, {@code [start, end)}; partitions with nothing to read have empty
 *     ranges
 * @param latest the latest offset per partition when planned (for lag reporting)
 * @param gaps ranges skipped because retention deleted them (only with fail-on-data-loss: false)
 */
public record SourcePlan(
    Map<TopicPartition, OffsetRange> ranges, Map<TopicPartition, Long> latest, List<DataGap> gaps) {
  public SourcePlan {
    ranges = Map.copyOf(ranges);
    latest = Map.copyOf(latest);
    gaps = List.copyOf(gaps);
  }

  /** Number of offsets the batch covers (records, or fewer with compaction or transactions). */
  public long offsetCount() {
    return ranges.values().stream().mapToLong(OffsetRange::count).sum();
  }

  /** Offsets still unread after this batch, summed over partitions. */
  public long lagAfter() {
    long lag = 0;
    for (var e : ranges.entrySet()) {
      lag += Math.max(0, latest.getOrDefault(e.getKey(), e.getValue().end()) - e.getValue().end());
    }
    return lag;
  }

  /** Offsets {@code [from, to)} of a partition that were deleted before they could be read. */
  public record DataGap(TopicPartition partition, long from, long to) {
    @Override
    public String toString() {
      return partition.topic() + "/" + partition.partition() + "[" + from + "," + to + ")";
    }
  }
}
