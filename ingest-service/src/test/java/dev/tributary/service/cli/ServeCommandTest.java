package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Argument errors of {@code serve} are reported before anything starts. */
class ServeCommandTest {
  @TempDir Path dir;
  private final PrintStream err = new PrintStream(new ByteArrayOutputStream());

  private static CliArguments args(String... args) {
    return CliArguments.parse(args, Set.of(), Set.of("pipelines-dir", "port"));
  }

  @Test
  void needsAPipelinesDirectory() {
    assertThatThrownBy(() -> ServeCommand.run(args("serve"), err))
        .isInstanceOf(CliArguments.UsageException.class)
        .hasMessage("serve needs --pipelines-dir DIR");
  }

  @Test
  void refusesAMissingDirectory() {
    Path missing = dir.resolve("nope");
    assertThatThrownBy(
            () -> ServeCommand.run(args("serve", "--pipelines-dir", missing.toString()), err))
        .isInstanceOf(CliArguments.UsageException.class)
        .hasMessage("no such pipelines directory: " + missing.toAbsolutePath());
  }
}
