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
 * down). Deterministic: the stop is sent once the run's thread is inside the Kafka client's call
 * (seen on its stack), and the run must then end cleanly well within the 30 s the call would
 * otherwise block for before it fails (a failure that run() would throw).
 */
class StopWhileBrokerUnreachableTest {
  /** Well below the source's metadata timeout (30 s): a return by timeout would be too late. */
  private static final Duration PROMPTLY = Duration.ofSeconds(15);

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
    ProgressLog progress = new ProgressLog(10);
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec),
            new TriggerSpec.ProcessingTime(Duration.ofSeconds(1)),
            progress)) {
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
      Awaitility.await("the run blocked in a Kafka call while planning")
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () ->
                  progress.activity().snapshot().phase() == RunActivity.Phase.PLANNING
                      && Arrays.stream(runner.getStackTrace())
                          .anyMatch(f -> f.getClassName().startsWith("org.apache.kafka.clients")));
      long stoppedAt = System.nanoTime();
      run.stop();
      Awaitility.await("run() returned after stop()")
          .atMost(PROMPTLY)
          .until(() -> !runner.isAlive());
      assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(PROMPTLY);
    }
    assertThat(failure.get()).as("a clean stop, not the call's timeout").isNull();
  }
}
