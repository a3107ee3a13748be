package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.testing.KafkaTestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka source a run creates and connects while it opens its checkpoint and tables ({@link
 * EarlyKafkaSource}): the run reads as before, and what the early metadata calls meet is reported
 * as the engine's first call would have reported it.
 */
class EarlyKafkaSourceIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  private PipelineSpec spec(String topic) {
    return PipelineParser.parse(
        """
        pipeline: early-kafka
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema: { id: long }
        sink:
          delta: { path: "%s/table" }
        checkpoint: "%s/checkpoint"
        """
            .formatted(broker.bootstrapServers(), topic, dir, dir),
        "early-kafka.yaml",
        Map.of());
  }

  @Test
  void aRunReadsEveryRecordThroughTheSourceCreatedEarly() throws Exception {
    String topic = broker.createTopic("early-kafka", 2);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < 100; i++) {
        producer.send(
            new ProducerRecord<>(
                topic, i % 2, null, ("{\"id\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
      }
    }
    ProgressLog progress = new ProgressLog(10);
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec(topic)), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    assertThat(progress.last(10).stream().mapToLong(BatchProgress::inputRows).sum()).isEqualTo(100);
  }

  @Test
  void aMissingTopicFailsTheStartNamingPipelineAndTopic() {
    PipelineSpec spec = spec("early-kafka-missing");
    assertThatThrownBy(
            () -> {
              try (PipelineRun run =
                  PipelineRun.open(
                      PipelineFactory.compile(spec),
                      new TriggerSpec.AvailableNow(),
                      new ProgressLog(10))) {
                run.run();
              }
            })
        .hasMessageContaining(
            "Pipeline early-kafka: topic 'early-kafka-missing' does not exist on "
                + broker.bootstrapServers());
  }
}
