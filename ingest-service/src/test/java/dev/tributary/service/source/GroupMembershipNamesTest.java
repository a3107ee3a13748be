package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Rebalance logs name partitions compactly: runs of consecutive partitions per topic. */
class GroupMembershipNamesTest {
  @Test
  void consecutivePartitionsAreOneRunAndTopicsAreApart() {
    List<TopicPartition> partitions =
        List.of(
            tp("orders", 1),
            tp("events", 7),
            tp("events", 2),
            tp("events", 0),
            tp("events", 3),
            tp("events", 1),
            tp("events", 9),
            tp("events", 10));
    assertThat(GroupMembership.names(partitions)).isEqualTo("events-0..3,7,9..10; orders-1");
  }

  @Test
  void oneAndNone() {
    assertThat(GroupMembership.names(List.of(tp("events", 4)))).isEqualTo("events-4");
    assertThat(GroupMembership.names(List.of())).isEqualTo("none");
  }

  private static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }
}
