package dev.tributary.table.types;

import java.util.ArrayList;
import java.util.List;

/**
 * Delta's {@code variant} column type (table features {@code variantType} and {@code
 * variantType-preview}): semi-structured values stored in Parquet as a group of two binaries,
 * {@code value} and {@code metadata}, in the Variant binary encoding (Parquet's
 * VariantEncoding.md). Tributary reads such a column as the JSON text Spark's {@code to_json} gives
 * for it (a {@link String}; see docs/DESIGN.md, "Variant columns"), so the read schema a pipeline
 * sees ({@link #asJsonText(StructType)}) holds a {@code string} in its place. It never writes one:
 * a table with the feature is refused by every writer by name.
 */
public record VariantType() implements DataType {
  /** The one instance; the type has no parameters. */
  public static final VariantType VARIANT = new VariantType();

  @Override
  public String deltaName() {
    return "variant";
  }

  /**
   * The schema a reader hands on: every variant (top-level, or nested in structs, arrays and maps)
   * replaced by {@link PrimitiveType#STRING}, the type of its JSON text. A schema without variants
   * is returned as is.
   */
  public static StructType asJsonText(StructType schema) {
    return contains(schema) ? (StructType) jsonText(schema) : schema;
  }

  /** True if the type is, or holds somewhere inside it, a variant. */
  public static boolean contains(DataType type) {
    if (type instanceof VariantType) {
      return true;
    }
    if (type instanceof StructType struct) {
      return struct.fields().stream().anyMatch(f -> contains(f.type()));
    }
    if (type instanceof ArrayType array) {
      return contains(array.elementType());
    }
    return type instanceof MapType map && (contains(map.keyType()) || contains(map.valueType()));
  }

  private static DataType jsonText(DataType type) {
    if (type instanceof VariantType) {
      return PrimitiveType.STRING;
    }
    if (type instanceof StructType struct) {
      List<StructField> fields = new ArrayList<>(struct.size());
      for (StructField f : struct.fields()) {
        fields.add(f.withType(jsonText(f.type())));
      }
      return new StructType(fields);
    }
    if (type instanceof ArrayType array) {
      return new ArrayType(jsonText(array.elementType()), array.containsNull());
    }
    if (type instanceof MapType map) {
      return new MapType(
          jsonText(map.keyType()), jsonText(map.valueType()), map.valueContainsNull());
    }
    return type;
  }
}
