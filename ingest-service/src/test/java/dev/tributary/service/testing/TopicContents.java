package dev.tributary.service.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Everything a topic holds for a reader with a given isolation level: {@code read_committed} (what
 * a consumer of an exactly-once sink sees: records of committed transactions only, up to the last
 * stable offset) or {@code read_uncommitted}.
 */
public final class TopicContents {
  private TopicContents() {}

  /** Every committed record of every partition, partition by partition in offset order. */
  public static List<ConsumerRecord<byte[], byte[]>> readCommitted(String servers, String topic) {
    return read(servers, topic, "read_committed");
  }

  /** Every record, committed or not, aborted ones excepted (they are never returned). */
  public static List<ConsumerRecord<byte[], byte[]>> readUncommitted(String servers, String topic) {
    return read(servers, topic, "read_uncommitted");
  }

  /**
   * The last stable offsets once the transactions committed just before settle: a producer's {@code
   * commitTransaction} returns when the coordinator has logged the commit, and the markers reach
   * the partitions a moment later, so the stable offset can still stand before the batch's records.
   * Waits up to 2 seconds for it to reach the log end; a transaction really left open (a crash
   * test's) keeps it below, and the records before it are what a reader sees.
   */
  private static Map<TopicPartition, Long> settled(
      KafkaConsumer<byte[], byte[]> consumer,
      String servers,
      List<TopicPartition> partitions,
      Map<TopicPartition, Long> stable) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    Map<TopicPartition, Long> logEnds;
    try (KafkaConsumer<byte[], byte[]> uncommitted = new KafkaConsumer<>(p)) {
      logEnds = uncommitted.endOffsets(partitions, Duration.ofSeconds(30));
    }
    Instant deadline = Instant.now().plusSeconds(2);
    Map<TopicPartition, Long> ends = stable;
    while (!ends.equals(logEnds) && Instant.now().isBefore(deadline)) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ends;
      }
      ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
    }
    return ends;
  }

  private static List<ConsumerRecord<byte[], byte[]>> read(
      String servers, String topic, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic, Duration.ofSeconds(30))
          .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // for read_committed, the end offsets are the last stable offsets
      Map<TopicPartition, Long> stable = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      Map<TopicPartition, Long> ends =
          isolation.equals("read_committed")
              ? settled(consumer, servers, partitions, stable)
              : stable;
      Instant deadline = Instant.now().plusSeconds(60);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        if (Instant.now().isAfter(deadline)) {
          throw new IllegalStateException("could not read " + topic + " up to " + ends);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    out.sort(
        java.util.Comparator.comparingInt((ConsumerRecord<byte[], byte[]> r) -> r.partition())
            .thenComparingLong(ConsumerRecord::offset));
    return out;
  }
}
