package dev.tributary.service.exchange;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The repartition topic of a stateful group-mode pipeline ({@code
 * tributary-<pipeline>-repartition}, docs/DESIGN.md "Stateful pipelines in group mode"): created by
 * the first instance with as many partitions as the source topics together, used as it is when it
 * exists (its partition count is the one rows are spread over, whatever it is).
 */
public final class ExchangeTopic {
  /** Bound of each admin call and of the wait for the new topic's leaders. */
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private ExchangeTopic() {}

  /** The partition count to create the topic with: the source topics' partitions together. */
  public static int partitionsFor(Collection<TopicPartition> sourcePartitions) {
    return Math.max(1, sourcePartitions.size());
  }

  /**
   * Creates {@code topic} with {@code partitions} partitions (the broker's default replication
   * factor) unless it exists, waits until every partition has a leader (an idempotent producer
   * sending to a partition without one can get stuck retrying), and returns the topic's actual
   * partition count. Another instance creating it at the same time is fine.
   */
  public static int ensure(Admin admin, String topic, int partitions) throws InterruptedException {
    Optional<TopicDescription> existing = describe(admin, topic);
    if (existing.isEmpty()) {
      try {
        admin
            .createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
            .all()
            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw failed("create", topic, e.getCause());
        }
      } catch (TimeoutException e) {
        throw failed("create", topic, e);
      }
    }
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (true) {
      Optional<TopicDescription> d = describe(admin, topic);
      if (d.isPresent()
          && d.get().partitions().stream()
              .allMatch(p -> p.leader() != null && p.leader().id() >= 0)) {
        return d.get().partitions().size();
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(
            "the repartition topic "
                + topic
                + " has partitions without a leader after "
                + TIMEOUT.toSeconds()
                + "s; check the brokers");
      }
      Thread.sleep(100); // polling the broker's metadata: there is no notification to wait for
    }
  }

  private static Optional<TopicDescription> describe(Admin admin, String topic)
      throws InterruptedException {
    try {
      return Optional.of(
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .get(topic));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw failed("describe", topic, e.getCause());
    } catch (TimeoutException e) {
      throw failed("describe", topic, e);
    }
  }

  private static IllegalStateException failed(String what, String topic, Throwable cause) {
    return new IllegalStateException(
        "cannot "
            + what
            + " the repartition topic "
            + topic
            + ": "
            + cause
            + "; check that the broker is reachable and that this client may create and describe topics"
            + " (source.kafka.properties)",
        cause);
  }
}
