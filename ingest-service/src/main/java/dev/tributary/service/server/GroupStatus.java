package dev.tributary.service.server;

import java.time.Instant;
import java.util.List;

/**
 * One consumer group of a group-assignment pipeline, as {@code GET /api/pipelines/{id}} shows it in
 * {@code groups}: this instance's membership (from the run, exact and current) and the group as the
 * broker describes it (from {@code Admin.describeConsumerGroups}, cached for a few seconds).
 * Partitions are written {@code topic/partition}, sorted.
 *
 * @param groupId the consumer group id ({@code tributary-<pipeline>}; stateful group mode adds
 *     {@code tributary-<pipeline>-repartition})
 * @param memberId this instance's member id (null without an active run, empty before it joined)
 * @param clientId this instance's client id, {@code tributary-<pipeline>-<host>/<pid>} (null
 *     without an active run)
 * @param generation the group generation this instance last joined (null without an active run, -1
 *     before it joined)
 * @param assigned the partitions assigned to this instance now (empty without an active run)
 * @param state the group's state as the broker reports it ({@code STABLE}, {@code
 *     PREPARING_REBALANCE}, {@code COMPLETING_REBALANCE}, {@code EMPTY}, {@code DEAD}...; null if
 *     the description failed)
 * @param assignor the partition assignor the group uses (null if unknown)
 * @param members the group's members as the broker describes them (empty if the description failed)
 * @param describedAt when the broker's description was taken (null if none was taken yet)
 * @param error why the broker's description is missing or older than it should be (null when it
 *     succeeded); this instance's own fields above stay exact
 */
public record GroupStatus(
    String groupId,
    String memberId,
    String clientId,
    Integer generation,
    List<String> assigned,
    String state,
    String assignor,
    List<Member> members,
    Instant describedAt,
    String error) {

  /** Copies the lists. */
  public GroupStatus {
    assigned = List.copyOf(assigned);
    members = List.copyOf(members);
  }

  /**
   * One member of the group as the broker describes it.
   *
   * @param memberId its member id
   * @param clientId its client id ({@code tributary-<pipeline>-<host>/<pid>} for a Tributary
   *     instance)
   * @param host the address it connects from, as the broker sees it
   * @param assigned its partitions
   * @param self whether it is this instance (its member id is this instance's)
   */
  public record Member(
      String memberId, String clientId, String host, List<String> assigned, boolean self) {
    /** Copies the list. */
    public Member {
      assigned = List.copyOf(assigned);
    }
  }
}
