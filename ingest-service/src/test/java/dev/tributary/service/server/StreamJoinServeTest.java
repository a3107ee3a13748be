package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} with a stream-stream join (issue 25, step 1): the joined pipeline is refused at
 * load by its name ("not built yet"), the others in the folder are served as usual.
 */
class StreamJoinServeTest {
  @TempDir Path dir;

  private String pipeline(String id, String join) {
    return """
        pipeline: %s
        source: { kafka: { bootstrap-servers: localhost:1, topics: [clicks] } }
        format: { json: { schema: { user_id: string, event_ts: timestamp } } }
        %s
        sink: { delta: { path: %s/%s } }
        checkpoint: %s/%s-checkpoint
        """
        .formatted(id, join, dir, id, dir, id);
  }

  @Test
  void theJoinedPipelineFailsByNameAndTheOthersAreServed() throws Exception {
    Files.writeString(
        dir.resolve("joined.yaml"),
        pipeline(
            "joined",
            """
            join:
              - stream:
                  source: { kafka: { topics: [purchases] } }
                  format: { json: { schema: { user_id: string, event_ts: timestamp } } }
                  prefix: p_
                on: [user_id]
            """));
    Files.writeString(dir.resolve("plain.yaml"), pipeline("plain", ""));

    ServedPipelines served =
        new ServedPipelines(
            new ServeSettings(
                dir,
                Optional.of("secret"),
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                Duration.ofSeconds(5)),
            new SimpleMeterRegistry(),
            new Maintenance(),
            Clock.systemUTC());

    PipelineStatus joined = served.find("joined").orElseThrow().status();
    assertThat(joined.state()).isEqualTo(PipelineState.FAILED);
    assertThat(joined.reason())
        .contains("Pipeline joined cannot run")
        .contains("join[0]: a stream-stream join (stream:) is not built yet (issue 25)");
    assertThat(served.find("plain").orElseThrow().runnable()).isTrue();
  }
}
