package dev.tributary.service.engine;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads every row of a Delta table's current snapshot, for assertions. */
public final class TableContents {
  private TableContents() {}

  public static List<Object[]> rows(ObjectStore store) throws IOException {
    Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    List<Object[]> rows = new ArrayList<>();
    for (DataFile file : snapshot.files()) {
      rows.addAll(DataFiles.readAll(store, file, snapshot.schema()));
    }
    return rows;
  }

  /** The table's first column as longs (its ids), sorted: a record written twice shows twice. */
  public static List<Long> ids(Path table) throws IOException {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      List<Long> ids = new ArrayList<>();
      for (Object[] row : rows(store)) {
        ids.add((Long) row[0]);
      }
      ids.sort(null);
      return ids;
    }
  }
}
