package dev.tributary.table.stream;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Tables, rows and stream helpers of the source tests. */
final class SourceTables {
  static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("name", PrimitiveType.STRING),
          StructField.nullable("region", PrimitiveType.STRING));

  private SourceTables() {}

  static DeltaTable create(ObjectStore store, List<String> partitionBy, int checkpointInterval)
      throws IOException {
    DeltaTable table =
        DeltaTable.open(
            store, TableOptions.defaults().withLogCheckpointInterval(checkpointInterval));
    table.create(SCHEMA, partitionBy, Map.of());
    return table;
  }

  static String region(long id) {
    return id % 3 == 0 ? "EU" : id % 3 == 1 ? "US" : null;
  }

  /** Appends rows with ids [from, to) as transaction ("writer", batch); returns the version. */
  static long append(DeltaTable table, long batch, long from, long to) throws IOException {
    try (AppendTransaction tx = table.newAppend(new TransactionId("writer", batch))) {
      for (long id = from; id < to; id++) {
        tx.write(new Object[] {id, "name-" + id, region(id)});
      }
      return tx.commit(Map.of()).tableVersion();
    }
  }

  /** Commits hand-made actions as the next version, with a commitInfo naming {@code operation}. */
  static long commitByHand(DeltaTable table, String operation, List<Action> actions)
      throws IOException {
    long version = table.snapshot().version() + 1;
    List<Action> all = new ArrayList<>();
    all.add(
        new CommitInfo(Map.of("timestamp", System.currentTimeMillis(), "operation", operation)));
    all.addAll(actions);
    if (!new DeltaLog(table.store()).tryCommit(version, all)) {
      throw new IllegalStateException("version " + version + " exists");
    }
    return version;
  }

  /** Plans ranges until the stream catches up; returns them in order. */
  static List<SourceRange> drain(
      DeltaSourcePlanner planner, SourcePosition from, SourceLimits limits) throws IOException {
    List<SourceRange> ranges = new ArrayList<>();
    SourcePosition at = from;
    for (int guard = 0; guard < 10_000; guard++) {
      SourceRange range = planner.plan(at, limits);
      if (range.isEmpty()) {
        return ranges;
      }
      ranges.add(range);
      at = range.to();
    }
    throw new AssertionError("the stream never caught up from " + from);
  }

  static List<SourceFile> files(List<SourceRange> ranges) {
    return ranges.stream().flatMap(r -> r.files().stream()).toList();
  }

  /** The ids of every row of the files, in reading order. */
  static List<Long> ids(DeltaSourcePlanner planner, List<SourceFile> files) throws IOException {
    List<Long> ids = new ArrayList<>();
    for (SourceRow row : rows(planner, files)) {
      ids.add((Long) row.values()[0]);
    }
    return ids;
  }

  static List<SourceRow> rows(DeltaSourcePlanner planner, List<SourceFile> files)
      throws IOException {
    List<SourceRow> rows = new ArrayList<>();
    for (SourceFile f : files) {
      try (CloseableIterator<SourceRow> it = planner.read(f)) {
        it.forEachRemaining(rows::add);
      }
    }
    return rows;
  }

  /** The ids of the table's current rows, sorted. */
  static List<Long> tableIds(DeltaTable table) throws IOException {
    Snapshot snapshot = table.snapshot();
    List<Long> ids = new ArrayList<>();
    for (DataFile f : snapshot.files()) {
      try (CloseableIterator<Object[]> it = DataFiles.read(table.store(), f, snapshot.schema())) {
        it.forEachRemaining(r -> ids.add((Long) r[0]));
      }
    }
    ids.sort(null);
    return ids;
  }

  static List<Long> sorted(List<Long> ids) {
    List<Long> copy = new ArrayList<>(ids);
    copy.sort(null);
    return copy;
  }

  static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add(id);
    }
    return ids;
  }
}
