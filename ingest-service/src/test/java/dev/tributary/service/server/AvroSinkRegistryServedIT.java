package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.service.testing.TopicContents;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A served pipeline writing Avro values to a topic ({@code sink.kafka.value: avro}): a registry
 * that is down makes it DEGRADED and it recovers by itself once the registry is back, sending every
 * record once; a registry that refuses the schema as incompatible ends it FAILED, naming the
 * subject, without restarts.
 */
class AvroSinkRegistryServedIT {
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

  private ManagedPipeline serve(String in, String out) throws Exception {
    String yaml =
        """
        pipeline: avro-served
        source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
        format: { json: { schema: { id: long, name: string } } }
        sink:
          kafka:
            topic: %s
            value: avro
            registry: { url: "%s", timeout: 2s }
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), in, out, registry.url(), dir);
    PipelineSpec spec = PipelineParser.parse(yaml, "avro-served.yaml", Map.of());
    ManagedPipeline served =
        ManagedPipeline.runnable(
            spec,
            dir.resolve("avro-served.yaml"),
            PipelineLauncher.of(PipelineFactory.compile(spec)),
            new Backoff(Duration.ofMillis(50), Duration.ofMillis(200)),
            Clock.systemUTC());
    served.start(new TriggerSpec.ProcessingTime(Duration.ofMillis(200)));
    return served;
  }

  private static List<String> events(int count) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add("{\"id\":" + i + ",\"name\":\"n" + i + "\"}");
    }
    return out;
  }

  @Test
  void aRegistryThatIsDownDegradesThePipelineUntilItIsBack() throws Exception {
    registry = TestSchemaRegistry.start(dir.resolve("registry"));
    String in = broker.createTopic("avro-served-in", 1);
    String out = broker.createTopic("avro-served-out", 1);
    broker.send(in, 0, events(20));
    registry.stop();

    pipeline = serve(in, out);

    await().atMost(Duration.ofSeconds(90)).until(() -> pipeline.state() == PipelineState.DEGRADED);
    assertThat(pipeline.status().reason())
        .contains("did not answer the schema of subject " + out + "-value")
        .contains("sink.kafka.registry.url");
    assertThat(TopicContents.readUncommitted(broker.bootstrapServers(), out)).isEmpty();

    registry.start();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(TopicContents.readCommitted(broker.bootstrapServers(), out))
                    .hasSize(20));
    await().atMost(Duration.ofSeconds(30)).until(() -> pipeline.state() == PipelineState.RUNNING);
    assertThat(registry.versionIds(out + "-value")).hasSize(1);
  }

  @Test
  void aRegistryThatRefusesTheSchemaFailsThePipelineForGood() throws Exception {
    registry = TestSchemaRegistry.start(dir.resolve("registry"));
    String in = broker.createTopic("avro-served-in", 1);
    String out = broker.createTopic("avro-served-out", 1);
    registry.registerAvro(
        out + "-value",
        "{\"type\":\"record\",\"name\":\"Old\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}");
    registry.setCompatibility(out + "-value", "BACKWARD");
    broker.send(in, 0, events(5));

    pipeline = serve(in, out);

    await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.state() == PipelineState.FAILED);
    assertThat(pipeline.status().reason())
        .contains("refused the value schema for subject " + out + "-value (HTTP 409");
    assertThat(pipeline.status().restarts()).isZero();
    assertThat(TopicContents.readUncommitted(broker.bootstrapServers(), out)).isEmpty();
  }
}
