package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.StartingOffsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

/**
 * The source's timeouts come from its settings (no system properties): the defaults, and the
 * metadata timeout a pipeline sets through Kafka's own {@code default.api.timeout.ms}.
 */
class KafkaSourceTimeoutsTest {
  @Test
  void theDefaultsAreThirtySecondsForMetadataAndTwoMinutesToJoinAndToRead() {
    assertThat(KafkaSourceSettings.Timeouts.from(Map.of()))
        .isEqualTo(
            new KafkaSourceSettings.Timeouts(
                Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofMinutes(2)));
  }

  @Test
  void theConsumersDefaultApiTimeoutBoundsTheMetadataCalls() {
    assertThat(
            KafkaSourceSettings.Timeouts.from(Map.of("default.api.timeout.ms", "2000")).metadata())
        .isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(
            () -> KafkaSourceSettings.Timeouts.from(Map.of("default.api.timeout.ms", "2s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "source.kafka.properties.default.api.timeout.ms must be a whole number of"
                + " milliseconds, not '2s'");
  }

  @Test
  void theAdminClientGetsTheSecuritySettingsAndTheMetadataTimeoutButNoConsumerKeys() {
    var settings =
        new KafkaSourceSettings(
            "orders",
            "broker:9093",
            List.of("t"),
            Optional.empty(),
            new StartingOffsets.Earliest(),
            OptionalLong.empty(),
            true,
            Map.of(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "PLAIN",
                "ssl.truststore.location", "/etc/ts.jks",
                "max.poll.records", "5"),
            KafkaSourceSettings.Timeouts.from(Map.of()));

    assertThat(BrokerMetadata.adminConfig(settings, Duration.ofSeconds(7)))
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "PLAIN")
        .containsEntry("ssl.truststore.location", "/etc/ts.jks")
        .doesNotContainKey("max.poll.records")
        .containsEntry(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9093")
        .containsEntry(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 7000)
        .containsEntry(AdminClientConfig.CLIENT_ID_CONFIG, "tributary-orders-metadata");
  }
}
