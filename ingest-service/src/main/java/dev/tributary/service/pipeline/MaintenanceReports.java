package dev.tributary.service.pipeline;

import dev.tributary.config.Durations;
import dev.tributary.config.Size;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.VacuumResult;
import java.time.Duration;

/**
 * What a compaction or a vacuum did, as one sentence for a person: the {@code compact} and {@code
 * vacuum} commands print it and the service logs it. For example {@code compacted 14 files (12.3
 * MB) into 2 files (12.1 MB) in 1 commit (table version 57)}.
 */
public final class MaintenanceReports {
  private MaintenanceReports() {}

  /**
   * Describes a compaction pass.
   *
   * @param minFiles the {@code min-files} it ran with: why nothing was compacted
   */
  public static String compaction(CompactionResult result, int minFiles) {
    if (!result.compacted()) {
      return "nothing to compact at table version "
          + result.tableVersion()
          + ": no partition has "
          + minFiles
          + " or more files smaller than the target file size";
    }
    return "compacted "
        + files(result.filesRemoved())
        + " ("
        + new Size(result.bytesRemoved()).rounded()
        + ") into "
        + files(result.filesAdded())
        + " ("
        + new Size(result.bytesAdded()).rounded()
        + ")"
        + (result.partitions() > 1 ? " in " + result.partitions() + " partitions" : "")
        + " in 1 commit (table version "
        + result.tableVersion()
        + ")"
        + (result.attempts() > 1
            ? "; planned " + result.attempts() + " times: a concurrent commit removed an input"
            : "");
  }

  /** Describes a vacuum pass, or a dry run (what it would delete). */
  public static String vacuum(VacuumResult result, Duration retention) {
    String what =
        files(result.files().size())
            + " ("
            + new Size(result.bytes()).rounded()
            + ") no longer referenced and older than "
            + Durations.format(retention);
    return result.deleted()
        ? "deleted " + what
        : "would delete " + what + " (dry run: nothing deleted)";
  }

  private static String files(long count) {
    return count + (count == 1 ? " file" : " files");
  }
}
