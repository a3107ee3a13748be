package dev.tributary.service.replay;

import java.util.Comparator;
import java.util.Objects;

/**
 * One Kafka record, by provenance: the key of a quarantine row ({@code topic, partition, offset}).
 *
 * @param topic the topic
 * @param partition the partition
 * @param offset the offset
 */
public record RecordKey(String topic, int partition, long offset) implements Comparable<RecordKey> {
  private static final Comparator<RecordKey> ORDER =
      Comparator.comparing(RecordKey::topic)
          .thenComparingInt(RecordKey::partition)
          .thenComparingLong(RecordKey::offset);

  public RecordKey {
    Objects.requireNonNull(topic, "topic");
  }

  @Override
  public int compareTo(RecordKey other) {
    return ORDER.compare(this, other);
  }

  /** {@code topic-partition@offset}, for messages. */
  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset;
  }
}
