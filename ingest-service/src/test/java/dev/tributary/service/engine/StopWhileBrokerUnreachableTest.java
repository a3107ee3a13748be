package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * stop() must not wait for a Kafka metadata call that cannot succeed (SIGTERM while the broker is
 * down).
 */
class StopWhileBrokerUnreachableTest {
  @TempDir Path dir;

  @Test
  void stopInterruptsABlockedKafkaCallAndRunReturnsCleanly() throws Exception {
    var spec =
        PipelineParser.parse(
            """
        pipeline: unreachable
        source:
          kafka:
            bootstrap-servers: 127.0.0.1:1
            topics: [t]
            properties:
              default.api.timeout.ms: "600000" # without the wakeup, planning would block this long
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/table
        checkpoint: %s/checkpoint
        """
                .formatted(dir, dir),
            "unreachable.yaml",
            Map.of());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec),
            new TriggerSpec.ProcessingTime(Duration.ofSeconds(1)),
            new ProgressLog(10))) {
      Thread runner =
          new Thread(
              () -> {
                try {
                  run.run();
                } catch (Throwable t) {
                  failure.set(t);
                }
              });
      runner.start();
      // blocked in the first metadata request, which only the wakeup ends within the test
      Awaitility.await()
          .atMost(Duration.ofMinutes(1))
          .until(
              () ->
                  Arrays.stream(runner.getStackTrace())
                      .anyMatch(f -> f.getClassName().startsWith("org.apache.kafka.clients.")));
      run.stop();
      Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> !runner.isAlive());
    }
    assertThat(failure.get()).isNull();
  }
}
