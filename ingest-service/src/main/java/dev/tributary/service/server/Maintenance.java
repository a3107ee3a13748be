package dev.tributary.service.server;

import dev.tributary.config.CompactionSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.MaintenanceReports;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.VacuumRetention;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.VacuumResult;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction and vacuum passes over a served pipeline's sink table, on demand (REST) or on its
 * schedule. At most one pass of each kind per pipeline at a time; both are safe while the pipeline
 * writes (compaction commits optimistically, vacuum keeps every file a retained snapshot uses).
 * Before the pipeline's first batch created the table, a pass does nothing (outcome {@code
 * skipped}; compaction then reports table version -1).
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
   * Runs one compaction pass with the declared {@code min-files} and the sink's target file size.
   */
  CompactionResult compact(ManagedPipeline p, PipelineMetrics metrics)
      throws IOException, BusyException {
    PipelineSpec spec = p.spec().orElseThrow();
    String key = claim(p, COMPACTION);
    try (ObjectStore store = PipelineFactory.store(spec, spec.sink().path())) {
      int minFiles =
          spec.maintenance()
              .compaction()
              .map(CompactionSpec::minFiles)
              .orElse(CompactionSpec.DEFAULT_MIN_FILES);
      DeltaTable table = DeltaTable.open(store, PipelineFactory.tableOptions(spec));
      if (!table.exists()) {
        // The pipeline creates its table with its first batch; until then there is nothing to do.
        metrics.run(MetricNames.COMPACTION_RUNS, "skipped");
        return new CompactionResult(-1, 0, 0, 0, 0, 0, 0);
      }
      CompactionResult result =
          table.compact(new CompactionOptions(minFiles, spec.sink().targetFileSize().bytes()));
      metrics.compacted(result, table.counters());
      metrics.run(MetricNames.COMPACTION_RUNS, "success");
      if (result.compacted()) {
        LOG.info(
            "Compaction of pipeline {} ({}): {}",
            p.id(),
            p.mask(spec.sink().path()),
            p.mask(MaintenanceReports.compaction(result, minFiles)));
      } else {
        LOG.debug("Compaction of pipeline {} ({}): nothing to compact", p.id(), spec.sink().path());
      }
      return result;
    } catch (IOException | RuntimeException e) {
      metrics.run(MetricNames.COMPACTION_RUNS, "failure");
      throw e;
    } finally {
      inProgress.remove(key);
    }
  }

  /** Runs one vacuum pass with the declared retention (7 days by default). */
  VacuumResult vacuum(ManagedPipeline p, PipelineMetrics metrics, boolean dryRun)
      throws IOException, BusyException {
    PipelineSpec spec = p.spec().orElseThrow();
    String key = claim(p, VACUUM);
    try (ObjectStore store = PipelineFactory.store(spec, spec.sink().path())) {
      Duration retention = VacuumRetention.of(spec);
      DeltaTable table = DeltaTable.open(store, PipelineFactory.tableOptions(spec));
      if (!table.exists()) {
        metrics.run(MetricNames.VACUUM_RUNS, "skipped");
        return new VacuumResult(List.of(), 0, !dryRun);
      }
      VacuumResult result = dryRun ? table.vacuumDryRun(retention) : table.vacuum(retention);
      metrics.vacuumed(result);
      metrics.run(MetricNames.VACUUM_RUNS, "success");
      LOG.info(
          "Vacuum of pipeline {} ({}): {}",
          p.id(),
          p.mask(spec.sink().path()),
          MaintenanceReports.vacuum(result, retention));
      return result;
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
