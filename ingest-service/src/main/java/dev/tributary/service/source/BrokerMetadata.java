package dev.tributary.service.source;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka source's metadata queries against the broker: the partitions of the declared topics,
 * their earliest, latest and committed offsets (through the source's one consumer) and the topics'
 * ids (through an Admin client opened on first use: the consumer does not expose them). Every call
 * is bounded by the metadata timeout, after which it throws a {@link KafkaUnavailableException}
 * that says where and what to check.
 *
 * <p>On the engine's thread only, except {@link #wakeup}.
 */
final class BrokerMetadata implements PartitionOffsets, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrokerMetadata.class);

  static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final KafkaSourceSettings settings;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Duration timeout;
  private Admin admin;
  private boolean topicIdsUnavailable;
  private volatile DescribeTopicsResult describing;

  BrokerMetadata(KafkaSourceSettings settings, KafkaConsumer<byte[], byte[]> consumer) {
    this.settings = settings;
    this.consumer = consumer;
    this.timeout = settings.timeouts().metadata();
  }

  /** Every partition of the declared topics (or of the topics matching the pattern), sorted. */
  List<TopicPartition> partitions() {
    return call(this::listPartitions);
  }

  private List<TopicPartition> listPartitions() {
    List<TopicPartition> out = new ArrayList<>();
    if (settings.topicPattern().isPresent()) {
      var pattern = settings.topicPattern().get();
      for (var e : new TreeMap<>(consumer.listTopics(timeout)).entrySet()) {
        if (pattern.matcher(e.getKey()).matches()) {
          e.getValue().forEach(p -> out.add(new TopicPartition(p.topic(), p.partition())));
        }
      }
    } else {
      for (String topic : settings.topics()) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        if (infos == null || infos.isEmpty()) {
          throw new NoSuchTopicException(
              SourceMessages.noSuchTopic(settings.pipelineId(), topic, settings.bootstrapServers()),
              topic);
        }
        infos.forEach(p -> out.add(new TopicPartition(p.topic(), p.partition())));
      }
    }
    out.sort(ORDER);
    return out;
  }

  @Override
  public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
    return call(() -> new HashMap<>(consumer.beginningOffsets(partitions, timeout)));
  }

  @Override
  public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
    return call(() -> new HashMap<>(consumer.endOffsets(partitions, timeout)));
  }

  @Override
  public Map<TopicPartition, Long> firstAtOrAfter(
      Collection<TopicPartition> partitions, Instant instant) {
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions.forEach(tp -> query.put(tp, instant.toEpochMilli()));
    Map<TopicPartition, Long> out = new HashMap<>();
    call(() -> consumer.offsetsForTimes(query, timeout))
        .forEach(
            (tp, o) -> {
              if (o != null) {
                out.put(tp, o.offset());
              }
            });
    return out;
  }

  /**
   * The consumer group's committed offsets of {@code partitions}; a partition without one is left
   * out. Waits for offsets pending in an open transaction (Kafka's stable offsets fetch).
   */
  Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    if (partitions.isEmpty()) {
      return out;
    }
    call(() -> consumer.committed(new HashSet<>(partitions), timeout))
        .forEach(
            (tp, o) -> {
              if (o != null) {
                out.put(tp, o.offset());
              }
            });
    return out;
  }

  @Override
  public Map<String, String> topicIds(Collection<String> topics) {
    if (topics.isEmpty() || topicIdsUnavailable) {
      return Map.of();
    }
    DescribeTopicsResult result = admin().describeTopics(Set.copyOf(topics));
    describing = result;
    Map<String, String> out = new HashMap<>();
    try {
      for (var e : result.topicNameValues().entrySet()) {
        topicId(e.getKey(), e.getValue()).ifPresent(id -> out.put(e.getKey(), id));
      }
    } finally {
      describing = null;
    }
    return out;
  }

  private Optional<String> topicId(String topic, KafkaFuture<TopicDescription> future) {
    try {
      // bounded by the Admin client's default.api.timeout.ms, the metadata timeout
      Uuid id = future.get().topicId();
      return id == null || Uuid.ZERO_UUID.equals(id)
          ? Optional.empty()
          : Optional.of(id.toString());
    } catch (CancellationException e) {
      throw new WakeupException();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WakeupException();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty(); // deleted since its partitions were listed
      }
      if (e.getCause() instanceof TimeoutException t) {
        throw unavailable(t);
      }
      // Not allowed to describe topics, or a broker without topic ids: re-created topics are then
      // found only when their offsets are below the checkpoint's positions.
      topicIdsUnavailable = true;
      log.info(
          "Pipeline {}: topic ids unavailable from {} ({}); a topic deleted and re-created is"
              + " noticed only when its offsets are below the checkpoint's",
          settings.pipelineId(),
          settings.bootstrapServers(),
          String.valueOf(e.getCause()));
      return Optional.empty();
    }
  }

  private Admin admin() {
    if (admin == null) {
      admin = Admin.create(adminConfig(settings, timeout));
    }
    return admin;
  }

  /**
   * The Admin client's configuration: the consumer's bootstrap servers and security settings, a
   * client id of its own, every request bounded by the metadata timeout.
   */
  static Map<String, Object> adminConfig(KafkaSourceSettings settings, Duration timeout) {
    Map<String, Object> config = new HashMap<>();
    Set<String> adminKeys = AdminClientConfig.configNames();
    settings
        .properties()
        .forEach(
            (k, v) -> {
              if (adminKeys.contains(k)
                  || k.startsWith("sasl.")
                  || k.startsWith("ssl.")
                  || k.startsWith("security.")) {
                config.put(k, v);
              }
            });
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    config.put(
        AdminClientConfig.CLIENT_ID_CONFIG, "tributary-" + settings.pipelineId() + "-metadata");
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
    return config;
  }

  /**
   * Runs a metadata call, turning Kafka's bare timeout into a message that says where and what to
   * check.
   */
  <T> T call(Supplier<T> call) {
    try {
      return call.get();
    } catch (TimeoutException e) {
      throw unavailable(e);
    }
  }

  private KafkaUnavailableException unavailable(Exception e) {
    return new KafkaUnavailableException(
        SourceMessages.metadataTimeout(
            settings.pipelineId(), settings.bootstrapServers(), timeout, e.getMessage()),
        e);
  }

  /** Aborts a topic-id lookup in progress (the consumer's calls are woken by the consumer). */
  void wakeup() {
    DescribeTopicsResult result = describing;
    if (result != null) {
      result.topicNameValues().values().forEach(f -> f.cancel(true));
    }
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(1));
    }
  }
}
