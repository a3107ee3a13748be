package dev.tributary.service.sink.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a marker group's committed offset as a {@code read_committed} consumer does: a stable fetch
 * that waits while the group has transactional offsets pending.
 *
 * <p>Why a consumer and not {@code Admin.listConsumerGroupOffsets(requireStable)}: the admin client
 * leaves out a partition whose offset is unstable (it logs and skips it), so right after a commit,
 * before the coordinator has applied the transaction's marker to {@code __consumer_offsets}, the
 * batch just committed read as not held — and a retry of that batch in the same process would send
 * its records twice. The consumer treats the same answer as retriable and asks again until the
 * offset is stable or the timeout passes. The consumer never subscribes nor joins the group.
 */
final class MarkerReader implements AutoCloseable {
  private final Consumer<byte[], byte[]> consumer;
  private final TopicPartition markerPartition;
  private final Duration timeout;

  /**
   * @param clientProperties the sink's Kafka properties; those a consumer knows are applied
   *     (security settings among them)
   */
  MarkerReader(
      String bootstrapServers,
      Map<String, String> clientProperties,
      String group,
      String clientId,
      TopicPartition markerPartition,
      Duration timeout) {
    Map<String, Object> config = new HashMap<>();
    clientProperties.forEach(
        (k, v) -> {
          if (ConsumerConfig.configNames().contains(k)) {
            config.put(k, v);
          }
        });
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    this.consumer = new KafkaConsumer<>(config);
    this.markerPartition = markerPartition;
    this.timeout = timeout;
  }

  /**
   * The last batch the marker says is held ({@code offset - 1}), or -1 without a marker.
   *
   * @throws org.apache.kafka.common.errors.TimeoutException if no stable answer came in time
   * @throws org.apache.kafka.common.KafkaException as the consumer throws it (authorization among
   *     them)
   */
  long heldBatch() {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        consumer.committed(Set.of(markerPartition), timeout);
    OffsetAndMetadata marker = offsets.get(markerPartition);
    return marker == null ? -1 : marker.offset() - 1;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
