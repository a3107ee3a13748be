package dev.tributary.service.source;

import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.RangeRevokedException;
import dev.tributary.service.engine.SourceStoppedException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The consumer-group side of a Kafka source in group assignment ({@code source.kafka.assignment:
 * group}): what the stages of a stateful group-mode pipeline ({@code exchange}) ask of the group
 * besides ranges to read. Stage 1 plans from the group's committed offsets and commits its batch's
 * offsets inside a Kafka transaction, fenced by the group generation ({@link #groupMetadata}) after
 * {@link #checkStillOwned}; stage 2 opens and closes its sub-pipelines by {@link
 * #refreshAssignment}; one thread serving both stages keeps both groups going ({@link
 * #pollAlongside}).
 *
 * <p>It shares the source's one consumer and {@link GroupMembership}; on the engine's thread only,
 * like the source. Obtained from {@link KafkaSource#group()}.
 */
public final class KafkaGroup {
  private final KafkaSourceSettings settings;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final GroupMembership membership;
  private final BrokerMetadata broker;
  private final RangePlanner planner;

  KafkaGroup(
      KafkaSourceSettings settings,
      KafkaConsumer<byte[], byte[]> consumer,
      GroupMembership membership,
      BrokerMetadata broker,
      RangePlanner planner) {
    this.settings = settings;
    this.consumer = consumer;
    this.membership = membership;
    this.broker = broker;
    this.planner = planner;
  }

  /**
   * Plans the partitions assigned now from the consumer group's committed offsets, read after the
   * assignment is refreshed (so every planned partition's start is its committed offset, or the
   * starting offsets for a partition without one). Kafka's consumer asks for stable offsets: a
   * committed offset still pending in another member's open transaction is waited for (until that
   * transaction commits or aborts), never read stale.
   *
   * @param upTo optional per-partition ceiling (available-now)
   * @throws DataLossException for offsets deleted by retention (fail-on-data-loss: true) or a
   *     partition whose offsets went back (the group's offsets do not move back)
   */
  public GroupPlan planFromGroupOffsets(Map<TopicPartition, Long> upTo) {
    List<TopicPartition> assigned = assignedNow();
    // Revocations count from here (no poll since the assignment was refreshed): a batch that reads
    // nothing, only pinning offsets, is checked against them too (checkStillOwned).
    membership.beginRead();
    Map<TopicPartition, Long> committed = committedOffsets(assigned);
    SourcePlan plan =
        planner.plan(
            assigned,
            new RangePlanner.Start(
                committed,
                Map.of(),
                RangePlanner.NewPartitions.AT_STARTING_OFFSETS,
                RangePlanner.Positions.IN_TABLES_OR_GROUP),
            upTo);
    return new GroupPlan(plan, committed);
  }

  /**
   * The consumer group's committed offsets of {@code partitions}; a partition without one is left
   * out. Waits for offsets pending in an open transaction (Kafka's stable offsets fetch).
   */
  public Map<TopicPartition, Long> committedOffsets(Collection<TopicPartition> partitions) {
    return broker.committed(partitions);
  }

  /**
   * The consumer's group metadata (member id, generation) for {@code sendOffsetsToTransaction}: the
   * broker refuses a transaction's offsets from a member whose generation is no longer the group's,
   * which is what fences a member that lost its partitions (KIP-447).
   */
  public ConsumerGroupMetadata groupMetadata() {
    return consumer.groupMetadata();
  }

  /**
   * Fails with a {@link RangeRevokedException} if any of {@code partitions} was revoked or lost
   * since the current batch was planned ({@link #planFromGroupOffsets}) or began reading (or is not
   * assigned). Call it without a poll in between before committing a batch's offsets, so that the
   * generation committed with is the one that owns the partitions.
   */
  public void checkStillOwned(Collection<TopicPartition> partitions) {
    membership.requireOwned(partitions);
  }

  /**
   * Lets a pending rebalance run (waiting for the first assignment, bounded by the join timeout of
   * {@link KafkaSourceSettings.Timeouts}) and returns the partitions assigned to this instance now,
   * sorted. A stateful group-mode pipeline's stage 2 opens and closes its sub-pipelines by it.
   *
   * @throws SourceStoppedException if the source was woken up
   */
  public List<TopicPartition> refreshAssignment() {
    try {
      return assignedNow();
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
  }

  /**
   * On a thread that also runs {@code other}'s group (a stateful group pipeline's two stages):
   * while this source waits for a rebalance of its group it keeps polling {@code other}'s consumer
   * too, so that a rebalance of the other group that waits for this instance goes on. Without it
   * each instance can wait in one group while the other group waits for it.
   */
  public void pollAlongside(KafkaGroup other) {
    membership.pollAlongside(() -> other.membership.idle(Duration.ZERO));
  }

  /** This instance's membership, as the REST API and the rebalance metrics see it. */
  GroupMember member() {
    return membership;
  }

  /** Refreshes the assignment and returns it (the partitions this instance plans). */
  List<TopicPartition> assignedNow() {
    return broker.call(
        () -> {
          membership.refresh();
          return membership.assigned();
        });
  }

  /**
   * Fails with a {@link RangeRevokedException} unless the group assigns {@code partition} to this
   * instance now (after a refresh).
   */
  void requireAssigned(TopicPartition partition) {
    if (!assignedNow().contains(partition)) {
      throw new RangeRevokedException(
          SourceMessages.notAssigned(settings.pipelineId(), settings.consumerGroup(), partition));
    }
  }

  /** The partitions assigned now, without a refresh. */
  List<TopicPartition> assigned() {
    return membership.assigned();
  }

  /** Waits up to {@code wait} between batches, polling with every partition paused. */
  void idle(Duration wait) {
    membership.idle(wait);
  }
}
