package dev.tributary.service.source;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Decides how far each partition advances in one batch. Without a limit every partition reads up to
 * its latest offset. With {@code max-offsets-per-trigger} the limit is split across partitions in
 * proportion to their backlog (like Spark's Kafka source), so a lagging partition catches up faster
 * than a nearly idle one and no partition with a backlog is starved: each gets at least one offset.
 *
 * <p>Pure and deterministic: the same inputs always give the same plan, which matters because the
 * plan is written ahead to the offsets log and must not depend on timing.
 */
public final class OffsetPlanner {
  private OffsetPlanner() {}

  /**
   * @param starts the next offset to read per partition
   * @param latest the latest available offset (exclusive end) per partition
   * @param maxOffsets optional total limit for this batch across all partitions
   * @return the end offset (exclusive) per partition, with {@code start <= end <= latest}
   */
  public static Map<TopicPartition, Long> ends(
      Map<TopicPartition, Long> starts, Map<TopicPartition, Long> latest, OptionalLong maxOffsets) {
    Map<TopicPartition, Long> backlog = new LinkedHashMap<>();
    long total = 0;
    for (var e : starts.entrySet()) {
      long available = Math.max(0, latest.getOrDefault(e.getKey(), e.getValue()) - e.getValue());
      backlog.put(e.getKey(), available);
      total += available;
    }
    Map<TopicPartition, Long> ends = new LinkedHashMap<>();
    if (maxOffsets.isEmpty() || total <= maxOffsets.getAsLong()) {
      backlog.forEach((tp, n) -> ends.put(tp, starts.get(tp) + n));
      return ends;
    }
    long limit = maxOffsets.getAsLong();
    Map<TopicPartition, Long> share = new LinkedHashMap<>();
    long assigned = 0;
    for (var e : backlog.entrySet()) {
      long n = e.getValue();
      // floor of the proportional share, but at least one offset for any partition with a backlog
      long s = n == 0 ? 0 : Math.max(1, (long) Math.floor((double) limit * n / total));
      s = Math.min(s, n);
      share.put(e.getKey(), s);
      assigned += s;
    }
    // Hand out what flooring left over, biggest remaining backlog first (ties by topic, partition).
    List<TopicPartition> order = new ArrayList<>(backlog.keySet());
    order.sort(
        Comparator.<TopicPartition>comparingLong(tp -> -(backlog.get(tp) - share.get(tp)))
            .thenComparing(TopicPartition::topic)
            .thenComparingInt(TopicPartition::partition));
    long left = limit - assigned;
    for (TopicPartition tp : order) {
      if (left <= 0) {
        break;
      }
      long room = backlog.get(tp) - share.get(tp);
      long extra = Math.min(room, left);
      share.put(tp, share.get(tp) + extra);
      left -= extra;
    }
    share.forEach((tp, s) -> ends.put(tp, starts.get(tp) + s));
    return ends;
  }
}
