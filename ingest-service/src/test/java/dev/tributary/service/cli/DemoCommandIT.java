package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tributary demo` end to end: its own embedded broker, both demo pipelines, the printed summary.
 */
class DemoCommandIT {
  @TempDir Path dir;

  @Test
  void runsBothDemoPipelinesAndReportsWhatHappened() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path output = dir.resolve("demo");
    int code =
        Main.run(
            new String[] {"demo", "--events", "3000", "--dir", output.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(printed).contains("Produced 3,000 events");
    assertThat(printed)
        .containsPattern(
            "Done: \\d+ batches, 3,000 records read, [\\d,]+ rows written, \\d+ quarantined");
    assertThat(printed).contains("field 'event_time'").contains("value: {");
    assertThat(printed).containsPattern("window rows written, \\d+ late events routed");
    assertThat(printed).contains("window_start | window_end | customer_id | orders | amount_cents");
    assertThat(Files.exists(output.resolve("tables/orders/_delta_log/00000000000000000000.json")))
        .isTrue();
    assertThat(Files.exists(output.resolve("tables/orders-hourly/_delta_log"))).isTrue();

    // A second run empties the previous demo's folder; a foreign non-empty folder is refused.
    Path foreign = Files.createDirectories(dir.resolve("mine"));
    Files.writeString(foreign.resolve("precious.txt"), "keep me");
    int refused =
        Main.run(
            new String[] {"demo", "--dir", foreign.toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(refused).isEqualTo(2);
    assertThat(foreign.resolve("precious.txt")).hasContent("keep me");
  }
}
