package dev.tributary.service.source;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.RangeRevokedException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * This instance's membership of the consumer group {@code tributary-<pipeline>} in group
 * assignment: which partitions Kafka assigned it, and which it lost since a batch began reading.
 *
 * <p>The consumer's position is never trusted: every partition is paused as soon as it is assigned,
 * so polls between batches (which keep the membership alive and run the rebalance callbacks) fetch
 * nothing; a batch seeks to its range start and resumes only its own partitions. Rebalance
 * callbacks run inside {@code poll}, on the engine's thread, like every other use of this class,
 * except {@link #snapshot()}: operations (the REST API) read a copy the callbacks publish.
 *
 * <p>Every change is logged in one line naming the pipeline, the group, the generation, what moved
 * and the whole assignment after it, partitions written compactly ({@code events-0..3,7}); a loss
 * is a warning (the instance missed its session timeout), the rest INFO.
 */
final class GroupMembership implements ConsumerRebalanceListener, GroupMember {
  private static final Logger log = LoggerFactory.getLogger(GroupMembership.class);
  static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final String pipelineId;
  private final String group;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Duration joinTimeout;
  private final Set<TopicPartition> assigned = new TreeSet<>(ORDER);
  private final Set<TopicPartition> taken = new HashSet<>();
  private final String clientId;
  private final List<Consumer<Rebalance>> listeners = new CopyOnWriteArrayList<>();
  private boolean joined;

  /**
   * The generation of the cooperative rebalance that last took partitions from this instance, or
   * -1: until a later generation completes here, the follow-up rebalance that hands them to their
   * new owner waits for this member to join it.
   */
  private int revokedInGeneration = -1;

  /**
   * What else a wait here polls: another group's consumer of the same thread (see {@link
   * #pollAlongside}).
   */
  private Runnable alongside = () -> {};

  private volatile Snapshot snapshot;

  /**
   * @param joinTimeout how long {@link #refresh} waits for the first assignment
   */
  GroupMembership(
      String pipelineId,
      String group,
      String clientId,
      KafkaConsumer<byte[], byte[]> consumer,
      Duration joinTimeout) {
    this.pipelineId = pipelineId;
    this.group = group;
    this.clientId = clientId;
    this.consumer = consumer;
    this.joinTimeout = joinTimeout;
    this.snapshot = new Snapshot(group, "", clientId, -1, List.of());
  }

  @Override
  public String groupId() {
    return group;
  }

  @Override
  public Snapshot snapshot() {
    return snapshot;
  }

  @Override
  public void onRebalance(Consumer<Rebalance> listener) {
    listeners.add(listener);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    joined = true;
    consumer.pause(partitions);
    // A position of our own, so the consumer never looks for one: with auto.offset.reset none (kept
    // so that offsets deleted under a batch's read fail it as in exclusive mode) a partition
    // without
    // a committed group offset would make the next poll throw. A batch seeks to its range start.
    partitions.forEach(tp -> consumer.seek(tp, 0));
    assigned.addAll(partitions);
    changed(Kind.ASSIGNED, partitions, "assigned", Level.INFO);
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    if (!partitions.isEmpty()) {
      revokedInGeneration = generation();
    }
    remove(partitions);
    changed(Kind.REVOKED, partitions, "revoked (moved to another instance)", Level.INFO);
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    remove(partitions);
    // losing partitions (not handing them over) is worth a warning: the instance was unresponsive
    changed(
        Kind.LOST,
        partitions,
        "lost (this instance missed its session timeout, the group gave them to others)",
        Level.WARN);
  }

  /** The group generation this member is in (-1 outside one); on the consumer's thread only. */
  private int generation() {
    try {
      return consumer.groupMetadata().generationId();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private void remove(Collection<TopicPartition> partitions) {
    assigned.removeAll(partitions);
    taken.addAll(partitions);
  }

  /**
   * Publishes the new snapshot (a cooperative rebalance that moved nothing still brings a new
   * generation) and, when partitions moved, logs the change and tells the listeners.
   */
  private void changed(Kind kind, Collection<TopicPartition> partitions, String how, Level level) {
    String memberId = "";
    int generation = -1;
    try {
      // on the consumer's own thread (inside poll), so the consumer allows the call
      var metadata = consumer.groupMetadata();
      memberId = metadata.memberId();
      generation = metadata.generationId();
    } catch (RuntimeException e) {
      log.debug(
          "Pipeline {}: group metadata of {} unavailable: {}", pipelineId, group, e.toString());
    }
    List<SourcePartition> owned = sourcePartitions(assigned);
    snapshot = new Snapshot(group, memberId, clientId, generation, owned);
    if (partitions.isEmpty()) {
      return;
    }
    log.atLevel(level)
        .log(
            "Pipeline {}: consumer group {} (generation {}) {} {} ({} partition{}); this instance now"
                + " owns {} ({})",
            pipelineId,
            group,
            generation,
            how,
            names(partitions),
            partitions.size(),
            partitions.size() == 1 ? "" : "s",
            names(assigned),
            assigned.size());
    Rebalance change = new Rebalance(group, kind, sourcePartitions(partitions), owned);
    for (Consumer<Rebalance> listener : listeners) {
      try {
        listener.accept(change);
      } catch (RuntimeException e) {
        // metrics must never break the membership: the callback runs inside the consumer's poll
        log.warn("Pipeline {}: a rebalance listener failed: {}", pipelineId, e.toString());
      }
    }
  }

  private static List<SourcePartition> sourcePartitions(Collection<TopicPartition> partitions) {
    Set<TopicPartition> sorted = new TreeSet<>(ORDER);
    sorted.addAll(partitions);
    return sorted.stream().map(tp -> new SourcePartition(tp.topic(), tp.partition())).toList();
  }

  /** The partitions assigned to this instance now, sorted. */
  List<TopicPartition> assigned() {
    return List.copyOf(assigned);
  }

  /**
   * Polls with every partition paused: keeps the membership alive and lets a pending rebalance run.
   * Until the first assignment arrives it polls for up to the join timeout, so that the first plan
   * sees this instance's share rather than nothing.
   *
   * @throws KafkaUnavailableException if the group did not assign anything within the timeout
   */
  void refresh() {
    consumer.poll(Duration.ZERO);
    Instant deadline = Instant.now().plus(joinTimeout);
    // After a revocation the group waits for this member to join the follow-up rebalance, which
    // only a poll does. Finish it before any other group call: a committed-offsets fetch made
    // meanwhile (stage 1 plans from the group's offsets) was seen to block for its whole timeout
    // while the group stayed in PreparingRebalance, every revoked member blocked the same way.
    while (revokedInGeneration >= 0
        && generation() <= revokedInGeneration
        && Instant.now().isBefore(deadline)) {
      consumer.poll(Duration.ofMillis(100));
      alongside.run();
    }
    revokedInGeneration = -1;
    while (!joined) {
      if (Instant.now().isAfter(deadline)) {
        throw new KafkaUnavailableException(
            "Pipeline "
                + pipelineId
                + ": consumer group "
                + group
                + " assigned no partitions to this instance within "
                + joinTimeout.toSeconds()
                + "s. Check that"
                + " the broker's group coordinator is available (a single broker needs"
                + " offsets.topic.replication.factor=1) and the security settings in source.kafka.properties.",
            null);
      }
      consumer.poll(Duration.ofMillis(100));
      alongside.run();
    }
  }

  /**
   * Has the waits of {@link #refresh} also run {@code poll} (a zero-timeout poll of another
   * consumer on this thread). A stateful group instance is a member of two groups on one thread: a
   * rebalance of one waits for every member to poll that group's consumer, so a member waiting in
   * the other group without polling this one would hold both rebalances until a timeout.
   */
  void pollAlongside(Runnable poll) {
    this.alongside = Objects.requireNonNull(poll, "poll");
  }

  /** Polls for up to {@code wait} with every partition paused (between batches). */
  void idle(Duration wait) {
    consumer.poll(wait);
  }

  /** Starts tracking what the group takes away while a batch reads. */
  void beginRead() {
    taken.clear();
  }

  /**
   * The partitions of {@code ranges} the group took from this instance since {@link #beginRead}.
   */
  Set<TopicPartition> takenAmong(Collection<TopicPartition> partitions) {
    Set<TopicPartition> out = new TreeSet<>(ORDER);
    for (TopicPartition tp : partitions) {
      if (taken.contains(tp) || !assigned.contains(tp)) {
        out.add(tp);
      }
    }
    return out;
  }

  /**
   * Fails with a {@link RangeRevokedException} if the group took any of {@code partitions} from
   * this instance since {@link #beginRead} (or does not assign it).
   */
  void requireOwned(Collection<TopicPartition> partitions) {
    Set<TopicPartition> taken = takenAmong(partitions);
    if (!taken.isEmpty()) {
      throw new RangeRevokedException(
          "Pipeline "
              + pipelineId
              + ": consumer group "
              + group
              + " moved "
              + names(taken)
              + " to another instance while this batch read them; the batch is dropped and the new"
              + " owner continues from the partition's last committed position");
    }
  }

  /** Pauses every assigned partition again after a batch read (or failed). */
  void pauseAll() {
    consumer.pause(consumer.assignment());
  }

  /**
   * Partitions written compactly for logs and messages: per topic, runs of consecutive partitions
   * as {@code first..last}, topics apart by "; " ({@code events-0..3,7; orders-1}); "none" for
   * none.
   */
  static String names(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return "none";
    }
    Set<TopicPartition> sorted = new TreeSet<>(ORDER);
    sorted.addAll(partitions);
    StringBuilder out = new StringBuilder();
    String topic = null;
    int runStart = -1;
    int previous = -1;
    for (TopicPartition tp : sorted) {
      if (tp.topic().equals(topic) && tp.partition() == previous + 1) {
        previous = tp.partition();
        continue;
      }
      if (topic != null) {
        appendRun(out, runStart, previous);
      }
      if (!tp.topic().equals(topic)) {
        out.append(topic == null ? "" : "; ").append(tp.topic()).append('-');
        topic = tp.topic();
      } else {
        out.append(',');
      }
      runStart = tp.partition();
      previous = tp.partition();
    }
    appendRun(out, runStart, previous);
    return out.toString();
  }

  private static void appendRun(StringBuilder out, int first, int last) {
    out.append(first);
    if (last > first) {
      out.append("..").append(last);
    }
  }
}
