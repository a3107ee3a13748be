package dev.tributary.service.source;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The end offsets of a run bounded by time (a backfill): per partition, the first offset whose
 * Kafka timestamp is at or after {@code until} (exclusive end: that record is not read), or the
 * partition's latest offset where no record has reached {@code until} yet. Computed once, at the
 * start of a run, so the run is bounded even while producers keep appending.
 */
final class TimeCeiling {
  private TimeCeiling() {}

  static Map<TopicPartition, Long> at(
      PartitionOffsets offsets, Collection<TopicPartition> partitions, Instant until) {
    Map<TopicPartition, Long> ceiling = new HashMap<>(offsets.latest(partitions));
    // offsetsForTimes leaves out a partition whose records are all older than `until`: it ends at
    // its latest offset (above).
    ceiling.putAll(offsets.firstAtOrAfter(partitions, until));
    return ceiling;
  }

  static Map<TopicPartition, Long> retentionGaps(
      PartitionOffsets offsets, Collection<TopicPartition> partitions, Instant start) {
    Map<TopicPartition, Long> earliest = offsets.earliest(partitions);
    Map<TopicPartition, Long> latest = offsets.latest(partitions);
    Map<TopicPartition, Long> atStart = offsets.firstAtOrAfter(partitions, start);
    Map<TopicPartition, Long> gaps = new TreeMap<>(BrokerMetadata.ORDER);
    earliest.forEach(
        (tp, first) -> {
          // An empty partition (everything deleted) has no record at start: its end is its first.
          long firstAtStart = atStart.getOrDefault(tp, latest.getOrDefault(tp, first));
          if (first > 0 && firstAtStart <= first) {
            gaps.put(tp, first);
          }
        });
    return gaps;
  }
}
