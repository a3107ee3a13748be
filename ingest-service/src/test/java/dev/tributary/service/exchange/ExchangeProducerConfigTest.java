package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.Assignment;
import dev.tributary.config.StartingOffsets;
import dev.tributary.service.source.KafkaSourceSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The stage-1 producer's configuration: the source's connection and security, transactions fixed.
 */
class ExchangeProducerConfigTest {
  private static KafkaSourceSettings settings(Map<String, String> properties) {
    return new KafkaSourceSettings(
        "orders",
        "broker:9093",
        List.of("events"),
        Optional.empty(),
        new StartingOffsets.Earliest(),
        OptionalLong.empty(),
        true,
        properties,
        KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)),
        Assignment.GROUP);
  }

  @Test
  void securityAppliesToTheProducerAndTransactionsAreFixed() {
    Map<String, Object> config =
        ExchangeProgress.producerConfig(
            settings(
                Map.of(
                    "security.protocol",
                    "SASL_SSL",
                    "sasl.mechanism",
                    "PLAIN",
                    "ssl.truststore.location",
                    "/t.jks",
                    "session.timeout.ms",
                    "6000",
                    "enable.idempotence",
                    "false",
                    "acks",
                    "1",
                    "transactional.id",
                    "mine",
                    "bootstrap.servers",
                    "elsewhere:9092")));

    assertThat(config)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "PLAIN")
        .containsEntry("ssl.truststore.location", "/t.jks")
        .doesNotContainKey("session.timeout.ms") // a consumer setting
        .containsEntry("bootstrap.servers", "broker:9093")
        .containsEntry("enable.idempotence", true)
        .containsEntry("acks", "all")
        .containsEntry("transaction.timeout.ms", 10_000);
    assertThat((String) config.get("transactional.id"))
        .startsWith("tributary-orders-")
        .hasSize("tributary-orders-".length() + 36);
    assertThat(ExchangeProgress.producerConfig(settings(Map.of())).get("transactional.id"))
        .as("one id per producer")
        .isNotEqualTo(config.get("transactional.id"));
  }

  @Test
  void theUsersTransactionTimeoutWins() {
    assertThat(ExchangeProgress.producerConfig(settings(Map.of("transaction.timeout.ms", "30000"))))
        .containsEntry("transaction.timeout.ms", "30000");
  }
}
