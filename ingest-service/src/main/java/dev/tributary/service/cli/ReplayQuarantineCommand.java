package dev.tributary.service.cli;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.replay.QuarantineReplay;
import dev.tributary.service.replay.RecordKey;
import dev.tributary.service.replay.ReplayReport;
import dev.tributary.service.replay.Replays;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code tributary replay-quarantine --pipeline FILE [--where EXPR]}: the pipeline's quarantined
 * records parsed again with its current declaration; those that now come through are written to its
 * sink and leave the quarantine, exactly once ({@link QuarantineReplay}). Exit 0 when the replay
 * ran (records that still fail are reported, and stay), 1 when it failed, 2 for invalid arguments
 * or a pipeline it cannot replay into.
 */
final class ReplayQuarantineCommand {
  private ReplayQuarantineCommand() {}

  static int run(CliArguments args, PrintStream out) {
    PipelineSpec spec = spec(args);
    StreamJoinPlan.refuse(spec, "replay-quarantine");
    return MaskedFailure.masking(
        spec.secrets(), () -> run(spec, args, new MaintenanceCommands.Masked(out, spec)));
  }

  private static int run(PipelineSpec spec, CliArguments args, PrintStream out) throws Exception {
    Optional<ReplayReport> report = Replays.run(spec, args.option("where"));
    if (report.isEmpty()) {
      out.println(
          "replay-quarantine "
              + spec.id()
              + ": no quarantine table at "
              + spec.quarantine().path()
              + " yet; nothing to replay");
      return 0;
    }
    print(spec, report.get(), out);
    return 0;
  }

  private static void print(PipelineSpec spec, ReplayReport r, PrintStream out) {
    String id = spec.id();
    r.completed()
        .ifPresent(
            c ->
                out.println(
                    "replay-quarantine "
                        + id
                        + ": completed interrupted run "
                        + c.run()
                        + " (its "
                        + records(c.records())
                        + " are in the sink since version "
                        + c.sinkVersion()
                        + "; "
                        + (c.quarantineCommit() >= 0
                            ? "taken out of the quarantine in version " + c.quarantineCommit()
                            : "already out of the quarantine")
                        + ")"));
    if (r.lostRace()) {
      out.println(
          "replay-quarantine "
              + id
              + ": another replay of this pipeline committed run "
              + r.run()
              + " first; this one wrote nothing. Run the command again to replay what is left.");
      return;
    }
    out.println(
        "replay-quarantine "
            + id
            + ": read "
            + spec.quarantine().path()
            + "@"
            + r.quarantineVersion()
            + " ("
            + records(r.quarantineRows())
            + "), selected "
            + records(r.selected())
            + (r.run() > 0 ? ", run " + r.run() : ""));
    if (r.selected() == 0) {
      out.println("nothing to replay");
      return;
    }
    out.println(
        "replayed: "
            + records(r.replayed())
            + (r.sinkVersion() >= 0
                ? " -> "
                    + rows(r.rowsWritten())
                    + " written to "
                    + spec.sink().path()
                    + " version "
                    + r.sinkVersion()
                : "")
            + (r.replayed() > r.rowsWritten()
                ? " (records without a row were dropped by a filter or an expectation)"
                : ""));
    out.println("still failing: " + records(r.stillFailing()) + " (they stay in the quarantine)");
    for (ReplayReport.Failure f : r.failures()) {
      out.println(
          "  "
              + records(f.records())
              + ", e.g. "
              + f.samples().stream().map(RecordKey::toString).collect(Collectors.joining(", "))
              + ": "
              + f.error());
    }
    out.println(
        r.quarantineCommit() >= 0
            ? "quarantine: version "
                + r.quarantineCommit()
                + " (replayed records removed, new errors recorded)"
            : "quarantine: unchanged");
  }

  private static String records(long n) {
    return n + (n == 1 ? " record" : " records");
  }

  private static String rows(long n) {
    return n + (n == 1 ? " row" : " rows");
  }

  private static PipelineSpec spec(CliArguments args) {
    Path file =
        Path.of(
            args.option("pipeline")
                .orElseThrow(
                    () ->
                        new CliArguments.UsageException(
                            "replay-quarantine needs --pipeline FILE")));
    if (!Files.isRegularFile(file)) {
      throw new CliArguments.UsageException("no such pipeline file: " + file);
    }
    return PipelineParser.parse(file);
  }
}
