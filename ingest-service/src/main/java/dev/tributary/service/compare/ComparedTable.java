package dev.tributary.service.compare;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableException;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One side of a comparison: a Delta table (ours or any other writer's) at a version, read with
 * {@link DataFiles#read} (deletion vectors applied, column mapping resolved, partition values
 * filled in).
 */
public final class ComparedTable implements AutoCloseable {
  private final TableRef ref;
  private final ObjectStore store;
  private final Snapshot snapshot;

  private ComparedTable(TableRef ref, ObjectStore store, Snapshot snapshot) {
    this.ref = ref;
    this.store = store;
    this.snapshot = snapshot;
  }

  /**
   * Opens the table at its version (or latest). The caller closes it.
   *
   * @param s3 how to reach S3 for an {@code s3://} location
   * @throws CompareRefusal if there is no table there, or not that version
   * @throws IOException if the store cannot be read
   */
  public static ComparedTable open(TableRef ref, S3Settings s3) throws IOException {
    ObjectStore store;
    try {
      store = ObjectStores.open(ref.location(), s3);
    } catch (IllegalArgumentException e) {
      throw new CompareRefusal(e.getMessage(), e);
    }
    try {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      Optional<Snapshot> latest = table.snapshotIfExists();
      if (latest.isEmpty()) {
        throw new CompareRefusal(CompareErrors.noTable(ref.location()));
      }
      Snapshot snapshot = latest.get();
      if (ref.version().isPresent() && ref.version().getAsLong() != snapshot.version()) {
        long version = ref.version().getAsLong();
        if (version > snapshot.version()) {
          throw new CompareRefusal(
              CompareErrors.noSuchVersion(ref.location(), version, snapshot.version()));
        }
        try {
          snapshot = table.snapshotAt(version);
        } catch (TableException e) {
          throw new CompareRefusal(
              CompareErrors.versionGone(ref.location(), version, e.getMessage()), e);
        }
      }
      return new ComparedTable(ref, store, snapshot);
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** The table as named, with the version read: {@code /data/orders@12}. */
  public String name() {
    return ref.location() + "@" + snapshot.version();
  }

  /** The version read. */
  public long version() {
    return snapshot.version();
  }

  /** The table's schema at that version (partition columns included). */
  public StructType schema() {
    return snapshot.schema();
  }

  /**
   * The rows with their values in the order of {@code columns} (names of this table's columns),
   * those {@code where} accepts (it sees the values in that order too).
   */
  TableComparison.Rows rows(List<String> columns, Predicate<Object[]> where) {
    StructType schema = snapshot.schema();
    int[] positions = columns.stream().mapToInt(schema::indexOf).toArray();
    List<DataFile> files = snapshot.files();
    long rows = 0;
    for (DataFile f : files) {
      // unknown counts (no stats): a row per 20 bytes of Parquet, a generous guess
      rows += f.liveRows() >= 0 ? f.liveRows() : f.size() / 20;
    }
    long estimate = TableComparison.estimate(rows, columns.size());
    return new TableComparison.Rows() {
      @Override
      public void forEach(Consumer<Object[]> sink) throws IOException {
        for (DataFile f : files) {
          try (RowIterator it = DataFiles.read(store, f, schema, snapshot.columnMapping())) {
            while (it.hasNext()) {
              Object[] row = it.next();
              Object[] ordered = new Object[positions.length];
              for (int i = 0; i < positions.length; i++) {
                ordered[i] = row[positions[i]];
              }
              if (where.test(ordered)) {
                sink.accept(ordered);
              }
            }
          }
        }
      }

      @Override
      public long estimatedBytes() {
        return estimate;
      }
    };
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
