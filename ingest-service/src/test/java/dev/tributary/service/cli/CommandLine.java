package dev.tributary.service.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The command line run in process ({@link Main#run}) with what it prints kept: the fixture of the
 * command tests. Not thread-safe; one per test instance.
 */
final class CommandLine {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** Runs {@code args}; what it prints is added to what earlier runs printed. */
  int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /**
   * Writes {@code yaml} to {@code file} and runs {@code validate} on it, forgetting earlier output.
   */
  int validate(Path file, String yaml) throws IOException {
    Files.writeString(file, yaml);
    reset();
    return run("validate", file.toString());
  }

  /** Forgets what the runs printed so far. */
  void reset() {
    out.reset();
    err.reset();
  }

  /** What the runs printed on standard output. */
  String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  /** What the runs printed on standard error. */
  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }
}
