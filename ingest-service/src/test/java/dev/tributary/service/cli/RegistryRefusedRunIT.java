package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} against a registry that refuses its credentials exits 1 with the registry's answer.
 */
class RegistryRefusedRunIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void runExitsOneWithTheRefusalForAWrongRegistryToken() throws Exception {
    try (TestSchemaRegistry registry =
        TestSchemaRegistry.startWith(dir.resolve("registry"), List.of("bearer=right-token"))) {
      String topic = broker.createTopic("registry-refused-run", 1);
      byte[] value = new byte[] {0, 0, 0, 0, 0, 2, 'a'};
      System.arraycopy(
          ConfluentWireFormat.header(
              registry.register(topic + "-value", "AVRO", "\"string\"", Map.of())),
          0,
          value,
          0,
          5);
      try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
        producer.send(new ProducerRecord<>(topic, 0, null, value)).get();
      }
      Path file = dir.resolve("refused.yaml");
      Files.writeString(
          file,
          """
          pipeline: refused
          source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
          format:
            avro:
              registry: { url: "%s", bearer-token: "wrong-token", timeout: 5s }
              schema: { v: string }
          sink: { delta: { path: %s/table } }
          checkpoint: %s/checkpoint
          """
              .formatted(broker.bootstrapServers(), topic, registry.url(), dir, dir));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();

      int code =
          Main.run(
              new String[] {"run", "--pipeline", file.toString(), "--available-now"},
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));

      assertThat(code).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("HTTP 401")
          .contains("bearer-token")
          .doesNotContain("wrong-token");
    }
  }
}
