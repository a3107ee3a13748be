package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A clean run prints what it did and nothing else: no logging-framework warnings on stderr. */
class CleanOutputIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void aCleanRunPrintsNoSlf4jWarnings() throws Exception {
    String topic = broker.createTopic("clean-output", 2);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      values.add("{\"id\":" + i + "}");
    }
    broker.send(topic, 0, values);
    Path pipeline = dir.resolve("clean.yaml");
    Files.writeString(
        pipeline,
        """
        pipeline: clean-output
        source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
        format: { json: { schema: { id: long } } }
        sink: { delta: { path: %s/table } }
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, dir, dir));
    Path log = dir.resolve("run.log");

    Process run =
        ChildJvm.start(
            List.of("-Xmx256m"),
            Main.class.getName(),
            List.of("run", "--pipeline", pipeline.toString(), "--available-now"),
            log,
            dir);

    assertThat(run.waitFor(120, TimeUnit.SECONDS)).as("run finished").isTrue();
    String output = Files.readString(log);
    assertThat(run.exitValue()).as("exit code; output:%n%s", output).isZero();
    assertThat(output).doesNotContain("SLF4J");
  }
}
