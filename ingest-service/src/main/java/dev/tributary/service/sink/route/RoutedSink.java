package dev.tributary.service.sink.route;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.expr.CompiledExpression;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.CommitCounters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A sink that routes each row to one of many Delta tables ({@code sink.delta.route}): the route
 * expression's value for the row names a folder under the sink's folder, and the table there gets
 * the row. A table is created (with the pipeline's output columns) on its route's first row; a
 * value that cannot name a folder ({@link RouteNames}), a new route beyond {@code max-routes}, or a
 * route whose folder holds a table that cannot take the rows (other columns) is refused ({@link
 * BatchWriter#refusal}) and its record quarantined with the reason.
 *
 * <p>Exactly once, per table: a batch's commit commits each table it touched with its own {@code
 * txn(<pipeline>@<checkpoint id>, batch)}, in route order, with {@link
 * CrashPoints#AFTER_ROUTE_COMMIT} between two of them. A replay begins each table again: one that
 * holds the batch writes nothing ({@link TableSink#begin}), the others write it. The commits are
 * not atomic across tables (as for several sinks, docs/DESIGN.md "Several sinks").
 *
 * <p>The limit is deterministic, so a replay refuses the same rows: a route is admitted when it is
 * known (its table exists or it was admitted before), or when fewer than {@code max-routes} routes
 * are known. The tables that exist are listed once when the sink opens; an admitted route's table
 * is created at once, before the batch commits anything. So once any table holds part of a batch,
 * every route the batch admitted has its table, the next process lists them, and its replay admits
 * exactly those routes whatever order the rows come in (docs/DESIGN.md, "Routing to many tables").
 *
 * <p>Threads: {@link Writer#refusal} runs on the engine's thread and opens the tables; {@link
 * Writer#write} may run on a Parquet encoding thread (rows reach it after their refusal was asked,
 * through a queue), and {@link Writer#commit} on the engine's thread once every row is written.
 */
public final class RoutedSink implements TableSink {
  /** Opens the sink of one route's table, creating the table when it does not exist. */
  @FunctionalInterface
  public interface Tables {
    /**
     * @param firstRow the route's first row, from which a table of {@code columns: all} takes its
     *     columns; null when the table is opened without a row (it exists: listed at start)
     */
    TableSink open(String route, Object[] firstRow) throws IOException;
  }

  /** How the tables take a batch's rows. */
  public enum Writes {
    /** Rows stream into data files as they come ({@code write: append}). */
    STREAMED,
    /** Rows are kept in memory until the commit merges them ({@code write: upsert}). */
    BUFFERED
  }

  private final ObjectStore folder;
  private final CompiledExpression route;
  private final int maxRoutes;
  private final Tables tables;
  private final Writes writes;

  /** Every route whose table exists or was admitted: the limit counts these. */
  private final Set<String> known;

  /** The sinks of the routes opened by this process, by route. */
  private final Map<String, TableSink> opened = new ConcurrentHashMap<>();

  private RoutedSink(
      ObjectStore folder,
      CompiledExpression route,
      int maxRoutes,
      Tables tables,
      Writes writes,
      Set<String> existing) {
    this.folder = folder;
    this.route = route;
    this.maxRoutes = maxRoutes;
    this.tables = tables;
    this.writes = writes;
    this.known = ConcurrentHashMap.newKeySet();
    this.known.addAll(existing);
  }

  /**
   * Opens the routed sink over {@code folder}, listing the tables it holds.
   *
   * @param route the route expression, compiled against the output row
   * @param maxRoutes the most tables the folder may hold, at least 1
   * @param tables opens (creating) the table of a route, in a folder of {@code folder}
   */
  public static RoutedSink open(
      ObjectStore folder, CompiledExpression route, int maxRoutes, Tables tables, Writes writes)
      throws IOException {
    if (maxRoutes < 1) {
      throw new IllegalArgumentException("max-routes must be at least 1, got " + maxRoutes);
    }
    return new RoutedSink(folder, route, maxRoutes, tables, writes, existingRoutes(folder));
  }

  /**
   * The routes whose table exists: the folders directly under {@code folder} that hold a {@code
   * _delta_log}. One listing of everything under the folder (the storage layer lists no folders),
   * once per process.
   */
  public static Set<String> existingRoutes(ObjectStore folder) throws IOException {
    Set<String> routes = new TreeSet<>();
    for (ObjectInfo info : folder.list("")) {
      String key = info.key();
      int slash = key.indexOf('/');
      if (slash > 0 && key.startsWith("_delta_log/", slash + 1)) {
        routes.add(key.substring(0, slash));
      }
    }
    return routes;
  }

  @Override
  public String location() {
    String base = folder.location();
    return (base.endsWith("/") ? base : base + "/") + "{route}";
  }

  /** The routes whose tables exist or were admitted, sorted. */
  public Set<String> routes() {
    return new TreeSet<>(known);
  }

  /** The counters of the tables opened by this process, added up. */
  @Override
  public CommitCounters commitCounters() {
    CommitCounters sum = CommitCounters.ZERO;
    for (TableSink table : opened.values()) {
      sum = sum.plus(table.commitCounters());
    }
    return sum;
  }

  /**
   * The first table (in route order) that holds batches of another checkpoint of the pipeline or
   * positions without them; else an empty history of the folder. A new checkpoint must not start
   * silently on any of the tables.
   */
  @Override
  public TableTxns.TableHistory history(TableTxns txns) throws IOException {
    for (String name : routes()) {
      TableTxns.TableHistory history = table(name, null).history(txns);
      if (history.writtenByAnotherCheckpoint() || !history.positions().isEmpty()) {
        return history;
      }
    }
    return new TableTxns.TableHistory(location(), -1, List.of(), Map.of());
  }

  private TableSink table(String name, Object[] firstRow) throws IOException {
    TableSink table = opened.get(name);
    if (table == null) {
      table = tables.open(name, firstRow);
      opened.put(name, table);
    }
    return table;
  }

  @Override
  public BatchWriter begin(BatchTag tag) {
    return new Writer(tag);
  }

  /** Why a new route cannot get a table: the limit is reached. */
  private String overLimit(String name) {
    return "route value '"
        + name
        + "' (of "
        + route.text()
        + ") would be a new table under "
        + folder.location()
        + ", but the "
        + maxRoutes
        + " tables max-routes allows exist or were created already; raise max-routes or route"
        + " fewer values";
  }

  /** One batch over the routes: a writer per table the batch touches, begun on its first row. */
  private final class Writer implements BatchWriter {
    private final BatchTag tag;
    private final Map<String, BatchWriter> writers = new ConcurrentHashMap<>();

    Writer(BatchTag tag) {
      this.tag = tag;
    }

    @Override
    public boolean alreadyCommitted() {
      return false; // which tables the batch touches is known once its rows are read
    }

    @Override
    public boolean buffersUntilCommit() {
      return writes == Writes.BUFFERED;
    }

    @Override
    public String refusal(Object[] row) throws IOException {
      Object value = route.eval(row);
      String problem = RouteNames.problem(value, route.text());
      if (problem != null) {
        return problem;
      }
      String name = value.toString();
      BatchWriter begun = writers.get(name);
      if (begun != null) {
        return begun.refusal(row); // e.g. a columns: all table whose column changed type
      }
      synchronized (known) {
        if (!known.contains(name)) {
          if (known.size() >= maxRoutes) {
            return overLimit(name);
          }
          known.add(name);
        }
      }
      TableSink table;
      try {
        table = table(name, row); // creates the table on the route's first row
      } catch (IllegalStateException misfit) {
        // a table there that cannot take the rows (other columns, a folder of other files, a
        // writer feature not honoured): its route's rows wait in the quarantine, the others go on
        return "route value '"
            + name
            + "' (of "
            + route.text()
            + ") names a table that cannot take the pipeline's rows: "
            + misfit.getMessage();
      }
      BatchWriter writer = table.begin(tag);
      writers.put(name, writer);
      return writer.refusal(row);
    }

    private BatchWriter writerOf(Object[] row) {
      Object value = route.eval(row);
      BatchWriter writer = value == null ? null : writers.get(value.toString());
      if (writer == null) {
        throw new IllegalStateException(
            "a row reached the routed sink "
                + location()
                + " without its route being admitted first (refusal); route value: "
                + value);
      }
      return writer;
    }

    @Override
    public void write(Object[] row) throws IOException {
      writerOf(row).write(row);
    }

    @Override
    public void delete(Object[] row) throws IOException {
      writerOf(row).delete(row);
    }

    @Override
    public long rows() {
      long rows = 0;
      for (BatchWriter w : writers.values()) {
        rows += w.rows();
      }
      return rows;
    }

    /**
     * Commits the tables in route order, {@link CrashPoints#AFTER_ROUTE_COMMIT} between two.
     *
     * @return the highest table version committed, or -1 when every table held the batch
     */
    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      List<BatchWriter> ordered = new ArrayList<>(new TreeMap<>(writers).values());
      long highest = -1;
      for (int i = 0; i < ordered.size(); i++) {
        highest = Math.max(highest, ordered.get(i).commit(commitInfo));
        if (i < ordered.size() - 1) {
          CrashPoints.reached(CrashPoints.AFTER_ROUTE_COMMIT);
        }
      }
      return highest;
    }

    @Override
    public void close() {
      RuntimeException failure = null;
      for (BatchWriter w : writers.values()) {
        try {
          w.close();
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }
}
