package dev.tributary.service.engine;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.SetTransaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The commits of a Delta table as the scale-out tests look at them: who wrote each one (the {@code
 * instance} a group-mode commitInfo names, {@code <host>/<pid>}), what it covered, and its {@code
 * txn} actions.
 */
public final class TableCommits {
  private TableCommits() {}

  /**
   * One commit: its version, commitInfo values (empty without one), {@code txn} actions and how
   * many files it adds.
   */
  public record Commit(
      long version, Map<String, Object> info, List<SetTransaction> txns, int addedFiles) {
    /** Whether the commitInfo names {@code instance}'s process as the writer. */
    public boolean by(Process instance) {
      return String.valueOf(info.get("instance")).endsWith("/" + instance.pid());
    }

    /**
     * Whether the commit holds rows of records: its {@code offsets} ({@code topic/p:start-end,...})
     * are not all empty.
     */
    public boolean coversRecords() {
      Object offsets = info.get("offsets");
      if (offsets == null) {
        return false;
      }
      for (String range : offsets.toString().split(",")) {
        String[] startEnd = range.substring(range.lastIndexOf(':') + 1).split("-");
        if (startEnd.length == 2 && Long.parseLong(startEnd[0]) < Long.parseLong(startEnd[1])) {
          return true;
        }
      }
      return false;
    }
  }

  /** Every commit of the table at {@code path}, oldest first (none before the table exists). */
  public static List<Commit> of(Path table) throws IOException {
    List<Commit> out = new ArrayList<>();
    if (!Files.exists(table.resolve("_delta_log"))) {
      return out;
    }
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      DeltaLog log = new DeltaLog(store);
      for (long v : log.commitsAfter(-1)) {
        Map<String, Object> info = Map.of();
        List<SetTransaction> txns = new ArrayList<>();
        int added = 0;
        for (Action a : log.readCommit(v)) {
          if (a instanceof AddFile) {
            added++;
          } else if (a instanceof CommitInfo commitInfo) {
            info = commitInfo.values();
          } else if (a instanceof SetTransaction txn) {
            txns.add(txn);
          }
        }
        out.add(new Commit(v, info, txns, added));
      }
    }
    return out;
  }
}
