package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An error names what the operator must look at even when the file takes it from the environment:
 * {@code run} against a topic that does not exist says which topic and which bootstrap servers,
 * both from plain {@code ${NAME}} references, and masks only the part a secret-named reference put
 * in (docs/OPERATIONS.md, Security). SecretsNeverShownIT covers every other path.
 */
class ShownReferencesIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void anUnknownTopicErrorShowsTheTopicAndTheBootstrapServersFromTheEnvironment() throws Exception {
    Path pipeline = dir.resolve("missing.yaml");
    Files.writeString(
        pipeline,
        """
        pipeline: missing-topic
        source:
          kafka:
            bootstrap-servers: ${KAFKA_BOOTSTRAP}
            topics: ["${ORDERS_TOPIC}-${TENANT_TOKEN}"]
        format: { json: { schema: { id: long } } }
        sink: { delta: { path: "${TABLES}/orders" } }
        checkpoint: ${TABLES}/checkpoint
        """);
    Path log = dir.resolve("run.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                ChildJvm.javaBinary().toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                ChildJvm.classpath(),
                Main.class.getName(),
                "run",
                "--pipeline",
                pipeline.toString(),
                "--once")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("KAFKA_BOOTSTRAP", broker.bootstrapServers());
    pb.environment().put("ORDERS_TOPIC", "no-such-orders");
    pb.environment().put("TENANT_TOKEN", "tenant-token-4711");
    pb.environment().put("TABLES", dir.resolve("tables").toString());
    pb.environment().put("TRIBUTARY_LOG_FORMAT", "text");
    Process run = pb.start();

    assertThat(run.waitFor(2, TimeUnit.MINUTES)).as("run finished").isTrue();
    String output = Files.readString(log);
    assertThat(run.exitValue()).as(output).isEqualTo(1);
    assertThat(output)
        .contains(
            "topic 'no-such-orders-******' does not exist on "
                + broker.bootstrapServers()
                + "; create it or fix source.kafka.topics")
        .doesNotContain("tenant-token-4711");
  }
}
