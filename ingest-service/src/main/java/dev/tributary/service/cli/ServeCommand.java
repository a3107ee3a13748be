package dev.tributary.service.cli;

import dev.tributary.service.TributaryApplication;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code tributary serve --pipelines-dir DIR [--port N]}: the long-running service. Starts the
 * Spring application (package {@code dev.tributary.service.server}) and returns 0 once it is up;
 * the web server's threads keep the JVM alive. SIGTERM or SIGINT closes the context, which lets
 * every pipeline finish its batch in progress (bounded by {@code tributary.shutdown-timeout}), and
 * then exits 0 ({@link StopSignals}). {@code TRIBUTARY_LOG_FORMAT=json} selects JSON logs.
 */
final class ServeCommand {
  private ServeCommand() {}

  static int run(CliArguments args, PrintStream err) {
    Path dir =
        Path.of(
            args.option("pipelines-dir")
                .orElseThrow(
                    () -> new CliArguments.UsageException("serve needs --pipelines-dir DIR")));
    if (!Files.isDirectory(dir)) {
      throw new CliArguments.UsageException("no such pipelines directory: " + dir.toAbsolutePath());
    }
    // Passed as Spring command-line properties: they take precedence over application.yml and
    // the environment, as options typed on the command line should.
    List<String> properties = new ArrayList<>();
    properties.add("--tributary.pipelines-dir=" + dir.toAbsolutePath());
    args.option("port").ifPresent(port -> properties.add("--server.port=" + port));
    SpringApplication app = new SpringApplication(TributaryApplication.class);
    if ("json".equalsIgnoreCase(System.getenv("TRIBUTARY_LOG_FORMAT"))) {
      app.setAdditionalProfiles("json-logs");
    }
    try {
      ConfigurableApplicationContext context = app.run(properties.toArray(String[]::new));
      // Installed for the life of the process: a graceful stop exits with the context's exit code
      // (0) rather than the 143 of a JVM shut down by the signal.
      StopSignals.install(() -> System.exit(SpringApplication.exit(context)), err);
      return 0;
    } catch (RuntimeException e) {
      err.println("tributary: serve could not start: " + rootMessage(e));
      return 1;
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }
}
