package dev.tributary.table;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import dev.tributary.table.dv.DeletionVectors;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.RemoveFile;
import dev.tributary.table.log.TableState;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Deletes unreferenced data files and deletion vector files. A file is deleted when (1) the latest
 * snapshot does not reference it (as a live file or as the file of a live file's deletion vector),
 * (2) its key is not under {@code _delta_log/} nor under any directory or name starting with {@code
 * .}, or with {@code _} unless it is a {@code _col=value} partition directory (Delta's hidden
 * files) — except a file a tombstone of this table names, which is the table's own wherever it lies
 * — and (3) it became unreferenced longer than {@code retention} ago: for a tombstone (of the data
 * file or of a deletion vector in it), its {@code deletionTimestamp}; for a file no commit
 * references (a failed or lost write, or a tombstone expired from the log), its modification time.
 * The retention must exceed the longest write transaction and the longest read of an old snapshot,
 * or those lose files.
 */
final class Vacuum {
  private final DeltaTable table;
  private final Duration retention;

  Vacuum(DeltaTable table, Duration retention) {
    if (retention.isNegative()) {
      throw new IllegalArgumentException("vacuum retention must be >= 0, was " + retention);
    }
    this.table = table;
    this.retention = retention;
  }

  VacuumResult run(boolean delete) throws IOException {
    TableState state = table.latestState();
    ProtocolSupport.checkWritable(
        table.location(), state.version(), state.protocol(), state.metadata());
    long cutoff = table.options().clock().millis() - retention.toMillis();
    Set<String> live = new HashSet<>();
    for (AddFile a : state.files().values()) {
      live.add(a.path());
      dvFile(a.deletionVector()).ifPresent(live::add);
    }
    // A data file or deletion vector file that tombstones name became unreferenced at the latest
    // of their removals (the same file may be named with several deletion vectors).
    Map<String, Long> removedAt = new HashMap<>();
    for (RemoveFile r : state.tombstones().values()) {
      if (r.deletionTimestamp() != null) {
        removedAt.merge(r.path(), r.deletionTimestamp(), Math::max);
        dvFile(r.deletionVector())
            .ifPresent(k -> removedAt.merge(k, r.deletionTimestamp(), Math::max));
      }
    }
    List<String> expired = new ArrayList<>();
    long bytes = 0;
    for (ObjectInfo o : table.store().list("")) {
      String key = o.key();
      // A file in a hidden folder is never an orphan of ours, but one this table's own log removed
      // is its file: e.g. a file a --replace added from its staging folder, compacted away since.
      if (live.contains(key) || hidden(key) && !removedAt.containsKey(key)) {
        continue;
      }
      long unreferencedSince = removedAt.getOrDefault(key, o.lastModified().toEpochMilli());
      if (unreferencedSince < cutoff) {
        expired.add(key);
        bytes += o.size();
      }
    }
    if (delete) {
      for (String key : expired) {
        table.store().delete(key);
      }
    }
    return new VacuumResult(expired, bytes, delete);
  }

  /** The key of a deletion vector's file under the table root, if it has one there. */
  private Optional<String> dvFile(DeletionVectorDescriptor dv) {
    if (dv == null || dv.storageType() == DeletionVectorDescriptor.StorageType.INLINE) {
      return Optional.empty();
    }
    try {
      return Optional.of(DeletionVectors.key(table.store(), dv));
    } catch (IllegalArgumentException outsideTheTable) {
      return Optional.empty(); // not ours to delete, and no file under the root is it
    }
  }

  static boolean hidden(String key) {
    if (key.startsWith(LogFiles.LOG_DIR)) {
      return true;
    }
    for (String segment : key.split("/")) {
      // "_col=value" is a partition directory, not a hidden one.
      if (segment.startsWith(".") || (segment.startsWith("_") && !segment.contains("="))) {
        return true;
      }
    }
    return false;
  }
}
