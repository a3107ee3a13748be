package dev.tributary.service.parse;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds a nested {@link StructType} from PIPELINES-style declarations ({@code "customer.id" ->
 * "string"}). A dot always means nesting: {@code a.b} is field {@code b} of struct column {@code
 * a}. Struct fields keep the order in which their first path was declared.
 */
final class SchemaBuilder {
  static final String KNOWN_TYPES =
      "string, byte, short, int, long, float, double, boolean, timestamp,"
          + " timestamp(seconds|micros|nanos), timestamp_ntz, date, decimal(p,s)";

  private static final Pattern EPOCH_TIMESTAMP =
      Pattern.compile("timestamp\\s*\\(\\s*([a-z]+)\\s*\\)");

  private static final Pattern DECIMAL =
      Pattern.compile("decimal\\s*\\(\\s*(\\d{1,3})\\s*(?:,\\s*(\\d{1,3})\\s*)?\\)");

  private SchemaBuilder() {}

  static StructType schemaOf(LinkedHashMap<String, String> columnTypes) {
    if (columnTypes.isEmpty()) {
      throw new IllegalArgumentException(
          "format.json.schema declares no column; declare at least one (column: type)");
    }
    // A tree of LinkedHashMaps (structs) and DataTypes (leaves), turned into records at the end.
    Map<String, Object> root = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : columnTypes.entrySet()) {
      String path = e.getKey();
      DataType type = parseType(path, e.getValue());
      String[] parts = path.split("\\.", -1);
      Map<String, Object> node = root;
      for (int i = 0; i < parts.length; i++) {
        String part = parts[i];
        if (part.isBlank()) {
          throw new IllegalArgumentException(
              "column '" + path + "': empty name segment; write nested columns as parent.child");
        }
        String prefix = String.join(".", Arrays.copyOfRange(parts, 0, i + 1));
        Object existing = node.get(part);
        if (i == parts.length - 1) {
          if (existing != null) {
            throw new IllegalArgumentException(
                "column '"
                    + path
                    + "' is declared twice (once as a struct of nested fields);"
                    + " remove one of the declarations");
          }
          node.put(part, type);
        } else {
          if (existing instanceof DataType) {
            throw new IllegalArgumentException(
                "column '"
                    + path
                    + "': '"
                    + prefix
                    + "' is declared as a "
                    + ((DataType) existing).deltaName()
                    + ", so it cannot have nested fields");
          }
          @SuppressWarnings("unchecked")
          Map<String, Object> child =
              (Map<String, Object>) node.computeIfAbsent(part, k -> new LinkedHashMap<>());
          node = child;
        }
      }
    }
    return toStruct(root);
  }

  /** Parses a declared type name; the message names the column when the name is unknown. */
  static DataType parseType(String column, String typeName) {
    String t = typeName == null ? "" : typeName.trim().toLowerCase(Locale.ROOT);
    switch (t) {
      case "string":
        return PrimitiveType.STRING;
      case "byte":
        return PrimitiveType.BYTE;
      case "short":
        return PrimitiveType.SHORT;
      case "float":
        return PrimitiveType.FLOAT;
      case "timestamp_ntz":
        return PrimitiveType.TIMESTAMP_NTZ;
      case "int":
        return PrimitiveType.INTEGER;
      case "long":
        return PrimitiveType.LONG;
      case "double":
        return PrimitiveType.DOUBLE;
      case "boolean":
        return PrimitiveType.BOOLEAN;
      case "timestamp":
        return PrimitiveType.TIMESTAMP;
      case "date":
        return PrimitiveType.DATE;
      default:
        break;
    }
    if (epochUnit(column, typeName) != null) {
      return PrimitiveType.TIMESTAMP;
    }
    Matcher m = DECIMAL.matcher(t);
    if (m.matches()) {
      int precision = Integer.parseInt(m.group(1));
      int scale = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
      try {
        return new DecimalType(precision, scale);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "column '" + column + "': invalid type '" + typeName + "': " + e.getMessage(), e);
      }
    }
    throw new IllegalArgumentException(
        "column '" + column + "': unknown type '" + typeName + "'; expected one of " + KNOWN_TYPES);
  }

  /**
   * The epoch unit of a {@code timestamp(unit)} declaration, {@link EpochUnit#MILLIS} for plain
   * {@code timestamp}, null for any other type.
   *
   * @throws IllegalArgumentException naming the column for an unknown unit
   */
  static EpochUnit epochUnit(String column, String typeName) {
    String t = typeName == null ? "" : typeName.trim().toLowerCase(Locale.ROOT);
    if (t.equals("timestamp")) {
      return EpochUnit.MILLIS;
    }
    Matcher m = EPOCH_TIMESTAMP.matcher(t);
    if (!m.matches()) {
      return null;
    }
    for (EpochUnit unit : EpochUnit.values()) {
      if (unit.keyword().equals(m.group(1))) {
        return unit;
      }
    }
    throw new IllegalArgumentException(
        "column '"
            + column
            + "': unknown epoch unit in '"
            + typeName
            + "'; expected timestamp(seconds), timestamp(millis), timestamp(micros) or timestamp(nanos)");
  }

  /**
   * The epoch unit of every timestamp column declared with one other than milliseconds, by path.
   */
  static Map<String, EpochUnit> epochUnits(Map<String, String> columnTypes) {
    Map<String, EpochUnit> units = new HashMap<>();
    columnTypes.forEach(
        (path, type) -> {
          EpochUnit unit = epochUnit(path, type);
          if (unit != null && unit != EpochUnit.MILLIS) {
            units.put(path, unit);
          }
        });
    return Map.copyOf(units);
  }

  private static StructType toStruct(Map<String, Object> node) {
    List<StructField> fields = new ArrayList<>(node.size());
    for (Map.Entry<String, Object> e : node.entrySet()) {
      DataType type;
      if (e.getValue() instanceof DataType leaf) {
        type = leaf;
      } else {
        @SuppressWarnings("unchecked")
        Map<String, Object> child = (Map<String, Object>) e.getValue();
        type = toStruct(child);
      }
      fields.add(StructField.nullable(e.getKey(), type));
    }
    return new StructType(fields);
  }
}
