package dev.tributary.service.cli;

import dev.tributary.config.CompactionSpec;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.MaintenanceReports;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.SinkTables;
import dev.tributary.service.pipeline.VacuumRetention;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.VacuumResult;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code tributary compact} and {@code tributary vacuum}: one maintenance pass over a pipeline's
 * sink table (each of a routed sink's tables in turn), for external schedulers (cron, Kubernetes
 * CronJob). Safe while the pipeline runs: compaction commits optimistically and never changes live
 * rows; vacuum keeps every file the current snapshot references.
 */
final class MaintenanceCommands {
  private MaintenanceCommands() {}

  static int compact(CliArguments args, PrintStream out) {
    PipelineSpec spec = spec(args);
    return MaskedFailure.masking(spec.secrets(), () -> compact(spec, new Masked(out, spec)));
  }

  private static int compact(PipelineSpec spec, PrintStream out) throws Exception {
    int minFiles =
        spec.maintenance()
            .compaction()
            .map(CompactionSpec::minFiles)
            .orElse(CompactionSpec.DEFAULT_MIN_FILES);
    try (ObjectStore store = SinkTables.openStore(spec)) {
      for (SinkTables.Table t : tables(spec, store, out)) {
        DeltaTable table = DeltaTable.open(t.store(), PipelineFactory.tableOptions(spec));
        CompactionResult result =
            table.compact(new CompactionOptions(minFiles, spec.sink().targetFileSize().bytes()));
        out.println(
            "compact "
                + spec.id()
                + " "
                + t.location()
                + ": "
                + MaintenanceReports.compaction(result, minFiles));
      }
      return 0;
    }
  }

  static int vacuum(CliArguments args, PrintStream out) {
    PipelineSpec spec = spec(args);
    return MaskedFailure.masking(spec.secrets(), () -> vacuum(spec, args, new Masked(out, spec)));
  }

  /** Output lines with the pipeline's secrets masked (they name the table's location). */
  static final class Masked extends PrintStream {
    private final PrintStream out;
    private final PipelineSpec spec;

    Masked(PrintStream out, PipelineSpec spec) {
      super(out);
      this.out = out;
      this.spec = spec;
    }

    @Override
    public void println(String line) {
      out.println(spec.secrets().mask(line));
    }
  }

  private static int vacuum(PipelineSpec spec, CliArguments args, PrintStream out)
      throws Exception {
    Duration retention = VacuumRetention.of(spec);
    try (ObjectStore store = SinkTables.openStore(spec)) {
      for (SinkTables.Table t : tables(spec, store, out)) {
        DeltaTable table = DeltaTable.open(t.store(), PipelineFactory.tableOptions(spec));
        VacuumResult result =
            args.flag("dry-run") ? table.vacuumDryRun(retention) : table.vacuum(retention);
        out.println(
            "vacuum "
                + spec.id()
                + " "
                + t.location()
                + ": "
                + MaintenanceReports.vacuum(result, retention));
        result.files().forEach(f -> out.println("  " + f));
      }
      return 0;
    }
  }

  /** The sink's tables: a routed sink's, one pass each, in route order (saying when none). */
  private static List<SinkTables.Table> tables(
      PipelineSpec spec, ObjectStore store, PrintStream out) throws IOException {
    List<SinkTables.Table> tables = SinkTables.in(spec, store);
    if (tables.isEmpty()) {
      out.println(spec.id() + ": no table under " + spec.sink().tablesFolder() + " yet");
    }
    return tables;
  }

  private static PipelineSpec spec(CliArguments args) {
    Path file =
        Path.of(
            args.option("pipeline")
                .orElseThrow(
                    () ->
                        new CliArguments.UsageException(
                            args.command() + " needs --pipeline FILE")));
    if (!Files.isRegularFile(file)) {
      throw new CliArguments.UsageException("no such pipeline file: " + file);
    }
    return PipelineParser.parse(file);
  }
}
