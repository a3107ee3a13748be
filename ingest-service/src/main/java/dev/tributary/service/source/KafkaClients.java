package dev.tributary.service.source;

import java.io.IOException;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The one place a Kafka source's consumer is configured and created. Planning's metadata calls,
 * range reading and group membership all use this one consumer, on the engine's thread: a second
 * consumer would be a second group member, or a second connection whose fetches and offset lookups
 * are not ordered with the first one's.
 */
final class KafkaClients {
  private KafkaClients() {}

  /**
   * Opens the consumer of {@code settings}; in group assignment also joins the consumer group
   * {@code tributary-<pipeline>} (subscribed to the topics or the pattern, {@link GroupMembership}
   * listening to its rebalances).
   */
  static Opened open(KafkaSourceSettings settings) {
    Map<String, Object> config = consumerConfig(settings);
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
    if (!settings.groupAssignment()) {
      return new Opened(consumer, Optional.empty());
    }
    GroupMembership membership =
        new GroupMembership(
            settings.pipelineId(),
            settings.consumerGroup(),
            String.valueOf(config.get(ConsumerConfig.CLIENT_ID_CONFIG)),
            consumer,
            settings.timeouts().join());
    if (settings.topicPattern().isPresent()) {
      consumer.subscribe(settings.topicPattern().get(), membership);
    } else {
      consumer.subscribe(settings.topics(), membership);
    }
    return new Opened(consumer, Optional.of(membership));
  }

  /** A source's consumer, and its membership of the consumer group in group assignment. */
  record Opened(KafkaConsumer<byte[], byte[]> consumer, Optional<GroupMembership> membership) {}

  static Map<String, Object> consumerConfig(KafkaSourceSettings settings) {
    Map<String, Object> config = new HashMap<>();
    // Throughput-oriented defaults; anything the user passes in properties wins.
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1024 * 1024);
    // A fetch that reached the end of a partition waits at the broker for new data up to this long,
    // and the broker answers a connection's requests in order: the offsets lookup that plans the
    // next batch waits behind it. Kafka's 500 ms default would add up to half a second to a batch.
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
    config.putAll(settings.properties());
    // These are fixed: the engine, not the consumer, decides what is read and what is committed.
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, settings.consumerGroup());
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // Reading must never create a topic: a misspelt name would become an empty topic on a broker
    // that creates topics on first use, and the run would succeed on it (NoSuchTopicException).
    config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "tributary-" + settings.pipelineId());
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    if (settings.groupAssignment()) {
      groupConfig(settings, config);
    }
    return config;
  }

  /**
   * Group assignment: the classic group protocol with cooperative rebalancing by default (a
   * rebalance moves only the partitions that change owner; the others keep being read), because it
   * works with every broker since Kafka 2.4 and its session timeout is the client's to choose
   * (KIP-848's {@code group.protocol=consumer} sets it on the broker, 45 s at least by default). A
   * user who sets {@code group.protocol: consumer} in the properties gets KIP-848, whose assignor
   * is the broker's.
   */
  private static void groupConfig(KafkaSourceSettings settings, Map<String, Object> config) {
    boolean kip848 = "consumer".equalsIgnoreCase(String.valueOf(config.get("group.protocol")));
    if (!kip848
        && !settings
            .properties()
            .containsKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)) {
      config.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          CooperativeStickyAssignor.class.getName());
    }
    // Members are told apart in the group's description and the logs by their process.
    config.put(
        ConsumerConfig.CLIENT_ID_CONFIG, "tributary-" + settings.pipelineId() + "-" + instanceId());
  }

  /** This process, as {@code <host>/<pid>}. */
  static String instanceId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "localhost";
    }
    return host + "/" + ProcessHandle.current().pid();
  }
}
