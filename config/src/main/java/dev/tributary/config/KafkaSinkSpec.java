package dev.tributary.config;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code sink.kafka} section: a Kafka topic each result row is sent to as one record
 * (docs/DESIGN.md, "The Kafka sink").
 *
 * @param bootstrapServers the brokers (default: the Kafka source's)
 * @param topic the topic; it must exist
 * @param key a SQL expression over the output columns whose value is the record key (text as UTF-8,
 *     other values as their JSON text); empty: records without a key
 * @param value how a row becomes the record value
 * @param registry where an Avro value's schema is registered (subject {@code <topic>-value});
 *     present exactly when {@code value} is {@link Value#AVRO}
 * @param delivery exactly once with Kafka transactions, or at least once without
 * @param provenanceHeaders whether each record carries headers naming the pipeline, the batch and
 *     (for rows with Kafka metadata columns) the source record
 * @param properties passed through to the Kafka producer ({@code security.protocol}, {@code
 *     sasl.*}, {@code compression.type}, …)
 */
public record KafkaSinkSpec(
    String bootstrapServers,
    String topic,
    Optional<String> key,
    Value value,
    Optional<RegistrySpec> registry,
    Delivery delivery,
    boolean provenanceHeaders,
    Map<String, String> properties)
    implements SinkSpec {

  /** The record value's encoding ({@code value}). */
  public enum Value {
    /** The output row as a JSON object by column name. */
    JSON,
    /**
     * The output row as an Avro record in the Confluent wire format, its schema derived from the
     * output columns and registered in the schema registry.
     */
    AVRO;

    /** The name as written in files. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The delivery guarantee ({@code delivery}). */
  public enum Delivery {
    /**
     * A batch's records and its marker commit in one Kafka transaction: {@code read_committed}
     * consumers see every record once. The default.
     */
    EXACTLY_ONCE("exactly-once"),
    /**
     * Records are sent without transactions (brokers without them): a batch replayed after a crash
     * is sent again.
     */
    AT_LEAST_ONCE("at-least-once");

    private final String keyword;

    Delivery(String keyword) {
      this.keyword = keyword;
    }

    /** The name as written in files. */
    public String keyword() {
      return keyword;
    }
  }

  /**
   * Checks that no part is null, that a registry comes with (and only with) Avro values, and copies
   * the properties.
   */
  public KafkaSinkSpec {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(delivery, "delivery");
    if (registry.isPresent() != (value == Value.AVRO)) {
      throw new IllegalArgumentException("a registry is declared exactly with value: avro");
    }
    properties = Map.copyOf(properties);
  }

  /** A sink whose values are JSON (no registry). */
  public KafkaSinkSpec(
      String bootstrapServers,
      String topic,
      Optional<String> key,
      Value value,
      Delivery delivery,
      boolean provenanceHeaders,
      Map<String, String> properties) {
    this(
        bootstrapServers,
        topic,
        key,
        value,
        Optional.empty(),
        delivery,
        provenanceHeaders,
        properties);
  }

  /**
   * The subject the value schema is registered under (TopicNameStrategy: {@code <topic>-value}).
   */
  public String valueSubject() {
    return topic + "-value";
  }

  @Override
  public String keyword() {
    return "kafka";
  }

  @Override
  public String location() {
    return "kafka topic " + topic + " at " + bootstrapServers;
  }

  /** Never shows secret producer properties. */
  @Override
  public String toString() {
    return "KafkaSinkSpec[bootstrapServers="
        + bootstrapServers
        + ", topic="
        + topic
        + ", key="
        + key.orElse("")
        + ", value="
        + value.keyword()
        + registry.map(r -> ", registry=" + r.url()).orElse("")
        + ", delivery="
        + delivery.keyword()
        + ", provenanceHeaders="
        + provenanceHeaders
        + ", properties="
        + Secrets.maskProperties(properties)
        + "]";
  }
}
