package dev.tributary.service.join;

import dev.tributary.config.JoinSpec;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline's {@code join} list as one operator over rows: each stream row (in the transforms'
 * output order, Kafka columns last) is joined with every dimension in turn, each join appending its
 * columns. Per batch, the engine's thread calls:
 *
 * <ol>
 *   <li>{@link #plan} when a new batch is planned: every dimension is refreshed to its latest
 *       version (loaded only if that changed) and the versions are returned for the batch's offsets
 *       entry, under {@link #versionKey};
 *   <li>{@link #pin} when the batch begins, with that entry's extras: a replayed batch brings back
 *       exactly the versions recorded, so it produces the rows the first attempt did;
 *   <li>{@link #apply} for every row.
 * </ol>
 *
 * <p>Memory: each dimension is refused before loading when its data files exceed its {@code
 * max-size}; while one version replaces another, both are held for a moment.
 */
public final class StreamJoins implements AutoCloseable {

  /** Opens the store of a join's dimension table. */
  @FunctionalInterface
  public interface Stores {
    /** The store rooted at {@code join}'s table; {@link StreamJoins#close} closes it. */
    ObjectStore open(JoinSpec join) throws IOException;
  }

  private final List<StreamJoin> joins;
  private final List<ObjectStore> stores;
  private final StructType outputSchema;
  private boolean closed;

  private StreamJoins(List<StreamJoin> joins, List<ObjectStore> stores, StructType outputSchema) {
    this.joins = List.copyOf(joins);
    this.stores = List.copyOf(stores);
    this.outputSchema = outputSchema;
  }

  /**
   * Opens every dimension table and resolves the joins against the stream's schema and each table's
   * latest schema; loads no rows.
   *
   * @param stream the schema of the rows {@link #apply} gets
   * @throws JoinException if a table cannot be read or does not fit its join (key types, columns)
   */
  public static StreamJoins open(
      String pipeline, List<JoinSpec> specs, StructType stream, Stores stores) throws IOException {
    List<StreamJoin> joins = new ArrayList<>();
    List<ObjectStore> opened = new ArrayList<>();
    StructType schema = stream;
    try {
      for (int i = 0; i < specs.size(); i++) {
        ObjectStore store = stores.open(specs.get(i));
        opened.add(store);
        StreamJoin join = StreamJoin.open(pipeline, i, specs.get(i), schema, store);
        joins.add(join);
        List<StructField> fields = new ArrayList<>(schema.fields());
        fields.addAll(join.layout().added());
        schema = new StructType(fields);
      }
    } catch (IOException | RuntimeException e) {
      closeAll(opened);
      throw e;
    }
    return new StreamJoins(joins, opened, schema);
  }

  /** The offsets-entry key under which the version of the {@code index}-th join is recorded. */
  public static String versionKey(int index) {
    return "join." + index + ".version";
  }

  /** The schema of the joined rows: the stream's columns, then each join's added columns. */
  public StructType outputSchema() {
    return outputSchema;
  }

  /**
   * Refreshes every dimension to its latest version; returns the versions to record for the batch.
   */
  public Map<String, String> plan() throws IOException {
    Map<String, String> versions = new LinkedHashMap<>();
    for (int i = 0; i < joins.size(); i++) {
      versions.put(versionKey(i), Long.toString(joins.get(i).refresh()));
    }
    return versions;
  }

  /**
   * Brings into memory the versions a batch recorded ({@link #plan}); a join with no recorded
   * version (a batch planned before the join was declared) gets the latest.
   */
  public void pin(Map<String, String> recorded) throws IOException {
    for (int i = 0; i < joins.size(); i++) {
      String version = recorded.get(versionKey(i));
      if (version == null) {
        joins.get(i).refresh();
      } else {
        joins.get(i).pin(Long.parseLong(version));
      }
    }
  }

  /**
   * The joined rows of one stream row, in order: none when an inner join finds no match, several
   * when a dimension has several rows with the row's keys.
   */
  public List<Object[]> apply(Object[] row) {
    List<Object[]> rows = Collections.singletonList(row);
    for (StreamJoin join : joins) {
      List<Object[]> next = new ArrayList<>(rows.size());
      for (Object[] r : rows) {
        join.join(r, next);
      }
      rows = next;
    }
    return rows;
  }

  /** The version of each dimension held in memory (-1 before the first batch), in join order. */
  public List<Long> versions() {
    return joins.stream().map(StreamJoin::version).toList();
  }

  /**
   * How many times each dimension was loaded, in join order: a refresh of an unchanged table loads
   * nothing.
   */
  public List<Long> loads() {
    return joins.stream().map(StreamJoin::loads).toList();
  }

  /** Closes the dimension tables' stores; a second call does nothing. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      closeAll(stores);
    }
  }

  private static void closeAll(List<ObjectStore> stores) {
    for (ObjectStore store : stores) {
      try {
        store.close();
      } catch (Exception ignored) {
        // best effort: the stores hold no unwritten data
      }
    }
  }
}
