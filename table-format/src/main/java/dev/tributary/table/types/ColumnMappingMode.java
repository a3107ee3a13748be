package dev.tributary.table.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * How a table's columns are found in its data files (Delta's {@code delta.columnMapping.mode}):
 *
 * <ul>
 *   <li>{@link #NONE}: by their names;
 *   <li>{@link #NAME}: by their physical names ({@link StructField#physicalName()}), which never
 *       change when a column is renamed; partition values and statistics use them too;
 *   <li>{@link #ID}: by the Parquet field id ({@link StructField#columnId()}); partition values and
 *       statistics use the physical names.
 * </ul>
 *
 * A column the file does not hold (added later, or a file written before) reads as null.
 */
public enum ColumnMappingMode {
  NONE,
  NAME,
  ID;

  /** The table property that holds the mode. */
  public static final String PROPERTY = "delta.columnMapping.mode";

  /**
   * The mode of a table with these properties.
   *
   * @throws IllegalArgumentException for a value other than none, name or id
   */
  public static ColumnMappingMode of(Map<String, String> properties) {
    String value = properties.getOrDefault(PROPERTY, "none");
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "none" -> NONE;
      case "name" -> NAME;
      case "id" -> ID;
      default ->
          throw new IllegalArgumentException(
              "unknown column mapping mode '" + value + "' in table property " + PROPERTY);
    };
  }

  /** The table property holding the largest column id assigned so far. */
  public static final String MAX_COLUMN_ID = "delta.columnMapping.maxColumnId";

  /**
   * Columns added to a table under this mode: each field (nested ones too) without a physical name
   * gets {@code col-<uuid>} and the next id after {@code maxColumnId}, as Delta's writers assign
   * them. The result's last id is the new {@code maxColumnId}.
   */
  public Assigned assign(List<StructField> columns, long maxColumnId) {
    if (this == NONE) {
      return new Assigned(columns, maxColumnId);
    }
    long[] max = {maxColumnId};
    List<StructField> out = new ArrayList<>(columns.size());
    for (StructField f : columns) {
      out.add(assign(f, max));
    }
    return new Assigned(out, max[0]);
  }

  private static StructField assign(StructField f, long[] max) {
    StructField result = f;
    if (!f.metadata().containsKey(StructField.PHYSICAL_NAME)) {
      max[0]++;
      result =
          f.withMetadata(StructField.COLUMN_ID, (int) max[0])
              .withMetadata(StructField.PHYSICAL_NAME, "col-" + UUID.randomUUID());
    }
    return result.withType(
        mapStructs(
            f.type(),
            nested -> {
              List<StructField> children = new ArrayList<>();
              for (StructField c : nested.fields()) {
                children.add(assign(c, max));
              }
              return new StructType(children);
            }));
  }

  /** The type with each struct in it (itself, or in an array or map) replaced by {@code f}. */
  private static DataType mapStructs(DataType type, UnaryOperator<StructType> f) {
    if (type instanceof StructType struct) {
      return f.apply(struct);
    }
    if (type instanceof ArrayType array) {
      return new ArrayType(mapStructs(array.elementType(), f), array.containsNull());
    }
    if (type instanceof MapType map) {
      return new MapType(
          mapStructs(map.keyType(), f), mapStructs(map.valueType(), f), map.valueContainsNull());
    }
    return type;
  }

  /**
   * Columns with their physical names and ids assigned, and the table's new largest id.
   *
   * @param columns the columns
   * @param maxColumnId the value of {@link #MAX_COLUMN_ID} after them
   */
  public record Assigned(List<StructField> columns, long maxColumnId) {
    public Assigned {
      columns = List.copyOf(columns);
    }
  }

  /** The name a field has in data files, partition values and statistics under this mode. */
  public String physicalName(StructField field) {
    return this == NONE ? field.name() : field.physicalName();
  }

  /**
   * The schema with every field (nested ones too, in arrays and maps as well) renamed to its {@link
   * #physicalName}: the shape of the data files and of the statistics.
   */
  public StructType physicalSchema(StructType schema) {
    if (this == NONE) {
      return schema;
    }
    List<StructField> fields = new ArrayList<>(schema.size());
    for (StructField f : schema.fields()) {
      fields.add(f.withName(physicalName(f)).withType(mapStructs(f.type(), this::physicalSchema)));
    }
    return new StructType(fields);
  }
}
