package dev.tributary.service.cli;

import dev.tributary.config.Durations;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.StartupTrace;
import dev.tributary.service.server.Backoff;
import dev.tributary.service.server.PipelineSupervisor;
import dev.tributary.service.server.RunStatusServer;
import dev.tributary.service.server.SupervisorSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code tributary run --pipeline FILE [--available-now | --once] [--max-outage DURATION]
 * [--ui-port PORT]}: runs one pipeline in the foreground under the same supervisor as {@code serve}
 * ({@link PipelineSupervisor}): a transient failure (broker or object store unreachable) is ridden
 * out with backoff, for at most {@code --max-outage} (default {@value #DEFAULT_MAX_OUTAGE}), after
 * which it exits 1 saying so; a permanent one exits at once. Ctrl-C (SIGINT) or SIGTERM lets the
 * batch in progress finish, then exits 0. {@code TRIBUTARY_STALL_AFTER} (default 60s) is how long a
 * run may show no progress before it counts as an outage. {@code --ui-port} serves the status page
 * of the run ({@link RunStatusServer}) while it runs.
 */
final class RunCommand {
  static final String DEFAULT_MAX_OUTAGE = "10m";

  /** The restart delays of serve mode's defaults ({@code tributary.restart.*}). */
  private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5));

  /** How long the shutdown hook (a stop by other means than a signal) waits for the batch. */
  private static final Duration HOOK_WAIT = Duration.ofMinutes(2);

  private RunCommand() {}

  static int run(CliArguments args, PrintStream out, PrintStream err) throws Exception {
    Path file =
        Path.of(
            args.option("pipeline")
                .orElseThrow(() -> new CliArguments.UsageException("run needs --pipeline FILE")));
    if (!Files.isRegularFile(file)) {
      throw new CliArguments.UsageException("no such pipeline file: " + file);
    }
    if (args.flag("available-now") && args.flag("once")) {
      throw new CliArguments.UsageException("--available-now and --once exclude each other");
    }
    args.option("ui-port").ifPresent(RunCommand::uiPort); // a usage error before any work
    SupervisorSettings settings =
        new SupervisorSettings(
            BACKOFF,
            stallAfter(System.getenv("TRIBUTARY_STALL_AFTER")),
            Optional.of(maxOutage(args.option("max-outage").orElse(DEFAULT_MAX_OUTAGE))),
            // a second `run` on a checkpoint another process holds is refused at once
            SupervisorSettings.Awaited.FAIL);
    PipelineSpec spec = PipelineParser.parse(file);
    StartupTrace.mark("pipeline file parsed and validated");
    return MaskedFailure.masking(spec.secrets(), () -> run(spec, args, settings, out, err));
  }

  private static Duration maxOutage(String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CliArguments.UsageException("--max-outage: " + e.getMessage());
    }
  }

  private static Duration stallAfter(String text) {
    if (text == null || text.isBlank()) {
      return SupervisorSettings.DEFAULT_STALL_AFTER;
    }
    try {
      Duration parsed = Durations.parse(text);
      if (parsed.isZero()) {
        throw new IllegalArgumentException("it must be positive");
      }
      return parsed;
    } catch (IllegalArgumentException e) {
      throw new CliArguments.UsageException("TRIBUTARY_STALL_AFTER: " + e.getMessage());
    }
  }

  private static int run(
      PipelineSpec spec,
      CliArguments args,
      SupervisorSettings settings,
      PrintStream out,
      PrintStream err)
      throws Exception {
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    StartupTrace.mark("pipeline compiled");
    TriggerSpec trigger =
        args.flag("available-now")
            ? new TriggerSpec.AvailableNow()
            : args.flag("once") ? new TriggerSpec.Once() : pipeline.spec().trigger();
    ProgressLog progress = new ProgressLog(100, spec.secrets());
    ProgressPrinter printer = ProgressPrinter.forStream(out, System.console() != null);
    progress.addListener(printer::batchDone);
    if (StartupTrace.on()) {
      AtomicBoolean first = new AtomicBoolean(true);
      progress.addListener(
          p -> {
            if (first.getAndSet(false)) {
              StartupTrace.mark(
                  "batch "
                      + p.batchId()
                      + " committed ("
                      + p.durationMs()
                      + " ms: "
                      + p.phasesMs()
                      + ")");
            }
          });
    }
    PipelineSupervisor supervisor = PipelineSupervisor.forCommandLine(pipeline, settings, progress);
    CountDownLatch finished = new CountDownLatch(1);
    try (StopSignals signals = StopSignals.install(supervisor::stop, err);
        RunStatusServer ui =
            statusPage(args, file(args), spec, trigger, progress, supervisor, err)) {
      // Stops by other means than SIGTERM/SIGINT (SIGHUP, a signal the JVM keeps) still let the
      // batch in progress finish, so nothing is left for replay; bounded.
      Thread hook =
          new Thread(
              () -> {
                supervisor.stop();
                try {
                  if (!signals.forced()) {
                    finished.await(HOOK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                  }
                } catch (InterruptedException ignored) {
                  Thread.currentThread().interrupt();
                }
              },
              "tributary-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        supervisor.run(trigger);
      } finally {
        finished.countDown();
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running: it only waits for `finished`, which is counted down
        }
      }
      printer.finish();
      return 0;
    } finally {
      // After the run is closed: a SIGTERM lets the JVM exit only once the run has also released
      // its checkpoint lease, so that a restart does not wait for the lease to expire.
      finished.countDown();
    }
  }

  /**
   * With {@code --ui-port PORT}: the status page of this run ({@link RunStatusServer}), its address
   * told on stderr (stdout carries the progress lines); null without the option.
   */
  private static RunStatusServer statusPage(
      CliArguments args,
      Path file,
      PipelineSpec spec,
      TriggerSpec trigger,
      ProgressLog progress,
      PipelineSupervisor supervisor,
      PrintStream err)
      throws IOException {
    Optional<String> option = args.option("ui-port");
    if (option.isEmpty()) {
      return null;
    }
    int port = uiPort(option.get());
    String token = System.getenv(StatusCommand.TOKEN_ENV);
    RunStatusServer ui =
        RunStatusServer.start(
            port,
            Optional.ofNullable(token).filter(t -> !t.isBlank()),
            file,
            spec,
            trigger,
            progress,
            supervisor);
    err.println("Status page of pipeline " + spec.id() + ": http://127.0.0.1:" + ui.port() + "/");
    return ui;
  }

  static int uiPort(String text) {
    try {
      int port = Integer.parseInt(text.strip());
      if (port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return port;
    } catch (NumberFormatException e) {
      throw new CliArguments.UsageException(
          "--ui-port must be a port number (0 to 65535; 0 = any free port), was " + text);
    }
  }

  private static Path file(CliArguments args) {
    return Path.of(args.option("pipeline").orElseThrow());
  }

  /** One line per batch (JSON) when not on a terminal; a live status line on a terminal. */
  abstract static class ProgressPrinter {
    private long offsetsDone;

    static ProgressPrinter forStream(PrintStream out, boolean terminal) {
      return terminal ? new Live(out) : new Lines(out);
    }

    void batchDone(BatchProgress p) {
      offsetsDone += p.partitions().stream().mapToLong(x -> x.endOffset() - x.startOffset()).sum();
      print(p, offsetsDone);
    }

    abstract void print(BatchProgress p, long offsetsDone);

    void finish() {}

    static final class Lines extends ProgressPrinter {
      private final PrintStream out;

      Lines(PrintStream out) {
        this.out = out;
      }

      @Override
      void print(BatchProgress p, long offsetsDone) {
        out.println(ProgressLog.toJson(p));
        out.flush();
      }
    }

    static final class Live extends ProgressPrinter {
      private final PrintStream out;
      private final long started = System.nanoTime();

      Live(PrintStream out) {
        this.out = out;
      }

      @Override
      void print(BatchProgress p, long offsetsDone) {
        long lag = p.lag();
        long total = offsetsDone + lag;
        double seconds = Math.max(0.001, (System.nanoTime() - started) / 1e9);
        double rate = offsetsDone / seconds;
        String eta = rate > 0 && lag > 0 ? String.format("%.0fs", lag / rate) : "-";
        String offsets =
            p.partitions().stream()
                .map(x -> x.topic() + "/" + x.partition() + "@" + x.endOffset())
                .reduce((a, b) -> a + " " + b)
                .orElse("");
        if (offsets.length() > 60) {
          offsets = offsets.substring(0, 57) + "...";
        }
        out.printf(
            "\rbatch %d | %,d of %,d offsets (%.0f%%) | %,.0f rec/s | ETA %s | out %,d | quarantined %,d | %s   ",
            p.batchId(),
            offsetsDone,
            total,
            total == 0 ? 100.0 : 100.0 * offsetsDone / total,
            rate,
            eta,
            p.outputRows(),
            p.quarantinedRows(),
            offsets);
        out.flush();
      }

      @Override
      void finish() {
        out.println();
      }
    }
  }
}
