package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.KafkaTestBroker;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The repartition topic: created once with the source's partition count, used as it is afterwards.
 */
class ExchangeTopicIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();

  @Test
  void theFirstInstanceCreatesItAndLaterOnesUseItAsItIs() throws Exception {
    String topic =
        "tributary-topic-" + UUID.randomUUID().toString().substring(0, 8) + "-repartition";
    int asked =
        ExchangeTopic.partitionsFor(
            List.of(
                new TopicPartition("a", 0),
                new TopicPartition("a", 1),
                new TopicPartition("b", 0)));
    assertThat(asked).isEqualTo(3);
    try (Admin admin = broker.admin()) {
      // two instances starting together: one creates, the other finds it (TopicExistsException)
      CompletableFuture<Integer> other =
          CompletableFuture.supplyAsync(() -> ensure(admin, topic, asked));
      assertThat(ExchangeTopic.ensure(admin, topic, asked)).isEqualTo(3);
      assertThat(other.join()).isEqualTo(3);
      // the source grew: the existing topic is used with its own count
      assertThat(ExchangeTopic.ensure(admin, topic, 8)).isEqualTo(3);
      assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions())
          .hasSize(3);
    }
  }

  private static int ensure(Admin admin, String topic, int partitions) {
    try {
      return ExchangeTopic.ensure(admin, topic, partitions);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
