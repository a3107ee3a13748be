package dev.tributary.service.testing;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.awaitility.Awaitility;

/** Topic creation for the test brokers. */
final class Topics {
  private Topics() {}

  /**
   * Creates {@code name} with {@code partitions} partitions (replication 1) and waits until every
   * partition has a leader: creation returns before that, and an idempotent producer that sends
   * meanwhile can get stuck retrying OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout.
   */
  static void createAndAwaitLeaders(Admin admin, String name, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        // right after the creation the broker may not know the topic yet (KRaft metadata
        // propagates asynchronously): describing it then fails, and is asked again
        .ignoreExceptionsMatching(e -> e.getCause() instanceof UnknownTopicOrPartitionException)
        .until(
            () ->
                admin
                    .describeTopics(List.of(name))
                    .allTopicNames()
                    .get()
                    .get(name)
                    .partitions()
                    .stream()
                    .allMatch(p -> p.leader() != null && p.leader().id() >= 0));
  }
}
