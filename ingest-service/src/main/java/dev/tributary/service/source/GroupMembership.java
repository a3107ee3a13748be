package dev.tributary.service.source;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's membership of the consumer group {@code tributary-<pipeline>} in group
 * assignment: which partitions Kafka assigned it, and which it lost since a batch began reading.
 *
 * <p>The consumer's position is never trusted: every partition is paused as soon as it is assigned,
 * so polls between batches (which keep the membership alive and run the rebalance callbacks) fetch
 * nothing; a batch seeks to its range start and resumes only its own partitions. Rebalance callbacks
 * run inside {@code poll}, on the engine's thread, like every other use of this class.
 */
final class GroupMembership implements ConsumerRebalanceListener {
  private static final Logger log = LoggerFactory.getLogger(GroupMembership.class);
  static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final String pipelineId;
  private final String group;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Set<TopicPartition> assigned = new TreeSet<>(ORDER);
  private final Set<TopicPartition> taken = new HashSet<>();
  private boolean joined;

  GroupMembership(String pipelineId, String group, KafkaConsumer<byte[], byte[]> consumer) {
    this.pipelineId = pipelineId;
    this.group = group;
    this.consumer = consumer;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    joined = true;
    consumer.pause(partitions);
    // A position of our own, so the consumer never looks for one: with auto.offset.reset none (kept
    // so that offsets deleted under a batch's read fail it as in exclusive mode) a partition without
    // a committed group offset would make the next poll throw. A batch seeks to its range start.
    partitions.forEach(tp -> consumer.seek(tp, 0));
    assigned.addAll(partitions);
    if (!partitions.isEmpty()) {
      log.info("Pipeline {}: group {} assigned {} to this instance; it now owns {}", pipelineId, group,
          names(partitions), names(assigned));
    }
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    remove(partitions, "revoked (moved to another instance)");
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    remove(partitions, "lost (this instance missed its session timeout, the group gave them to others)");
  }

  private void remove(Collection<TopicPartition> partitions, String how) {
    assigned.removeAll(partitions);
    taken.addAll(partitions);
    if (!partitions.isEmpty()) {
      // losing partitions (not handing them over) is worth a warning: the instance was unresponsive
      org.slf4j.event.Level level = how.startsWith("lost") ? org.slf4j.event.Level.WARN : org.slf4j.event.Level.INFO;
      log.atLevel(level).log("Pipeline {}: group {} {} {}; this instance now owns {}", pipelineId, group, how,
          names(partitions), names(assigned));
    }
  }

  /** The partitions assigned to this instance now, sorted. */
  List<TopicPartition> assigned() {
    return List.copyOf(assigned);
  }

  /**
   * Polls with every partition paused: keeps the membership alive and lets a pending rebalance run.
   * Until the first assignment arrives it polls for up to {@code joinTimeout}, so that the first
   * plan sees this instance's share rather than nothing.
   *
   * @throws KafkaUnavailableException if the group did not assign anything within the timeout
   */
  void refresh(Duration joinTimeout) {
    consumer.poll(Duration.ZERO);
    Instant deadline = Instant.now().plus(joinTimeout);
    while (!joined) {
      if (Instant.now().isAfter(deadline)) {
        throw new KafkaUnavailableException("Pipeline " + pipelineId + ": consumer group " + group
            + " assigned no partitions to this instance within " + joinTimeout.toSeconds() + "s. Check that"
            + " the broker's group coordinator is available (a single broker needs"
            + " offsets.topic.replication.factor=1) and the security settings in source.kafka.properties.", null);
      }
      consumer.poll(Duration.ofMillis(100));
    }
  }

  /** Polls for up to {@code wait} with every partition paused (between batches). */
  void idle(Duration wait) {
    consumer.poll(wait);
  }

  /** Starts tracking what the group takes away while a batch reads. */
  void beginRead() {
    taken.clear();
  }

  /** The partitions of {@code ranges} the group took from this instance since {@link #beginRead}. */
  Set<TopicPartition> takenAmong(Collection<TopicPartition> partitions) {
    Set<TopicPartition> out = new TreeSet<>(ORDER);
    for (TopicPartition tp : partitions) {
      if (taken.contains(tp) || !assigned.contains(tp)) {
        out.add(tp);
      }
    }
    return out;
  }

  /** Pauses every assigned partition again after a batch read (or failed). */
  void pauseAll() {
    consumer.pause(consumer.assignment());
  }

  static String names(Collection<TopicPartition> partitions) {
    Set<TopicPartition> sorted = new TreeSet<>(ORDER);
    sorted.addAll(partitions);
    StringBuilder out = new StringBuilder("[");
    sorted.forEach(tp -> out.append(out.length() > 1 ? ", " : "").append(tp.topic()).append('/').append(tp.partition()));
    return out.append(']').toString();
  }
}
