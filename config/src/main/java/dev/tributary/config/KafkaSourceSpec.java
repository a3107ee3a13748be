package dev.tributary.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The {@code source.kafka} section: where records come from.
 *
 * @param bootstrapServers the Kafka bootstrap servers, comma-separated {@code host:port} pairs
 * @param topics the explicit topic list or the topic pattern
 * @param startingOffsets where a pipeline without a checkpoint starts (default earliest)
 * @param maxOffsetsPerTrigger the most records one batch reads, split across partitions; empty = no
 *     limit
 * @param failOnDataLoss whether offsets deleted by retention stop the pipeline (true, the default)
 *     or are skipped and recorded (false)
 * @param properties consumer properties passed through unchanged; secret ones are masked in {@link
 *     #toString}
 * @param assignment whether this instance reads every partition or shares them through the consumer
 *     group
 * @param keyedBy {@code keyed-by}: the columns of the parsed value the producers keyed every record
 *     by, with Kafka's default partitioner (docs/PIPELINE_REFERENCE.md, "keyed-by"); empty: not
 *     declared. A stateful group pipeline whose state is partitioned by these columns reads each
 *     source partition's state directly instead of through the repartition topic, and checks the
 *     claim on every record.
 */
public record KafkaSourceSpec(
    String bootstrapServers,
    TopicSelection topics,
    StartingOffsets startingOffsets,
    OptionalLong maxOffsetsPerTrigger,
    boolean failOnDataLoss,
    Map<String, String> properties,
    Assignment assignment,
    List<String> keyedBy)
    implements SourceSpec {

  /** Checks that no part is null and copies the properties. */
  public KafkaSourceSpec {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topics, "topics");
    Objects.requireNonNull(startingOffsets, "startingOffsets");
    Objects.requireNonNull(maxOffsetsPerTrigger, "maxOffsetsPerTrigger");
    properties = Map.copyOf(properties);
    Objects.requireNonNull(assignment, "assignment");
    keyedBy = List.copyOf(keyedBy);
  }

  /** A source without {@code keyed-by}. */
  public KafkaSourceSpec(
      String bootstrapServers,
      TopicSelection topics,
      StartingOffsets startingOffsets,
      OptionalLong maxOffsetsPerTrigger,
      boolean failOnDataLoss,
      Map<String, String> properties,
      Assignment assignment) {
    this(
        bootstrapServers,
        topics,
        startingOffsets,
        maxOffsetsPerTrigger,
        failOnDataLoss,
        properties,
        assignment,
        List.of());
  }

  /** A source read by one instance alone ({@link Assignment#EXCLUSIVE}). */
  public KafkaSourceSpec(
      String bootstrapServers,
      TopicSelection topics,
      StartingOffsets startingOffsets,
      OptionalLong maxOffsetsPerTrigger,
      boolean failOnDataLoss,
      Map<String, String> properties) {
    this(
        bootstrapServers,
        topics,
        startingOffsets,
        maxOffsetsPerTrigger,
        failOnDataLoss,
        properties,
        Assignment.EXCLUSIVE);
  }

  @Override
  public String kind() {
    return "kafka";
  }

  /** Renders the source with the values of secret properties masked. */
  @Override
  public String toString() {
    return "KafkaSourceSpec[bootstrapServers="
        + bootstrapServers
        + ", topics="
        + topics
        + ", startingOffsets="
        + startingOffsets
        + ", maxOffsetsPerTrigger="
        + maxOffsetsPerTrigger
        + ", failOnDataLoss="
        + failOnDataLoss
        + ", properties="
        + Secrets.maskProperties(properties)
        + (keyedBy.isEmpty() ? "" : ", keyedBy=" + keyedBy)
        + "]";
  }
}
