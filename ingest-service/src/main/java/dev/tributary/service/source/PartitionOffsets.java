package dev.tributary.service.source;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The broker queries that planning a batch needs, behind an interface so that {@link RangePlanner}
 * is tested without a broker. Every method may block up to the source's metadata timeout and then
 * throws {@link KafkaUnavailableException}; a stop aborts it with Kafka's {@code WakeupException}.
 */
interface PartitionOffsets {
  /** The earliest offset each partition still holds (its log start). */
  Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions);

  /** The next offset a producer would write, per partition (read_committed: the last stable). */
  Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions);

  /**
   * The first offset whose record's timestamp is at or after {@code instant}, per partition; a
   * partition without such a record is left out.
   */
  Map<TopicPartition, Long> firstAtOrAfter(Collection<TopicPartition> partitions, Instant instant);

  /**
   * The id of each topic (Kafka's topic id, new whenever a topic is created, so a topic deleted and
   * re-created under its old name has a new one); a topic whose id the broker does not tell (a
   * broker before Kafka 2.8, no permission to describe it, deleted meanwhile) is left out.
   */
  Map<String, String> topicIds(Collection<String> topics);
}
