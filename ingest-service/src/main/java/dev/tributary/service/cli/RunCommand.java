package dev.tributary.service.cli;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code tributary run --pipeline FILE [--available-now | --once]}: runs one pipeline in the
 * foreground. Ctrl-C (SIGINT) or SIGTERM lets the batch in progress finish, then exits 0.
 */
final class RunCommand {
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
    PipelineSpec spec = PipelineParser.parse(file);
    return MaskedFailure.masking(spec.secrets(), () -> run(spec, args, out));
  }

  private static int run(PipelineSpec spec, CliArguments args, PrintStream out) throws Exception {
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    TriggerSpec trigger =
        args.flag("available-now")
            ? new TriggerSpec.AvailableNow()
            : args.flag("once") ? new TriggerSpec.Once() : pipeline.spec().trigger();
    ProgressLog progress = new ProgressLog(100, spec.secrets());
    ProgressPrinter printer = ProgressPrinter.forStream(out, System.console() != null);
    progress.addListener(printer::batchDone);
    CountDownLatch finished = new CountDownLatch(1);
    try (PipelineRun run = PipelineRun.open(pipeline, trigger, progress)) {
      Thread hook =
          new Thread(
              () -> {
                run.stop();
                try {
                  // Let the batch in progress finish so nothing is left for replay, and the run
                  // close; bounded.
                  finished.await(2, TimeUnit.MINUTES);
                } catch (InterruptedException ignored) {
                  Thread.currentThread().interrupt();
                }
              },
              "tributary-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      run.run();
      printer.finish();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it only waits for `finished`, counted down below
      }
      return 0;
    } finally {
      // After the run is closed: a SIGTERM lets the JVM exit only once the run has also released
      // its checkpoint lease, so that a restart does not wait for the lease to expire.
      finished.countDown();
    }
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
