package dev.tributary.table;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;

/**
 * The type changes of Delta's {@code typeWidening} table feature (PROTOCOL.md, "Type Widening"), in
 * two sets.
 *
 * <p>{@link #readable}: every change a reader meets in a table Delta 4.0 wrote, which is what its
 * {@code ALTER TABLE ... ALTER COLUMN ... TYPE} applies (and what the 3.x preview applied): {@code
 * byte -> short -> integer -> long}, {@code byte}, {@code short} or {@code integer -> double},
 * {@code float -> double}, {@code date -> timestamp_ntz}, a whole number to a decimal that holds
 * every value of its Parquet type ({@code decimal(10 + k1, k2)} for byte, short and integer, all
 * INT32; {@code decimal(20 + k1, k2)} for long) and {@code decimal(p, s) -> decimal(p + k1, s +
 * k2)}, each with {@code k1 >= k2 >= 0} (the integral digits never shrink); at any depth of
 * structs, arrays and maps. {@code long -> double} is not in the protocol (it loses precision above
 * 2^53), nor is any narrowing.
 *
 * <p>{@link #allowed}: the changes Tributary makes itself when a pipeline declares a wider type
 * (docs/SCHEMA_EVOLUTION.md), top-level columns of the types a pipeline declares to widen: {@code
 * integer -> long, double, decimal}, {@code long -> decimal} and the decimal widenings.
 */
public final class TypeWidening {
  /** The reader-writer table feature that lets a column's type widen. */
  public static final String FEATURE = "typeWidening";

  /** The table property that enables it. */
  public static final String ENABLE_PROPERTY = "delta.enableTypeWidening";

  private TypeWidening() {}

  /** True if Delta allows widening a column of type {@code from} to {@code to}. */
  public static boolean allowed(DataType from, DataType to) {
    if (from.equals(to)) {
      return false;
    }
    if (from == PrimitiveType.INTEGER) {
      return to == PrimitiveType.LONG || to == PrimitiveType.DOUBLE || decimalAtLeast(to, 10, 0);
    }
    if (from == PrimitiveType.LONG) {
      return decimalAtLeast(to, 20, 0);
    }
    if (from instanceof DecimalType d) {
      return decimalAtLeast(to, d.precision(), d.scale());
    }
    return false;
  }

  /**
   * True if values stored as {@code from} are read exactly as {@code to}: the types are equal, or
   * {@code to} is a widening of {@code from} that Delta 4.0 makes, or (structs, arrays, maps) they
   * have the same shape and every part is readable so. A struct must have the same field names in
   * the same order.
   */
  public static boolean readable(DataType from, DataType to) {
    if (from.equals(to)) {
      return true;
    }
    if (from instanceof StructType a && to instanceof StructType b) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        StructField fa = a.fields().get(i);
        StructField fb = b.fields().get(i);
        if (!fa.name().equals(fb.name()) || !readable(fa.type(), fb.type())) {
          return false;
        }
      }
      return true;
    }
    if (from instanceof ArrayType a && to instanceof ArrayType b) {
      return readable(a.elementType(), b.elementType());
    }
    if (from instanceof MapType a && to instanceof MapType b) {
      return readable(a.keyType(), b.keyType()) && readable(a.valueType(), b.valueType());
    }
    int rank = wholeRank(from);
    if (rank > 0) {
      // byte, short and integer are all INT32 in Parquet: a decimal must hold any INT32 (10 digits)
      return wholeRank(to) > rank
          || to == PrimitiveType.DOUBLE && from != PrimitiveType.LONG
          || decimalAtLeast(to, from == PrimitiveType.LONG ? 20 : 10, 0);
    }
    if (from instanceof DecimalType d) {
      return decimalAtLeast(to, d.precision(), d.scale());
    }
    return from == PrimitiveType.FLOAT && to == PrimitiveType.DOUBLE
        || from == PrimitiveType.DATE && to == PrimitiveType.TIMESTAMP_NTZ;
  }

  /** 1 to 4 for byte, short, integer and long; 0 for any other type. */
  private static int wholeRank(DataType type) {
    if (!(type instanceof PrimitiveType p)) {
      return 0;
    }
    return switch (p) {
      case BYTE -> 1;
      case SHORT -> 2;
      case INTEGER -> 3;
      case LONG -> 4;
      default -> 0;
    };
  }

  /** {@code to} is {@code decimal(p + k1, s + k2)} with {@code k1 >= k2 >= 0}. */
  private static boolean decimalAtLeast(DataType to, int p, int s) {
    if (!(to instanceof DecimalType d)) {
      return false;
    }
    int k1 = d.precision() - p;
    int k2 = d.scale() - s;
    return k2 >= 0 && k1 >= k2;
  }
}
