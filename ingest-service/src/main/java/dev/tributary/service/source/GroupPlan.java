package dev.tributary.service.source;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * A plan of group assignment whose ranges start at the consumer group's committed offsets (stage 1
 * of a stateful pipeline, docs/DESIGN.md "Stateful pipelines in group mode").
 *
 * @param plan ranges for the partitions assigned to this instance when planned
 * @param committed the group's committed offset of each planned partition that has one; a planned
 *     partition without one starts at the declared starting offsets and must be committed (pinned)
 *     by the batch even if its range is empty
 */
public record GroupPlan(SourcePlan plan, Map<TopicPartition, Long> committed) {
  public GroupPlan {
    committed = Map.copyOf(committed);
  }

  /** The planned partitions without a committed offset. */
  public Set<TopicPartition> unpinned() {
    Set<TopicPartition> out = new TreeSet<>(BrokerMetadata.ORDER);
    out.addAll(plan.ranges().keySet());
    out.removeAll(committed.keySet());
    return out;
  }
}
