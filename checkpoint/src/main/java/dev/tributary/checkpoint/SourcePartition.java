package dev.tributary.checkpoint;

import java.util.Comparator;
import java.util.Objects;

/**
 * One partition of a source: a topic name and a partition number. Ordered by topic, then partition,
 * which is the order the offsets log writes them in.
 *
 * @param topic the source's name for the stream (a Kafka topic), not blank
 * @param partition the partition number, zero or more
 */
public record SourcePartition(String topic, int partition) implements Comparable<SourcePartition> {
  private static final Comparator<SourcePartition> ORDER =
      Comparator.comparing(SourcePartition::topic).thenComparingInt(SourcePartition::partition);

  public SourcePartition {
    Objects.requireNonNull(topic, "topic");
    if (topic.isBlank()) {
      throw new IllegalArgumentException("Source partition topic must not be blank");
    }
    if (partition < 0) {
      throw new IllegalArgumentException(
          "Source partition number must be >= 0, got " + partition + " for topic " + topic);
    }
  }

  @Override
  public int compareTo(SourcePartition other) {
    return ORDER.compare(this, other);
  }

  /** {@code topic-partition}, as Kafka prints it. */
  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}
