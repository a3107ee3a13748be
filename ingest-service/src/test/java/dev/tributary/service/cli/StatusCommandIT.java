package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.service.TributaryApplication;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code tributary status} against serve mode in-process (no token: this loopback client reads the
 * API): a declaration that does not parse shows FAILED with its reason as the last error.
 */
class StatusCommandIT {
  @TempDir static Path dir;
  private static ConfigurableApplicationContext context;
  private static String url;

  @BeforeAll
  static void serve() throws Exception {
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(pipelines.resolve("broken.yaml"), "pipeline: broken\nsorce: {}\n");
    context =
        new SpringApplication(TributaryApplication.class)
            .run(
                "--tributary.pipelines-dir=" + pipelines,
                "--tributary.api-token=",
                "--server.port=0");
    url = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void printsTheOverviewOfTheRunningService() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              ByteArrayOutputStream err = new ByteArrayOutputStream();
              int code =
                  Main.run(
                      new String[] {"status", "--url", url},
                      new PrintStream(out, true, StandardCharsets.UTF_8),
                      new PrintStream(err, true, StandardCharsets.UTF_8));
              assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
              assertThat(code).isZero();
              String shown = out.toString(StandardCharsets.UTF_8);
              assertThat(shown)
                  .startsWith("PIPELINE  STATE   LAG  COMMIT-LAG  FRESHNESS  ACTIVITY\n")
                  .contains("broken    FAILED  -    0           -          -\n")
                  .contains("  last error: ")
                  .contains("sorce");
            });
  }
}
