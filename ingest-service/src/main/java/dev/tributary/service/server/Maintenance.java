package dev.tributary.service.server;

import dev.tributary.config.CompactionSpec;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction and vacuum passes over a served pipeline's sink table (each routed table of a sink
 * with {@code route}), on demand (REST) or on its schedule. At most one pass of each kind per
 * pipeline at a time; both are safe while the pipeline writes (compaction commits optimistically,
 * vacuum keeps every file a retained snapshot uses). Before the pipeline's first batch created the
 * table, a pass does nothing (outcome {@code skipped}; compaction then reports table version -1).
 */
final class Maintenance {
  private static final Logger LOG = LoggerFactory.getLogger(Maintenance.class);
  static final String COMPACTION = "compaction";
  static final String VACUUM = "vacuum";

  private final Set<String> inProgress = ConcurrentHashMap.newKeySet();

  /** Thrown when a pass of the same kind is already running for the pipeline. */
  static final class BusyException extends Exception {
    BusyException(String message) {
      super(message);
    }
  }

  /**
   * Runs one compaction pass with the declared {@code min-files} and the sink's target file size,
   * over the sink table or, with {@code route}, each routed table in turn.
   *
   * @return the pass's result; over several tables, their counts added up and the highest table
   *     version
   */
  CompactionResult compact(ManagedPipeline p, PipelineMetrics metrics)
      throws IOException, BusyException {
    PipelineSpec spec = p.spec().orElseThrow();
    String key = claim(p, COMPACTION);
    try (ObjectStore store = SinkTables.openStore(spec)) {
      int minFiles =
          spec.maintenance()
              .compaction()
              .map(CompactionSpec::minFiles)
              .orElse(CompactionSpec.DEFAULT_MIN_FILES);
      CompactionResult total = null;
      for (SinkTables.Table t : SinkTables.in(spec, store)) {
        DeltaTable table = DeltaTable.open(t.store(), PipelineFactory.tableOptions(spec));
        if (!table.exists()) {
          continue; // the pipeline creates its table with its first batch
        }
        CompactionResult result =
            table.compact(new CompactionOptions(minFiles, spec.sink().targetFileSize().bytes()));
        metrics.compacted(result, table.counters());
        if (result.compacted()) {
          LOG.info(
              "Compaction of pipeline {} ({}): {}",
              p.id(),
              p.mask(t.location()),
              p.mask(MaintenanceReports.compaction(result, minFiles)));
        } else {
          LOG.debug("Compaction of pipeline {} ({}): nothing to compact", p.id(), t.location());
        }
        total = total == null ? result : sum(total, result);
      }
      if (total == null) {
        // Until the first batch created a table there is nothing to do.
        metrics.run(MetricNames.COMPACTION_RUNS, "skipped");
        return new CompactionResult(-1, 0, 0, 0, 0, 0, 0);
      }
      metrics.run(MetricNames.COMPACTION_RUNS, "success");
      return total;
    } catch (IOException | RuntimeException e) {
      metrics.run(MetricNames.COMPACTION_RUNS, "failure");
      throw e;
    } finally {
      inProgress.remove(key);
    }
  }

  private static CompactionResult sum(CompactionResult a, CompactionResult b) {
    return new CompactionResult(
        Math.max(a.tableVersion(), b.tableVersion()),
        a.partitions() + b.partitions(),
        a.filesRemoved() + b.filesRemoved(),
        a.filesAdded() + b.filesAdded(),
        a.bytesRemoved() + b.bytesRemoved(),
        a.bytesAdded() + b.bytesAdded(),
        a.attempts() + b.attempts());
  }

  /**
   * Runs one vacuum pass with the declared retention (7 days by default), over the sink table or,
   * with {@code route}, each routed table in turn (the files of all of them in the result).
   */
  VacuumResult vacuum(ManagedPipeline p, PipelineMetrics metrics, boolean dryRun)
      throws IOException, BusyException {
    PipelineSpec spec = p.spec().orElseThrow();
    String key = claim(p, VACUUM);
    try (ObjectStore store = SinkTables.openStore(spec)) {
      Duration retention = VacuumRetention.of(spec);
      List<String> files = new ArrayList<>();
      long bytes = 0;
      boolean any = false;
      for (SinkTables.Table t : SinkTables.in(spec, store)) {
        DeltaTable table = DeltaTable.open(t.store(), PipelineFactory.tableOptions(spec));
        if (!table.exists()) {
          continue;
        }
        any = true;
        VacuumResult result = dryRun ? table.vacuumDryRun(retention) : table.vacuum(retention);
        metrics.vacuumed(result);
        LOG.info(
            "Vacuum of pipeline {} ({}): {}",
            p.id(),
            p.mask(t.location()),
            MaintenanceReports.vacuum(result, retention));
        files.addAll(result.files());
        bytes += result.bytes();
      }
      if (!any) {
        metrics.run(MetricNames.VACUUM_RUNS, "skipped");
        return new VacuumResult(List.of(), 0, !dryRun);
      }
      metrics.run(MetricNames.VACUUM_RUNS, "success");
      return new VacuumResult(files, bytes, !dryRun);
    } catch (IOException | RuntimeException e) {
      metrics.run(MetricNames.VACUUM_RUNS, "failure");
      throw e;
    } finally {
      inProgress.remove(key);
    }
  }

  private String claim(ManagedPipeline p, String operation) throws BusyException {
    String key = p.id() + "/" + operation;
    if (!inProgress.add(key)) {
      throw new BusyException(ServerMessages.busy(p.id(), operation));
    }
    return key;
  }
}
