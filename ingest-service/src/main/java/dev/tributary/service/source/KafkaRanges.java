package dev.tributary.service.source;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.source.SourcePlan.DataGap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * A Kafka source's ranges in the engine's terms and back: a {@link SourcePlan} as the {@link
 * BatchRange} the offsets log records (offsets per partition, and the facts {@value
 * KafkaSource#DATA_LOSS}, {@value KafkaSource#TOPIC_IDS} and {@value BatchRange#BACKLOGGED}), a
 * recorded range as Kafka's partitions and offsets, and its names in table history and messages.
 * Pure functions.
 */
final class KafkaRanges {
  private KafkaRanges() {}

  /** The range a plan reads, with its facts. */
  static BatchRange range(SourcePlan plan) {
    Map<SourcePartition, OffsetRange> offsets = new TreeMap<>();
    plan.ranges().forEach((tp, r) -> offsets.put(partition(tp), r));
    return new BatchRange(offsets, facts(plan));
  }

  /**
   * A plan's facts for the offsets log: the data gaps, the topics' ids, and the partitions the plan
   * leaves behind (range end before the latest offset when planned), which the processor is told
   * and a replay must see again.
   */
  static Map<String, String> facts(SourcePlan plan) {
    Map<String, String> facts = new HashMap<>();
    if (!plan.gaps().isEmpty()) {
      facts.put(KafkaSource.DATA_LOSS, DataGap.toJson(plan.gaps()));
    }
    if (!plan.topicIds().isEmpty()) {
      facts.put(KafkaSource.TOPIC_IDS, SourceJson.topicIds(plan.topicIds()));
    }
    Set<SourcePartition> behind = new HashSet<>();
    plan.ranges()
        .forEach(
            (tp, r) -> {
              Long latest = plan.latest().get(tp);
              if (latest != null && r.end() < latest) {
                behind.add(partition(tp));
              }
            });
    if (!behind.isEmpty()) {
      facts.put(BatchRange.BACKLOGGED, BatchRange.backloggedValue(behind));
    }
    return facts;
  }

  /**
   * Per partition of {@code range}: where it starts and ends, and the latest offset ({@code
   * latest}, never below the range's end; the end where unknown).
   */
  static List<BatchProgress.PartitionProgress> progress(
      BatchRange range, Map<TopicPartition, Long> latest) {
    List<BatchProgress.PartitionProgress> progress = new ArrayList<>();
    range
        .offsets()
        .forEach(
            (p, r) ->
                progress.add(
                    new BatchProgress.PartitionProgress(
                        p.topic(),
                        p.partition(),
                        r.start(),
                        r.end(),
                        Math.max(r.end(), latest.getOrDefault(partition(p), r.end())))));
    return progress;
  }

  /** The offsets {@code [start, end)} of each partition of {@code range}. */
  static Map<TopicPartition, OffsetRange> offsets(BatchRange range) {
    Map<TopicPartition, OffsetRange> out = new HashMap<>();
    range.offsets().forEach((p, r) -> out.put(partition(p), r));
    return out;
  }

  /** Where the batch after {@code range} starts, per partition. */
  static Map<TopicPartition, Long> ends(BatchRange range) {
    Map<TopicPartition, Long> out = new HashMap<>();
    range.endOffsets().forEach((p, o) -> out.put(partition(p), o));
    return out;
  }

  /** The topics' ids recorded with {@code range}; empty when it has none. */
  static Map<String, String> topicIds(BatchRange range) {
    return SourceJson.parseTopicIds(range.facts().get(KafkaSource.TOPIC_IDS));
  }

  /** The range in a commit's history: {@code topic/partition:start-end,...}. */
  static String history(BatchRange range) {
    StringBuilder out = new StringBuilder();
    range
        .offsets()
        .forEach(
            (p, r) ->
                out.append(out.length() == 0 ? "" : ",")
                    .append(p.topic())
                    .append('/')
                    .append(p.partition())
                    .append(':')
                    .append(r.start())
                    .append('-')
                    .append(r.end()));
    return out.toString();
  }

  /** The range in a message: {@code orders/0 offsets [700, 800), ...}, or "no records". */
  static String describe(BatchRange range) {
    if (range.offsets().isEmpty()) {
      return "no records";
    }
    StringBuilder out = new StringBuilder();
    range
        .offsets()
        .forEach(
            (p, r) ->
                out.append(out.length() == 0 ? "" : ", ")
                    .append(p.topic())
                    .append('/')
                    .append(p.partition())
                    .append(" offsets [")
                    .append(r.start())
                    .append(", ")
                    .append(r.end())
                    .append(')'));
    return out.toString();
  }

  static SourcePartition partition(TopicPartition tp) {
    return new SourcePartition(tp.topic(), tp.partition());
  }

  static TopicPartition partition(SourcePartition p) {
    return new TopicPartition(p.topic(), p.partition());
  }
}
