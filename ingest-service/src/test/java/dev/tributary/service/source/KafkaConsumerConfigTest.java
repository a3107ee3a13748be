package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.Assignment;
import dev.tributary.config.StartingOffsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.junit.jupiter.api.Test;

/** The consumer settings: our defaults, what users may override, what they may not. */
class KafkaConsumerConfigTest {
  private static KafkaSourceSettings settings(Map<String, String> properties) {
    return new KafkaSourceSettings(
        "orders",
        "broker:9092",
        List.of("t"),
        Optional.empty(),
        new StartingOffsets.Earliest(),
        OptionalLong.empty(),
        true,
        properties,
        KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)));
  }

  @Test
  void defaultsFavourThroughputAndShortFetchWaits() {
    Map<String, Object> config = KafkaClients.consumerConfig(settings(Map.of()));

    assertThat(config)
        .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100)
        .containsEntry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000)
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
        .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "tributary-orders");
  }

  @Test
  void userPropertiesWinOverDefaultsButNotOverWhatTheEngineDecides() {
    Map<String, Object> config =
        KafkaClients.consumerConfig(
            settings(
                Map.of(
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "250",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true")));

    assertThat(config)
        .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "250")
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
  }

  @Test
  void groupAssignmentRebalancesCooperativelyUnlessTheUserChoseKip848() {
    Map<String, Object> exclusive = KafkaClients.consumerConfig(settings(Map.of()));
    Map<String, Object> group = KafkaClients.consumerConfig(groupSettings(Map.of()));
    Map<String, Object> kip848 =
        KafkaClients.consumerConfig(groupSettings(Map.of("group.protocol", "consumer")));

    assertThat(exclusive)
        .doesNotContainKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)
        .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    assertThat(group)
        .containsEntry(
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            CooperativeStickyAssignor.class.getName())
        .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "tributary-orders")
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
        .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")
        .containsEntry(
            ConsumerConfig.CLIENT_ID_CONFIG, "tributary-orders-" + KafkaSource.instanceId());
    assertThat(kip848)
        .doesNotContainKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)
        .containsEntry("group.protocol", "consumer");
  }

  private static KafkaSourceSettings groupSettings(Map<String, String> properties) {
    return new KafkaSourceSettings(
        "orders",
        "broker:9092",
        List.of("t"),
        Optional.empty(),
        new StartingOffsets.Earliest(),
        OptionalLong.empty(),
        true,
        properties,
        KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)),
        Assignment.GROUP);
  }
}
