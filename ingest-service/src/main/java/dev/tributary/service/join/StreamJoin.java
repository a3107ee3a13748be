package dev.tributary.service.join;

import dev.tributary.config.JoinSpec;
import dev.tributary.config.JoinType;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableException;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * One join: a dimension table, the version of it in memory, and the join of a stream row with it. A
 * version is loaded only when asked for and not already held, so refreshing an unchanged table
 * costs one listing of its log. Not thread-safe (the engine's thread only).
 */
final class StreamJoin {
  private final String pipeline;
  private final JoinSpec spec;
  private final DeltaTable table;
  private final StructType stream;
  private final JoinLayout layout;
  private final Object[] noMatch;
  private DimensionIndex index;
  private long loads;

  private StreamJoin(
      String pipeline, JoinSpec spec, DeltaTable table, StructType stream, JoinLayout layout) {
    this.pipeline = pipeline;
    this.spec = spec;
    this.table = table;
    this.stream = stream;
    this.layout = layout;
    this.noMatch = new Object[layout.added().size()];
  }

  /**
   * Reads the dimension's latest schema and resolves the join against it (nothing is loaded yet).
   *
   * @param store the store rooted at the dimension table; the caller closes it
   * @throws JoinException if the table cannot be read or does not fit the join
   */
  static StreamJoin open(
      String pipeline, int index, JoinSpec spec, StructType stream, ObjectStore store)
      throws IOException {
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    Snapshot latest = snapshot(pipeline, "join[" + index + "]", spec, table::snapshot);
    return new StreamJoin(
        pipeline,
        spec,
        table,
        stream,
        JoinLayout.resolve(pipeline, index, spec, stream, latest.schema()));
  }

  JoinLayout layout() {
    return layout;
  }

  /** The version held in memory, or -1 before the first load. */
  long version() {
    return index == null ? -1 : index.version();
  }

  /** How many versions were loaded so far. */
  long loads() {
    return loads;
  }

  /** Brings the latest version into memory if it is not there already; returns it. */
  long refresh() throws IOException {
    Snapshot latest = snapshot(pipeline, layout.where(), spec, table::snapshot);
    if (latest.version() != version()) {
      load(latest);
    }
    return latest.version();
  }

  /**
   * Brings {@code version} exactly into memory if it is not there already (a replayed batch's
   * version).
   */
  void pin(long version) throws IOException {
    if (version != version()) {
      load(snapshot(pipeline, layout.where(), spec, () -> table.snapshotAt(version)));
    }
  }

  /**
   * Appends to {@code out} the joined rows of {@code row}: one per match, or (left join) one with
   * nulls.
   */
  void join(Object[] row, List<Object[]> out) {
    List<Object[]> matches = index.matches(row, layout.streamKeys());
    if (matches.isEmpty()) {
      if (spec.type() == JoinType.LEFT) {
        out.add(concat(row, noMatch));
      }
      return;
    }
    for (Object[] match : matches) {
      out.add(concat(row, match));
    }
  }

  private static Object[] concat(Object[] row, Object[] added) {
    Object[] joined = new Object[row.length + added.length];
    System.arraycopy(row, 0, joined, 0, row.length);
    System.arraycopy(added, 0, joined, row.length, added.length);
    return joined;
  }

  /** Refuses a snapshot above max-size before reading a row of it, then indexes it. */
  private void load(Snapshot snapshot) throws IOException {
    if (snapshot.totalBytes() > spec.maxSize().bytes()) {
      throw JoinErrors.tooLarge(
          pipeline,
          layout.where(),
          spec.path(),
          snapshot.version(),
          snapshot.totalBytes(),
          spec.maxSize());
    }
    JoinLayout now =
        layout.check(
            pipeline, spec.path(), snapshot.version(), spec.on(), stream, snapshot.schema());
    try (SnapshotRows rows = new SnapshotRows(table.store(), snapshot)) {
      index =
          DimensionIndex.build(
              snapshot.version(), rows, now.dimensionKeys(), now.valueColumns(snapshot.schema()));
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    loads++;
  }

  private interface SnapshotRead {
    Snapshot read() throws IOException;
  }

  private static Snapshot snapshot(String pipeline, String where, JoinSpec spec, SnapshotRead read)
      throws IOException {
    try {
      return read.read();
    } catch (TableException e) {
      throw JoinErrors.unreadable(pipeline, where, spec.path(), e);
    }
  }

  /**
   * Every row of a snapshot, file after file, in full schema order (partition values filled in).
   */
  private static final class SnapshotRows implements Iterator<Object[]>, AutoCloseable {
    private final ObjectStore store;
    private final Snapshot snapshot;
    private final Iterator<DataFile> files;
    private CloseableIterator<Object[]> current;

    SnapshotRows(ObjectStore store, Snapshot snapshot) {
      this.store = store;
      this.snapshot = snapshot;
      this.files = snapshot.files().iterator();
    }

    @Override
    public boolean hasNext() {
      try {
        while (current == null || !current.hasNext()) {
          if (current != null) {
            current.close();
            current = null;
          }
          if (!files.hasNext()) {
            return false;
          }
          current =
              DataFiles.read(store, files.next(), snapshot.schema(), snapshot.columnMapping());
        }
        return true;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public Object[] next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return current.next();
    }

    @Override
    public void close() throws IOException {
      if (current != null) {
        current.close();
      }
    }
  }
}
