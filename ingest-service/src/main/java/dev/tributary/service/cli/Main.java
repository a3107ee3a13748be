package dev.tributary.service.cli;

import dev.tributary.config.PipelineValidationException;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.StartupTrace;
import java.io.PrintStream;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * The {@code tributary} command line (see the README and docs/PIPELINE_REFERENCE.md): {@code demo},
 * {@code validate}, {@code run}, {@code compact}, {@code vacuum}, {@code serve}, {@code
 * break-lease}, {@code compare}, {@code backfill}, {@code replay-quarantine}, {@code status}.
 *
 * <p>Exit codes: 0 success (also after a graceful stop by SIGTERM or SIGINT: see {@link
 * StopSignals}), 1 a pipeline failed (or, for {@code validate}, the declaration is invalid; for
 * {@code run}, an outage outlasted {@code --max-outage}), 2 invalid arguments or declaration.
 * Errors are printed to stderr as one readable paragraph; the stack trace only with {@code
 * TRIBUTARY_DEBUG=1}.
 */
public final class Main {
  static final String USAGE =
      """
      Usage:
        tributary demo [--events N]                       run the embedded end-to-end demo
        tributary demo avro [--events N]                  the demo with Avro values and a schema registry
        tributary demo medallion [--events N]             the demo as bronze -> silver -> gold
        tributary demo cdc [--events N]                   Debezium changes -> current state + SCD2 history
        tributary demo attribution [--events N]           clicks joined with purchases (a stream-stream join)
        tributary validate PIPELINE.yaml                  parse + validate, print the plan
        tributary run --pipeline PIPELINE.yaml [--available-now | --once] [--max-outage 10m]
                      [--ui-port PORT]                    run until stopped (Ctrl-C = graceful stop);
                                                          rides out a broker or store outage for up
                                                          to --max-outage (default 10m), then exits 1;
                                                          --ui-port serves its status page
        tributary compact --pipeline PIPELINE.yaml        one compaction pass of the sink table
        tributary vacuum --pipeline PIPELINE.yaml [--dry-run]
                                                          one vacuum pass of the sink table
        tributary serve --pipelines-dir DIR [--port N]    the long-running service; its status page
                                                          is at / (http://127.0.0.1:8080/)
        tributary break-lease --pipeline PIPELINE.yaml    free a checkpoint whose owner's machine is down
        tributary compare TABLE_A[@VERSION] TABLE_B[@VERSION] [--key a,b] [--where EXPR]
                                                          compare two Delta tables' rows (local or
                                                          s3://): counts, rows only in A / only in B
                                                          (duplicates count), changed rows by key;
                                                          exit 0 equal, 1 different
        tributary backfill --pipeline PIPELINE.yaml --from T1 --to T2 --into PATH
                                                          the pipeline's query over the events of
                                                          [T1, T2) (UTC instants) into a new table,
                                                          with its own checkpoint; a rerun continues
                                                          an interrupted one
        tributary backfill --pipeline PIPELINE.yaml --from T1 --to T2 --replace
                                                          the same, then the range's rows swapped
                                                          into the live table in one Delta commit
                                                          (safe while the pipeline runs; a rerun
                                                          after the swap does nothing)
        tributary replay-quarantine --pipeline PIPELINE.yaml [--where EXPR]
                                                          parse quarantined records again with the
                                                          current declaration; write those that now
                                                          pass to the sink and take them out of the
                                                          quarantine, exactly once (EXPR: a SQL
                                                          predicate over the quarantine's columns)
        tributary status [--url URL]                      the overview of a running serve (default
                                                          http://127.0.0.1:8080; token from
                                                          TRIBUTARY_API_TOKEN); exits 1 if unreachable
      Exit codes: 0 success (also after a graceful stop by Ctrl-C or SIGTERM), 1 a pipeline failed
      (or an outage outlasted --max-outage; for compare, the tables differ), 2 invalid arguments
      or declaration.""";

  private Main() {}

  public static void main(String[] args) {
    StartupTrace.markLauncher();
    StartupTrace.mark("main");
    // Initialise logging on this thread before any other starts: SLF4J intercepts, and then
    // "replays" with a warning on stderr, the calls other threads make while it initialises.
    LoggerFactory.getILoggerFactory();
    StartupTrace.mark("logging initialised");
    int code = run(args, System.out, System.err);
    if (code != 0 || !"serve".equals(args.length > 0 ? args[0] : "")) {
      System.exit(code);
    }
  }

  /** Runs a command and returns its exit code; never throws. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    String command = args.length == 0 ? "" : args[0];
    try {
      return switch (command) {
        case "demo" ->
            new DemoCommand(out).run(CliArguments.parse(args, Set.of(), Set.of("events", "dir")));
        case "validate" ->
            ValidateCommand.run(CliArguments.parse(args, Set.of(), Set.of()), out, err);
        case "run" ->
            RunCommand.run(
                CliArguments.parse(
                    args,
                    Set.of("available-now", "once"),
                    Set.of("pipeline", "max-outage", "ui-port")),
                out,
                err);
        case "compact" ->
            MaintenanceCommands.compact(
                CliArguments.parse(args, Set.of(), Set.of("pipeline")), out);
        case "vacuum" ->
            MaintenanceCommands.vacuum(
                CliArguments.parse(args, Set.of("dry-run"), Set.of("pipeline")), out);
        case "break-lease" ->
            BreakLeaseCommand.run(CliArguments.parse(args, Set.of(), Set.of("pipeline")), out);
        case "compare" ->
            CompareCommand.run(
                CliArguments.parse(args, Set.of(), Set.of("key", "where")), out, err);
        case "backfill" ->
            BackfillCommand.run(
                CliArguments.parse(
                    args, Set.of("replace"), Set.of("pipeline", "from", "to", "into")),
                out,
                err);
        case "replay-quarantine" ->
            ReplayQuarantineCommand.run(
                CliArguments.parse(args, Set.of(), Set.of("pipeline", "where")), out);
        case "status" ->
            StatusCommand.run(
                CliArguments.parse(args, Set.of(), Set.of("url")), System.getenv(), out, err);
        case "serve" ->
            ServeCommand.run(
                CliArguments.parse(args, Set.of(), Set.of("pipelines-dir", "port")), err);
        // not for users: the launcher's class-data-sharing archive is recorded from it
        case "class-sharing-training" ->
            ClassSharingTraining.run(CliArguments.parse(args, Set.of(), Set.of()));
        case "help", "--help", "-h" -> {
          out.println(USAGE);
          yield 0;
        }
        default ->
            throw new CliArguments.UsageException(
                command.isEmpty() ? "no command given" : "unknown command '" + command + "'");
      };
    } catch (CliArguments.UsageException e) {
      err.println("tributary: " + e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (MaskedFailure e) {
      err.println(e.getMessage());
      return e.exitCode();
    } catch (PipelineValidationException | PipelineDefinitionException e) {
      err.println(e.getMessage());
      return 2;
    } catch (Exception | Error e) {
      err.println(ErrorMessages.paragraph(e));
      if ("1".equals(System.getenv("TRIBUTARY_DEBUG"))) {
        e.printStackTrace(err);
      }
      return 1;
    }
  }
}
