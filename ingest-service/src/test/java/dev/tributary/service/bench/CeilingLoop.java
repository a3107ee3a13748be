package dev.tributary.service.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The ceiling of {@link IngestBench}, run in a child JVM of its own with the launcher's JVM
 * options: a bare KafkaConsumer over the whole topic, every value parsed with Jackson's streaming
 * parser (the loop of {@link PipelineBench}'s baseline), nothing written. Usage: {@code CeilingLoop
 * BOOTSTRAP TOPIC PARTITIONS EVENTS}; prints one JSON line: {@code processingMs} (consumer created
 * to the last record parsed) and {@code records}.
 */
public final class CeilingLoop {
  private CeilingLoop() {}

  /** What one pass of the loop did: records parsed, wall nanoseconds, and the parse's checksum. */
  record Pass(long records, long nanos, long checksum) {}

  public static void main(String[] args) throws Exception {
    Pass pass = run(args[0], args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
    // the checksum keeps the parse from being optimised away
    System.out.printf(
        "{\"processingMs\": %d, \"records\": %d, \"checksum\": %d}%n",
        pass.nanos() / 1_000_000, pass.records(), pass.checksum());
  }

  /**
   * The loop: a bare consumer over partitions {@code 0..partitionCount-1} of {@code topic} from the
   * beginning, every value parsed with Jackson's streaming parser, until {@code events} records.
   */
  static Pass run(String bootstrap, String topic, int partitionCount, long events)
      throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    JsonFactory json = new JsonFactory();
    long start = System.nanoTime();
    long seen = 0;
    long checksum = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < partitionCount; i++) {
        partitions.add(new TopicPartition(topic, i));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (seen < events) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          try (JsonParser parser = json.createParser(record.value())) {
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
              if (token == JsonToken.VALUE_STRING) {
                checksum += parser.getTextLength();
              } else if (token == JsonToken.VALUE_NUMBER_INT) {
                checksum += parser.getLongValue();
              }
            }
          }
          seen++;
        }
      }
    }
    return new Pass(seen, System.nanoTime() - start, checksum);
  }
}
