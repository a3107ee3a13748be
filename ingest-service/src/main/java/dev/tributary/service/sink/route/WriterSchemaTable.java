package dev.tributary.service.sink.route;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.parse.WriterRow;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One routed table of a {@code columns: all} pipeline (docs/DESIGN.md, "Every field of the writer
 * schema"): its columns are the writer fields of its records, then the pipeline's fixed columns
 * ({@code _op, _source_ts}, derived, Kafka). A new table is created with the columns of its route's
 * first row; a row whose writer schema has fields the table lacks adds them as nullable columns at
 * the end, in a commit of their own just before the batch's (idempotent: a replay finds them). A
 * row whose field has another type than its column (other than int into long or a number into
 * double) is refused, its record quarantined with both types.
 *
 * <p>The batch's rows are kept until the commit (the batch's columns are known only then), which
 * opens the table's sink ({@link Sink}: append or upsert) over the table's columns, begins the
 * batch there (a table that holds the batch's {@code txn} skips it), and writes them.
 *
 * <p>With {@code write: upsert}, the key is the declared one, or the record key's fields of the
 * route's first row in this process; a row whose record key has other fields, or whose key column
 * is missing or null, is refused.
 */
public final class WriterSchemaTable implements TableSink {

  /** Opens the table's sink over columns {@code schema}, merging by {@code key} (null: appends). */
  @FunctionalInterface
  public interface Sink {
    TableSink open(StructType schema, List<String> key) throws IOException;
  }

  private final String location;
  private final DeltaTable table;
  private final StructType fixed;
  private final Sink sinks;
  private final boolean merges;
  private final boolean keyFromRecord;
  private StructType schema;
  private List<String> key;
  private TableSink sink;

  private WriterSchemaTable(
      String location,
      DeltaTable table,
      StructType fixed,
      Sink sinks,
      boolean merges,
      List<String> declaredKey,
      StructType schema) {
    this.location = location;
    this.table = table;
    this.fixed = fixed;
    this.sinks = sinks;
    this.merges = merges;
    this.keyFromRecord = merges && declaredKey.isEmpty();
    this.key = declaredKey.isEmpty() ? null : List.copyOf(declaredKey);
    this.schema = schema;
  }

  /**
   * Opens (an existing table) or creates (with the columns of {@code firstRow}) the table.
   *
   * @param fixed the pipeline's fixed output columns: a row is these, then a {@link WriterRow}
   * @param merges whether the table is upserted ({@code write: upsert})
   * @param declaredKey the declared upsert key; empty: the record key's fields
   * @throws IllegalStateException when the row cannot make a table (a writer field named like a
   *     fixed column, a key column it lacks): the route's rows are refused with the reason
   */
  public static WriterSchemaTable open(
      String location,
      DeltaTable table,
      StructType fixed,
      Sink sinks,
      Mode mode,
      List<String> declaredKey,
      Object[] firstRow)
      throws IOException {
    boolean merges = mode == Mode.UPSERT;
    StructType schema;
    if (table.exists()) {
      schema = table.snapshot().schema();
    } else if (firstRow == null) {
      throw new IllegalStateException("the table at " + location + " does not exist");
    } else {
      WriterRow writer = WriterRow.of(firstRow);
      List<StructField> fields = new ArrayList<>();
      for (StructField f : writer.schema().fields()) {
        if (fixed.indexOf(f.name()) >= 0) {
          throw new IllegalStateException(clash(f.name(), writer.origin()));
        }
        fields.add(StructField.nullable(f.name(), f.type()));
      }
      fields.addAll(fixed.fields());
      schema = new StructType(fields);
    }
    WriterSchemaTable t =
        new WriterSchemaTable(location, table, fixed, sinks, merges, declaredKey, schema);
    if (firstRow != null && merges) {
      t.keyOf(WriterRow.of(firstRow));
      String problem = t.keyProblem(schema, firstRow);
      if (problem != null && !table.exists()) {
        throw new IllegalStateException(problem);
      }
    }
    if (!merges || t.key != null) {
      t.sink = sinks.open(schema, t.key == null ? List.of() : t.key); // creates a new table
    } // else an existing table keyed by its record keys: opened once a row gives the key
    return t;
  }

  /** How the table takes rows. */
  public enum Mode {
    APPEND,
    UPSERT
  }

  private static String clash(String field, String origin) {
    return "field '"
        + field
        + "' of "
        + origin
        + " has the name of a column the pipeline adds; rename it in the source, or land the topic"
        + " with declared columns";
  }

  /** The table's key from {@code writer}'s record key, for the route's first row. */
  private void keyOf(WriterRow writer) {
    if (key == null && !writer.key().isEmpty()) {
      key = List.copyOf(writer.key());
    }
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public CommitCounters commitCounters() {
    return sink == null ? CommitCounters.ZERO : sink.commitCounters();
  }

  @Override
  public Snapshot snapshot() throws IOException {
    return table.snapshot();
  }

  @Override
  public BatchWriter begin(BatchTag tag) {
    return new Writer(tag);
  }

  /** Why the row's key cannot merge into a table of {@code columns}, or null. */
  private String keyProblem(StructType columns, Object[] row) {
    if (key == null) {
      return "the table at "
          + location
          + " is upserted by its record key's fields, but the record key has none";
    }
    WriterRow writer = WriterRow.of(row);
    if (keyFromRecord && !writer.key().isEmpty() && !writer.key().equals(key)) {
      return "the record key's fields "
          + writer.key()
          + " differ from the key "
          + key
          + " of the table at "
          + location
          + "; a table keeps one key";
    }
    for (String column : key) {
      if (columns.indexOf(column) < 0) {
        return "key column '"
            + column
            + "' is not a column of the table at "
            + location
            + " (its columns: "
            + columns.fieldNames()
            + ")";
      }
      if (value(row, column) == null) {
        return "key column '"
            + column
            + "' is null; a row without its whole key cannot be upserted";
      }
    }
    return null;
  }

  /** The value of {@code column} in a row: the fixed part's, else the writer's. */
  private Object value(Object[] row, String column) {
    int i = fixed.indexOf(column);
    if (i >= 0) {
      return row[i];
    }
    WriterRow writer = WriterRow.of(row);
    int w = writer.schema().indexOf(column);
    return w < 0 ? null : writer.values()[w];
  }

  /** Whether a value of writer type {@code from} goes into a column of type {@code to}. */
  private static boolean fits(DataType from, DataType to) {
    if (from.equals(to)) {
      return true;
    }
    if (to == PrimitiveType.LONG) {
      return from == PrimitiveType.INTEGER;
    }
    if (to == PrimitiveType.DOUBLE) {
      return from == PrimitiveType.INTEGER
          || from == PrimitiveType.LONG
          || from == PrimitiveType.FLOAT;
    }
    return false;
  }

  private static Object converted(Object value, DataType to) {
    if (value == null) {
      return null;
    }
    if (to == PrimitiveType.LONG && value instanceof Integer i) {
      return i.longValue();
    }
    if (to == PrimitiveType.DOUBLE && value instanceof Number n && !(value instanceof Double)) {
      return n.doubleValue();
    }
    return value;
  }

  /** One batch of the table: rows kept until the commit, when the batch's columns are known. */
  private final class Writer implements BatchWriter {
    private final BatchTag tag;
    private final List<Object[]> rows = new ArrayList<>();
    private final List<Boolean> deletes = new ArrayList<>();
    private final List<StructField> added = new ArrayList<>();
    private StructType columns = schema;

    Writer(BatchTag tag) {
      this.tag = tag;
    }

    @Override
    public boolean alreadyCommitted() {
      return false; // known at the commit, when the table's batch begins
    }

    @Override
    public boolean buffersUntilCommit() {
      return true;
    }

    @Override
    public String refusal(Object[] row) {
      WriterRow writer = WriterRow.of(row);
      List<StructField> wider = new ArrayList<>();
      for (int i = 0; i < writer.schema().size(); i++) {
        StructField field = writer.schema().fields().get(i);
        if (fixed.indexOf(field.name()) >= 0) {
          return clash(field.name(), writer.origin());
        }
        int at = columns.indexOf(field.name());
        if (at < 0) {
          wider.add(StructField.nullable(field.name(), field.type()));
        } else if (!fits(field.type(), columns.fields().get(at).type())) {
          return "field '"
              + field.name()
              + "' of "
              + writer.origin()
              + " is "
              + field.type().deltaName()
              + ", but column "
              + field.name()
              + " of the table at "
              + location
              + " is "
              + columns.fields().get(at).type().deltaName()
              + "; a column's type does not change with the writer schema (land the new type"
              + " under another field name, or rewrite the table with the new type)";
        }
      }
      if (merges) {
        keyOf(writer);
        List<StructField> all = new ArrayList<>(columns.fields());
        all.addAll(wider);
        String problem = keyProblem(new StructType(all), row);
        if (problem != null) {
          return problem;
        }
      }
      if (!wider.isEmpty()) {
        List<StructField> all = new ArrayList<>(columns.fields());
        all.addAll(wider);
        columns = new StructType(all);
        added.addAll(wider);
      }
      return null;
    }

    @Override
    public void write(Object[] row) {
      rows.add(row);
      deletes.add(false);
    }

    @Override
    public void delete(Object[] row) {
      rows.add(row);
      deletes.add(true);
    }

    @Override
    public long rows() {
      return rows.size();
    }

    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      if (!added.isEmpty()) {
        List<StructField> missing = new ArrayList<>();
        StructType now = table.snapshot().schema();
        for (StructField f : added) {
          if (now.indexOf(f.name()) < 0) {
            missing.add(f);
          }
        }
        if (!missing.isEmpty()) {
          table.addColumns(missing); // its own commit: a replay finds the columns and adds none
        }
        schema = table.snapshot().schema();
        sink = null;
      }
      if (sink == null) {
        sink = sinks.open(schema, key == null ? List.of() : key);
      }
      try (BatchWriter writer = sink.begin(tag)) {
        if (writer.alreadyCommitted()) {
          return -1;
        }
        for (int i = 0; i < rows.size(); i++) {
          Object[] tableRow = tableRow(rows.get(i));
          if (deletes.get(i)) {
            writer.delete(tableRow);
          } else {
            writer.write(tableRow);
          }
        }
        return writer.commit(commitInfo);
      }
    }

    /** The row in the table's column order: by name, the fixed part's or the writer's value. */
    private Object[] tableRow(Object[] row) {
      WriterRow writer = WriterRow.of(row);
      Object[] out = new Object[schema.size()];
      for (int i = 0; i < out.length; i++) {
        StructField column = schema.fields().get(i);
        int f = fixed.indexOf(column.name());
        if (f >= 0) {
          out[i] = row[f];
          continue;
        }
        int w = writer.schema().indexOf(column.name());
        if (w >= 0) {
          out[i] = converted(writer.values()[w], column.type());
        }
      }
      return out;
    }

    @Override
    public void close() {}
  }
}
