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
 * {@code serve} with a stream-stream join (issue 25): since step 5 the joined pipeline loads and is
 * runnable beside the others in the folder (step 1 refused it at load).
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
  void theJoinedPipelineIsServedBesideTheOthers() throws Exception {
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
    assertThat(joined.state()).as("%s", joined.reason()).isNotEqualTo(PipelineState.FAILED);
    assertThat(served.find("joined").orElseThrow().runnable()).isTrue();
    assertThat(served.find("plain").orElseThrow().runnable()).isTrue();
  }
}
