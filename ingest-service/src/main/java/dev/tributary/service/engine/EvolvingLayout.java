package dev.tributary.service.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The sink table's columns under schema evolution (docs/SCHEMA_EVOLUTION.md), and how a processor's
 * row becomes a table row. Format-agnostic: it takes the processor's row (the declared, derived,
 * Kafka and join columns) and the decoder's {@link DecodedExtras}.
 *
 * <p>The table's columns are: every column the pipeline writes (found by name, wherever the table
 * has them), {@code _rescued_data} with {@code rescue: true}, and the columns {@code mode:
 * add-columns} added ("evolved" columns: long, double, boolean or string, written from the record's
 * top-level field of the same name). The table is the only record of what was added: after a
 * restart the evolved columns are the table's columns the pipeline does not declare, so a replayed
 * batch sees the same table as its first attempt (the column is in the table exactly when the
 * commit that added it happened).
 *
 * <p>Not thread-safe: the engine's thread only. A column added mid-batch is handed to the batch's
 * writer at once ({@link Columns#add}), which puts it in the batch's commit.
 */
public final class EvolvingLayout {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Characters Delta refuses in column names without column mapping. */
  private static final String INVALID_NAME_CHARS = " ,;{}()\n\t=";

  /** Where new columns go: the batch's writer. */
  public interface Columns {
    /** Adds nullable columns, after the existing ones, in the commit of the batch being written. */
    void add(List<StructField> columns) throws IOException;
  }

  /**
   * A value that fits neither its column nor the rescued data (rescue is off): quarantine with this
   * reason.
   */
  public static final class Misfit extends Exception {
    private static final long serialVersionUID = 1L;

    Misfit(String message) {
      super(message, null, false, false);
    }
  }

  private final String pipelineId;
  private final StructType base;
  private final boolean rescue;
  private final boolean addColumns;
  private final List<StructField> fields = new ArrayList<>();

  /** Per table column: its index in the processor's row, or -1 (rescued data, evolved column). */
  private final List<Integer> fromBase = new ArrayList<>();

  private final Map<String, Integer> evolved = new HashMap<>();
  private final Set<String> lowerCaseNames = new HashSet<>();
  private int rescuedIndex = -1;

  private EvolvingLayout(String pipelineId, StructType base, SchemaEvolutionSpec spec) {
    this.pipelineId = pipelineId;
    this.base = base;
    this.rescue = spec.rescue();
    this.addColumns = spec.addsColumns();
  }

  /**
   * Creates the table or checks it against the pipeline's columns, adding what is missing: a new
   * table gets the pipeline's columns and {@code _rescued_data}; an existing one gets {@code
   * _rescued_data} (rescue) and, with add-columns, newly declared columns, each in a commit of its
   * own ({@link DeltaTable#addColumns}), before the first batch.
   *
   * @throws IllegalStateException naming the pipeline, the table and the column, for a column whose
   *     type changed, one the pipeline does not write (without add-columns), or a different
   *     partitioning
   */
  public static EvolvingLayout open(
      String pipelineId,
      DeltaTable table,
      StructType base,
      List<String> partitionColumns,
      SchemaEvolutionSpec spec)
      throws IOException {
    EvolvingLayout layout = new EvolvingLayout(pipelineId, base, spec);
    List<StructField> wanted = new ArrayList<>(base.fields());
    if (spec.rescue()) {
      wanted.add(StructField.nullable(SchemaEvolutionSpec.RESCUED_COLUMN, PrimitiveType.STRING));
    }
    if (!table.exists()) {
      DeltaTableSink.createOrCheck(
          pipelineId, table.store(), table, new StructType(wanted), partitionColumns);
    }
    var snapshot = table.snapshot();
    if (!snapshot.partitionColumns().equals(partitionColumns)) {
      throw new IllegalStateException(
          SchemaMessages.partitioning(
              pipelineId, table.location(), snapshot.partitionColumns(), partitionColumns));
    }
    snapshot = DeltaTableSink.widenDeclared(pipelineId, table, new StructType(wanted));
    StructType current = snapshot.schema();
    List<StructField> missing = new ArrayList<>();
    for (StructField f : wanted) {
      var existing = current.field(f.name());
      if (existing.isEmpty()) {
        boolean declaredColumn = !f.name().equals(SchemaEvolutionSpec.RESCUED_COLUMN);
        if (declaredColumn && !spec.addsColumns()) {
          throw new IllegalStateException(
              SchemaMessages.columnMissing(pipelineId, table.location(), f));
        }
        missing.add(f);
      } else if (!existing.get().type().equals(f.type())) {
        throw new IllegalStateException(
            SchemaMessages.typeChanged(
                pipelineId,
                table.location(),
                f.name(),
                existing.get().type(),
                f.type(),
                partitionColumns.contains(f.name())));
      }
    }
    if (!missing.isEmpty()) {
      current = table.addColumns(missing).schema();
    }
    for (StructField f : current.fields()) {
      int inBase = base.indexOf(f.name());
      if (inBase >= 0) {
        layout.append(f, inBase);
      } else if (spec.rescue() && f.name().equals(SchemaEvolutionSpec.RESCUED_COLUMN)) {
        layout.rescuedIndex = layout.fields.size();
        layout.append(f, -1);
      } else if (spec.addsColumns() && f.type() instanceof PrimitiveType p && evolvable(p)) {
        layout.evolved.put(f.name(), layout.fields.size());
        layout.append(f, -1);
      } else {
        throw new IllegalStateException(
            SchemaMessages.columnNotWritten(pipelineId, table.location(), f, spec.addsColumns()));
      }
    }
    return layout;
  }

  private static boolean evolvable(PrimitiveType p) {
    return p == PrimitiveType.LONG
        || p == PrimitiveType.DOUBLE
        || p == PrimitiveType.BOOLEAN
        || p == PrimitiveType.STRING;
  }

  private void append(StructField f, int inBase) {
    fields.add(f);
    fromBase.add(inBase);
    lowerCaseNames.add(f.name().toLowerCase(Locale.ROOT));
  }

  /** Whether the decoder should report new top-level fields ({@code mode: add-columns}). */
  public boolean reportsNewFields() {
    return addColumns;
  }

  /** Whether the decoder should rescue undeclared fields and misfit values. */
  public boolean rescues() {
    return rescue;
  }

  /** The table's columns now (wider after a column was added). */
  public StructType tableSchema() {
    return new StructType(fields);
  }

  /**
   * The table row of a processor row and its record's extras; adds, through {@code columns}, the
   * columns the record's new fields call for, after every check passed (a quarantined record adds
   * nothing).
   *
   * @throws Misfit when a value fits neither its evolved column nor the rescued data (rescue off)
   */
  public Object[] tableRow(Object[] row, DecodedExtras extras, Columns columns)
      throws IOException, Misfit {
    ObjectNode rescued = extras == null ? null : extras.rescued();
    List<DecodedExtras.NewField> fresh = null;
    Object[] evolvedValues = null;
    if (extras != null && !extras.newFields().isEmpty()) {
      for (DecodedExtras.NewField f : extras.newFields()) {
        Integer at = evolved.get(f.name());
        if (at != null) {
          Object value = fit(f, ((PrimitiveType) fields.get(at).type()));
          if (value == null) {
            if (!rescue) {
              throw new Misfit(SchemaMessages.misfit(f, fields.get(at)));
            }
            rescued = rescue(rescued, f);
          } else {
            if (evolvedValues == null) {
              evolvedValues = new Object[fields.size()];
            }
            evolvedValues[at] = value;
          }
        } else if (canAdd(f.name())
            && (fresh == null || fresh.stream().noneMatch(n -> n.name().equals(f.name())))) {
          if (fresh == null) {
            fresh = new ArrayList<>(2);
          }
          fresh.add(f);
        } else if (rescue) {
          rescued = rescue(rescued, f); // a name the table cannot take, or one of its own columns
        }
      }
    }
    if (fresh != null) {
      List<StructField> added = new ArrayList<>();
      for (DecodedExtras.NewField f : fresh) {
        StructField column = StructField.nullable(f.name(), f.type());
        added.add(column);
      }
      columns.add(added);
      for (StructField column : added) {
        evolved.put(column.name(), fields.size());
        append(column, -1);
      }
      Object[] widened = new Object[fields.size()];
      if (evolvedValues != null) {
        System.arraycopy(evolvedValues, 0, widened, 0, evolvedValues.length);
      }
      evolvedValues = widened;
      for (DecodedExtras.NewField f : fresh) {
        evolvedValues[evolved.get(f.name())] = f.value();
      }
    }
    Object[] out = evolvedValues != null ? evolvedValues : new Object[fields.size()];
    for (int i = 0; i < out.length; i++) {
      int from = fromBase.get(i);
      if (from >= 0) {
        out[i] = row[from];
      }
    }
    if (rescuedIndex >= 0 && rescued != null && !rescued.isEmpty()) {
      out[rescuedIndex] = rescued.toString();
    }
    return out;
  }

  /**
   * A name Delta takes as a new column: not empty, no reserved character, unlike every column's
   * (case-insensitively).
   */
  private boolean canAdd(String name) {
    if (!addColumns || name.isEmpty() || lowerCaseNames.contains(name.toLowerCase(Locale.ROOT))) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      if (INVALID_NAME_CHARS.indexOf(name.charAt(i)) >= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The value for an evolved column of type {@code column}, or null when it does not fit: the
   * column takes its own type, and a double column takes whole numbers too (the inference saw a
   * fraction first); a string column takes strings and JSON objects/arrays (as their text), not
   * numbers or booleans.
   */
  private static Object fit(DecodedExtras.NewField f, PrimitiveType column) {
    if (f.type() == column) {
      return f.value();
    }
    if (column == PrimitiveType.DOUBLE && f.type() == PrimitiveType.LONG) {
      return ((Long) f.value()).doubleValue();
    }
    return null;
  }

  private static ObjectNode rescue(ObjectNode rescued, DecodedExtras.NewField f)
      throws IOException {
    ObjectNode into = rescued == null ? MAPPER.createObjectNode() : rescued;
    JsonNode value =
        switch (f.type()) {
          case LONG -> LongNode.valueOf((Long) f.value());
          case DOUBLE -> DoubleNode.valueOf((Double) f.value());
          case BOOLEAN -> BooleanNode.valueOf((Boolean) f.value());
          default ->
              f.jsonText()
                  ? MAPPER.readTree((String) f.value())
                  : TextNode.valueOf((String) f.value());
        };
    into.set(f.name(), value);
    return into;
  }

  /** Messages about the table's columns, built in one place. */
  static final class SchemaMessages {
    private SchemaMessages() {}

    static String partitioning(
        String pipeline, String table, List<String> has, List<String> wants) {
      return "Pipeline "
          + pipeline
          + ": the table at "
          + table
          + " is partitioned by "
          + has
          + " but the pipeline writes it partitioned by "
          + wants
          + "; partitioning never evolves: restore sink.delta.partition-by or write to a new table path.";
    }

    static String columnMissing(String pipeline, String table, StructField f) {
      return "Pipeline "
          + pipeline
          + ": the table at "
          + table
          + " has no column "
          + f.name()
          + " ("
          + f.type().deltaName()
          + "), which the pipeline writes. Set schema-evolution.mode: add-columns to add"
          + " it (nullable; older rows read null), restore the declaration, or write to a new table path.";
    }

    static String typeChanged(
        String pipeline,
        String table,
        String column,
        DataType has,
        DataType wants,
        boolean partitionColumn) {
      String why =
          partitionColumn
              ? " A partition column's type never changes;"
              : " Only widenings that Delta's type widening allows are applied (integer to long, double or decimal,"
                  + " long to decimal, decimal to a decimal with at least as many integral and fractional digits;"
                  + " docs/SCHEMA_EVOLUTION.md);";
      return "Pipeline "
          + pipeline
          + ": column "
          + column
          + " of the table at "
          + table
          + " is "
          + has.deltaName()
          + " but the pipeline declares "
          + wants.deltaName()
          + "."
          + why
          + " declare "
          + column
          + " as "
          + has.deltaName()
          + " again, or write to a new table path (or rewrite"
          + " the table with the new type in Spark, then restart).";
    }

    static String columnNotWritten(
        String pipeline, String table, StructField f, boolean addColumns) {
      return "Pipeline "
          + pipeline
          + ": the table at "
          + table
          + " has a column "
          + f.name()
          + " ("
          + f.type().deltaName()
          + ") that the pipeline does not write"
          + (addColumns
              ? " and that schema-evolution cannot fill (only long, double, boolean and string"
                  + " columns evolve)"
              : " (added by schema-evolution.mode: add-columns, or by another writer)")
          + ". Declare it in the format's schema (format.json.schema, format.avro.schema)"
          + (addColumns ? "" : ", set schema-evolution.mode: add-columns")
          + ", or write to a new table path.";
    }

    static String misfit(DecodedExtras.NewField f, StructField column) {
      return "field '"
          + f.name()
          + "': expected "
          + column.type().deltaName()
          + " (column "
          + column.name()
          + " added by schema-evolution), got "
          + (f.jsonText()
              ? "a JSON object or array"
              : f.type().deltaName()
                  + " "
                  + (f.type() == PrimitiveType.STRING ? "'" + f.value() + "'" : f.value()))
          + "; set schema-evolution.rescue: true to keep such values in _rescued_data";
    }
  }
}
