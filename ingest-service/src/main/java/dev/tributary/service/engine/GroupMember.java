package dev.tributary.service.engine;

import dev.tributary.checkpoint.SourcePartition;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * This instance's membership of one Kafka consumer group, as operations see it: the REST API's
 * {@code groups} of a pipeline, the rebalance metrics. A stateless group-mode run has one (the
 * source's group {@code tributary-<pipeline>}); a run may have several (stateful group mode adds
 * the repartition topic's group). The engine's thread updates it; any thread may read it.
 */
public interface GroupMember {

  /** The consumer group id. */
  String groupId();

  /** What the group has given this instance now (a consistent copy; never blocks). */
  Snapshot snapshot();

  /**
   * Calls {@code listener} after every change of this instance's assignment, on the engine's thread
   * inside the consumer's poll: it must be quick and must not throw.
   */
  void onRebalance(Consumer<Rebalance> listener);

  /**
   * This instance in the group.
   *
   * @param groupId the consumer group id
   * @param memberId the member id the coordinator gave this instance (empty before it joined)
   * @param clientId this instance's Kafka client id ({@code tributary-<pipeline>-<host>/<pid>})
   * @param generation the group generation this instance last joined (-1 before it joined)
   * @param assigned the partitions assigned to this instance now, sorted by topic then partition
   */
  record Snapshot(
      String groupId,
      String memberId,
      String clientId,
      int generation,
      List<SourcePartition> assigned) {
    /** Copies the list. */
    public Snapshot {
      Objects.requireNonNull(groupId, "groupId");
      Objects.requireNonNull(memberId, "memberId");
      Objects.requireNonNull(clientId, "clientId");
      assigned = List.copyOf(assigned);
    }
  }

  /**
   * One change of this instance's assignment.
   *
   * @param groupId the consumer group id
   * @param kind what happened to {@code moved}
   * @param moved the partitions that came or went, sorted
   * @param owned this instance's whole assignment after the change, sorted
   */
  record Rebalance(
      String groupId, Kind kind, List<SourcePartition> moved, List<SourcePartition> owned) {
    /** Copies the lists. */
    public Rebalance {
      moved = List.copyOf(moved);
      owned = List.copyOf(owned);
    }
  }

  /** How partitions moved: assigned to this instance, revoked (handed over cleanly), or lost. */
  enum Kind {
    ASSIGNED,
    REVOKED,
    LOST;

    /** The metric tag value: {@code assigned}, {@code revoked}, {@code lost}. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
