package dev.tributary.table.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

  /** The name a field has in data files, partition values and statistics under this mode. */
  public String physicalName(StructField field) {
    return this == NONE ? field.name() : field.physicalName();
  }

  /**
   * The schema with every field (nested ones too) renamed to its {@link #physicalName}: the shape
   * of the data files and of the statistics.
   */
  public StructType physicalSchema(StructType schema) {
    if (this == NONE) {
      return schema;
    }
    List<StructField> fields = new ArrayList<>(schema.size());
    for (StructField f : schema.fields()) {
      StructField renamed = f.withName(physicalName(f));
      fields.add(
          f.type() instanceof StructType nested
              ? renamed.withType(physicalSchema(nested))
              : renamed);
    }
    return new StructType(fields);
  }
}
