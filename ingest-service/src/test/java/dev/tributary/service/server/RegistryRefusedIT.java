package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A registry that refuses the pipeline's credentials (401) is a permanent failure under {@code
 * serve}: the pipeline ends FAILED with the registry's answer and is not restarted, because every
 * restart would be refused the same way.
 */
class RegistryRefusedIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private TestSchemaRegistry registry;
  private ManagedPipeline pipeline;

  @AfterEach
  void stop() throws Exception {
    if (pipeline != null) {
      pipeline.stop();
      pipeline.awaitInactive(Duration.ofSeconds(30));
    }
    if (registry != null) {
      registry.close();
    }
  }

  /** A topic with one Avro-framed record and a pipeline whose registry password is wrong. */
  private PipelineSpec refusedPipeline() throws Exception {
    String topic = broker.createTopic("registry-refused", 1);
    int id = registry.registerAvro(topic + "-value", "\"string\"");
    byte[] value = new byte[] {0, 0, 0, 0, 0, 2, 'a'};
    System.arraycopy(ConfluentWireFormat.header(id), 0, value, 0, 5);
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      producer.send(new ProducerRecord<>(topic, 0, null, value)).get();
    }
    String yaml =
        """
        pipeline: refused
        source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
        format:
          avro:
            registry: { url: "%s", basic-auth: "${SR_AUTH}", timeout: 5s }
            schema: { v: string }
        sink: { delta: { path: %s/table } }
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, registry.url(), dir, dir);
    return PipelineParser.parse(
        yaml, "refused.yaml", Map.of("SR_AUTH", "tributary:wrong-password"));
  }

  @Test
  void aRegistryThatRefusesTheCredentialsFailsTheServedPipelineForGood() throws Exception {
    registry =
        TestSchemaRegistry.startWith(
            dir.resolve("registry"), List.of("basic=tributary:reg-secret"));
    PipelineSpec spec = refusedPipeline();
    pipeline =
        ManagedPipeline.runnable(
            spec,
            dir.resolve("refused.yaml"),
            PipelineLauncher.of(PipelineFactory.compile(spec)),
            new Backoff(Duration.ofMillis(5), Duration.ofMillis(20)),
            Clock.systemUTC());

    pipeline.start(TriggerSpec.DEFAULT);

    await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.state() == PipelineState.FAILED);
    assertThat(pipeline.status().reason())
        .contains("the schema registry at " + registry.url() + " refused")
        .contains("HTTP 401")
        .contains("check format.*.registry.basic-auth")
        .doesNotContain("wrong-password");
    assertThat(pipeline.status().restarts()).isZero();
    await().atMost(Duration.ofSeconds(30)).until(() -> !pipeline.active());
  }
}
