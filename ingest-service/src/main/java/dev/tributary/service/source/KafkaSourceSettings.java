package dev.tributary.service.source;

import dev.tributary.config.Assignment;
import dev.tributary.config.StartingOffsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * What the Kafka source needs to know, independent of how it was declared.
 *
 * @param pipelineId names the consumer group {@code tributary-<pipelineId>} and appears in errors
 * @param bootstrapServers the broker list
 * @param topics explicit topics (empty when a pattern is used)
 * @param topicPattern topics matching this pattern, rediscovered every batch
 * @param startingOffsets where partitions unknown to the checkpoint start on the first batch
 * @param maxOffsetsPerTrigger optional limit of offsets per batch, split across partitions
 * @param failOnDataLoss whether offsets deleted by retention stop the pipeline (true) or are
 *     skipped
 * @param properties passed through to the consumer (security, SASL, TLS, fetch tuning)
 * @param readTimeout how long a read may go without progress before it fails
 * @param assignment exclusive (this instance reads every partition, by {@code assign}) or group
 *     (partitions assigned by the consumer group {@code tributary-<pipelineId>})
 */
public record KafkaSourceSettings(
    String pipelineId,
    String bootstrapServers,
    List<String> topics,
    Optional<Pattern> topicPattern,
    StartingOffsets startingOffsets,
    OptionalLong maxOffsetsPerTrigger,
    boolean failOnDataLoss,
    Map<String, String> properties,
    Duration readTimeout,
    Assignment assignment) {

  public KafkaSourceSettings {
    Objects.requireNonNull(pipelineId, "pipelineId");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    topics = List.copyOf(topics);
    properties = Map.copyOf(properties);
    if (topics.isEmpty() == topicPattern.isEmpty()) {
      throw new IllegalArgumentException("exactly one of topics and topic-pattern must be given");
    }
    Objects.requireNonNull(assignment, "assignment");
  }

  /** Settings of a source that reads every partition itself ({@link Assignment#EXCLUSIVE}). */
  public KafkaSourceSettings(
      String pipelineId,
      String bootstrapServers,
      List<String> topics,
      Optional<Pattern> topicPattern,
      StartingOffsets startingOffsets,
      OptionalLong maxOffsetsPerTrigger,
      boolean failOnDataLoss,
      Map<String, String> properties,
      Duration readTimeout) {
    this(
        pipelineId,
        bootstrapServers,
        topics,
        topicPattern,
        startingOffsets,
        maxOffsetsPerTrigger,
        failOnDataLoss,
        properties,
        readTimeout,
        Assignment.EXCLUSIVE);
  }

  /**
   * Whether partitions come from the consumer group rather than from this instance's own assign.
   */
  public boolean groupAssignment() {
    return assignment == Assignment.GROUP;
  }

  /**
   * The consumer group the source commits processed offsets to, for lag monitoring only; in group
   * assignment also the group whose members share the partitions.
   */
  public String consumerGroup() {
    return consumerGroup(pipelineId);
  }

  /**
   * The consumer group of the Kafka source of pipeline {@code pipelineId}: {@code
   * tributary-<pipelineId>}.
   */
  public static String consumerGroup(String pipelineId) {
    return "tributary-" + pipelineId;
  }
}
