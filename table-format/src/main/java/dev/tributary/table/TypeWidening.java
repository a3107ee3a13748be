package dev.tributary.table;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;

/**
 * The type changes Delta's {@code typeWidening} table feature allows (PROTOCOL.md, "Type
 * Widening"), restricted to the column types Tributary has: {@code integer -> long}, {@code integer
 * -> double}, {@code integer -> decimal(10 + k1, k2)}, {@code long -> decimal(20 + k1, k2)} and
 * {@code decimal(p, s) -> decimal(p + k1, s + k2)}, each with {@code k1 >= k2 >= 0} (the integral
 * digits never shrink). {@code long -> double} is not in the protocol (it loses precision above
 * 2^53), nor is any narrowing. Delta's {@code date -> timestamp_ntz} does not apply: our {@code
 * timestamp} is Delta's zoned {@code timestamp}.
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
