package dev.tributary.service.cli;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.backfill.Backfill;
import dev.tributary.service.backfill.BackfillPlan;
import dev.tributary.service.backfill.BackfillRange;
import dev.tributary.service.backfill.BackfillRefusal;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineRun;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code tributary backfill --pipeline FILE --from T1 --to T2 --into PATH | --replace}: the
 * pipeline's query over the events of [T1, T2) into a new table, or swapped into the live table in
 * one commit (docs/DESIGN.md, "Backfills"), then a summary. Exit 0 done, 1 failed (a rerun of the
 * same command continues it) or refused for the source's state, 2 invalid arguments or a
 * declaration a backfill does not support. Ctrl-C lets the batch in progress finish.
 */
final class BackfillCommand {
  private BackfillCommand() {}

  static int run(CliArguments args, PrintStream out, PrintStream err) throws Exception {
    Path file =
        Path.of(
            args.option("pipeline")
                .orElseThrow(
                    () -> new CliArguments.UsageException("backfill needs --pipeline FILE")));
    if (!Files.isRegularFile(file)) {
      throw new CliArguments.UsageException("no such pipeline file: " + file);
    }
    String from =
        args.option("from")
            .orElseThrow(() -> new CliArguments.UsageException("backfill needs --from T1"));
    String to =
        args.option("to")
            .orElseThrow(() -> new CliArguments.UsageException("backfill needs --to T2"));
    if (args.flag("replace") && args.option("into").isPresent()) {
      throw new CliArguments.UsageException("--into and --replace exclude each other");
    }
    boolean replace = args.flag("replace");
    String into =
        replace
            ? null
            : args.option("into")
                .orElseThrow(
                    () ->
                        new CliArguments.UsageException("backfill needs --into PATH or --replace"));
    PipelineSpec spec = PipelineParser.parse(file);
    StreamJoinPlan.refuse(spec, "backfill");
    return MaskedFailure.masking(spec.secrets(), () -> run(spec, from, to, into, out, err));
  }

  /** Runs the backfill into {@code into}, or replaces the range in the live table if null. */
  private static int run(
      PipelineSpec spec, String from, String to, String into, PrintStream out, PrintStream err)
      throws Exception {
    try {
      BackfillRange range = BackfillRange.parse(from, to);
      BackfillPlan plan =
          into == null ? BackfillPlan.replace(spec, range) : BackfillPlan.into(spec, range, into);
      ProgressLog progress = new ProgressLog(100, spec.secrets());
      progress.addListener(
          p -> {
            out.println(ProgressLog.toJson(p));
            out.flush();
          });
      AtomicReference<PipelineRun> running = new AtomicReference<>();
      String summary;
      try (StopSignals signals =
          StopSignals.install(
              () -> {
                PipelineRun run = running.get();
                if (run != null) {
                  run.stop();
                }
              },
              err)) {
        summary =
            into == null
                ? Backfill.replace(plan, progress, running::set).render()
                : Backfill.into(plan, progress, running::set).render();
      }
      out.println(summary);
      return 0;
    } catch (BackfillRefusal e) {
      err.println("tributary backfill: " + e.getMessage());
      return e.exitCode();
    }
  }
}
