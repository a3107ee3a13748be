package dev.tributary.table;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import dev.tributary.table.dv.DeletionVectors;
import dev.tributary.table.dv.RoaringBitmapArray;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Protocol;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Deletes rows the way Spark's DELETE does on a table with deletion vectors: per file holding a
 * matching row, a new deletion vector (the old one's rows and the new ones) in one new vector file,
 * and one commit that removes the file with its old vector and adds it with the new one (and
 * supports the {@code deletionVectors} feature). A test fixture: Tributary's writers do not delete
 * rows this way (yet).
 */
final class DeletionVectorTables {
  private DeletionVectorTables() {}

  /**
   * Deletes the rows matching {@code doomed}.
   *
   * @param inline store the vectors in the log instead of a file
   * @return the version committed
   */
  static long delete(
      ObjectStore store, DeltaTable table, Predicate<Object[]> doomed, boolean inline)
      throws IOException {
    Snapshot snapshot = table.snapshot();
    List<AddFile> touched = new ArrayList<>();
    List<RoaringBitmapArray> vectors = new ArrayList<>();
    for (DataFile f : snapshot.files()) {
      RoaringBitmapArray deleted = new RoaringBitmapArray();
      boolean more = false;
      try (RowIterator rows = DataFiles.read(store, f, snapshot.schema())) {
        while (rows.hasNext()) {
          if (doomed.test(rows.next())) {
            deleted.add(rows.rowIndex());
            more = true;
          }
        }
      }
      if (more) {
        AddFile add = snapshot.state().files().get(f.path());
        if (add.deletionVector() != null) {
          deleted.addAll(DeletionVectors.load(store, add.deletionVector()));
        }
        touched.add(add);
        vectors.add(deleted);
      }
    }
    List<DeletionVectorDescriptor> descriptors = new ArrayList<>();
    if (inline) {
      vectors.forEach(v -> descriptors.add(DeletionVectorDescriptor.inline(v)));
    } else if (!vectors.isEmpty()) {
      descriptors.addAll(DeletionVectors.write(store, "dv", vectors));
    }
    long now = table.options().clock().millis();
    List<Action> actions = new ArrayList<>();
    actions.add(new CommitInfo(Map.of("timestamp", now, "operation", "DELETE")));
    Protocol p = snapshot.state().protocol();
    if (!p.supports("deletionVectors")) {
      actions.add(p.withReaderWriterFeature("deletionVectors"));
    }
    for (int i = 0; i < touched.size(); i++) {
      AddFile old = touched.get(i);
      actions.add(old.toRemove(now, true /* dataChange */));
      actions.add(
          new AddFile(
              old.path(),
              old.partitionValues(),
              old.size(),
              old.modificationTime(),
              true /* dataChange */,
              old.stats(),
              old.tags(),
              descriptors.get(i),
              old.baseRowId(),
              old.defaultRowCommitVersion()));
    }
    long version = snapshot.version() + 1;
    if (!new DeltaLog(store).tryCommit(version, actions)) {
      throw new IllegalStateException("version " + version + " exists");
    }
    return version;
  }

  /** Features a table gets when {@link #delete} first runs on it. */
  static final Set<String> FEATURES = Set.of("deletionVectors", "appendOnly", "invariants");
}
