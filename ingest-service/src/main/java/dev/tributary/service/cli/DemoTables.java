package dev.tributary.service.cli;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.io.IOException;
import java.util.List;

/**
 * Counts read back from the demo's local Delta tables, so that its summaries state what the tables
 * hold rather than what the pipelines reported about themselves. Demo scale: every file is read.
 */
final class DemoTables {
  private DemoTables() {}

  /** The number of rows in the table at {@code path}; 0 when no batch created it. */
  static long rows(String path) throws IOException {
    return total(path, null);
  }

  /** The sum of the whole-number {@code column} over the table at {@code path}; 0 without it. */
  static long sum(String path, String column) throws IOException {
    return total(path, column);
  }

  /** The sum of {@code column} (null: 1 per row) over the table at {@code path}. */
  private static long total(String path, String column) throws IOException {
    try (ObjectStore store = ObjectStores.open(path, null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      if (!table.exists()) {
        return 0;
      }
      Snapshot snapshot = table.snapshot();
      int index = column == null ? -1 : snapshot.schema().fieldNames().indexOf(column);
      if (column != null && index < 0) {
        throw new IllegalStateException("the demo table " + path + " has no column " + column);
      }
      long total = 0;
      for (DataFile f : snapshot.files()) {
        List<Object[]> rows = DataFiles.readAll(store, f, snapshot.schema());
        for (Object[] row : rows) {
          total += index < 0 ? 1 : ((Number) row[index]).longValue();
        }
      }
      return total;
    }
  }
}
