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
 * @param failOnDataLoss whether input that cannot be read as the checkpoint expects (offsets
 *     deleted by retention, a partition re-created or gone) stops the pipeline (true) or is
 *     skipped, read from the partition's start and recorded (false)
 * @param properties passed through to the consumer (security, SASL, TLS, fetch tuning)
 * @param timeouts how long the source waits for the broker
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
    Timeouts timeouts,
    Assignment assignment) {

  /**
   * How long the source waits for the broker.
   *
   * @param metadata bound of every metadata call (partitions, offsets, topic ids, committed
   *     offsets), after which it fails with {@link KafkaUnavailableException}
   * @param join how long a group member's first assignment may take (a join, possibly two
   *     rebalances)
   * @param read how long a read may go without progress before it fails
   */
  public record Timeouts(Duration metadata, Duration join, Duration read) {
    /**
     * The consumer property that bounds the metadata calls: Kafka's own bound of a blocking client
     * call, {@value}.
     */
    public static final String METADATA_PROPERTY = "default.api.timeout.ms";

    public Timeouts {
      Objects.requireNonNull(metadata, "metadata");
      Objects.requireNonNull(join, "join");
      Objects.requireNonNull(read, "read");
    }

    /** 30 s for metadata, 2 min to join the group, 2 min for a read without progress. */
    public static Timeouts defaults() {
      return new Timeouts(Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofMinutes(2));
    }

    /** The defaults with another read timeout. */
    public static Timeouts reading(Duration read) {
      Timeouts d = defaults();
      return new Timeouts(d.metadata(), d.join(), read);
    }

    /**
     * The defaults, with the metadata timeout taken from {@value #METADATA_PROPERTY} in the
     * source's consumer {@code properties} where it is set (a slow cluster; a test that wants a
     * short one).
     *
     * @throws IllegalArgumentException if that property is not a whole number of milliseconds
     */
    public static Timeouts from(Map<String, String> properties) {
      Timeouts d = defaults();
      String millis = properties.get(METADATA_PROPERTY);
      if (millis == null) {
        return d;
      }
      try {
        return new Timeouts(Duration.ofMillis(Long.parseLong(millis.trim())), d.join(), d.read());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "source.kafka.properties."
                + METADATA_PROPERTY
                + " must be a whole number of milliseconds, not '"
                + millis
                + "'",
            e);
      }
    }
  }

  public KafkaSourceSettings {
    Objects.requireNonNull(pipelineId, "pipelineId");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    topics = List.copyOf(topics);
    properties = Map.copyOf(properties);
    if (topics.isEmpty() == topicPattern.isEmpty()) {
      throw new IllegalArgumentException("exactly one of topics and topic-pattern must be given");
    }
    Objects.requireNonNull(timeouts, "timeouts");
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
      Timeouts timeouts) {
    this(
        pipelineId,
        bootstrapServers,
        topics,
        topicPattern,
        startingOffsets,
        maxOffsetsPerTrigger,
        failOnDataLoss,
        properties,
        timeouts,
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
