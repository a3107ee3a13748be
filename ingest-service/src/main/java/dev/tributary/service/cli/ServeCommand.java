package dev.tributary.service.cli;

import java.io.PrintStream;

/** {@code tributary serve}: the long-running service. */
final class ServeCommand {
  private ServeCommand() {}

  static int run(CliArguments args, PrintStream err) {
    err.println("tributary: serve is not available in this version yet; run each pipeline with"
        + " 'tributary run --pipeline FILE' meanwhile.");
    return 2;
  }
}
