package dev.tributary.service.expr;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;

/**
 * Type names and the promotion rules: numbers widen int < long < decimal < double; a date widens to
 * a timestamp (midnight UTC); the untyped NULL literal takes the other side's type. Decimal result
 * types follow Spark's rules (precision capped at 38, keeping at least 6 fraction digits when
 * capping).
 */
final class Types {
  static final int MAX_PRECISION = 38;

  private Types() {}

  /** The name users write in pipeline files and CAST: int, long, decimal(10,2), ... */
  static String name(DataType t) {
    if (t == null) {
      return "null";
    }
    if (t instanceof DecimalType d) {
      return d.deltaName();
    }
    if (t instanceof StructType) {
      return "struct";
    }
    if (t instanceof ArrayType a) {
      return "array<" + name(a.elementType()) + ">";
    }
    if (t instanceof MapType m) {
      return "map<" + name(m.keyType()) + "," + name(m.valueType()) + ">";
    }
    return t == PrimitiveType.INTEGER ? "int" : t.deltaName();
  }

  static boolean isNumeric(DataType t) {
    return t == PrimitiveType.INTEGER
        || t == PrimitiveType.LONG
        || t == PrimitiveType.DOUBLE
        || t instanceof DecimalType;
  }

  static boolean isIntegral(DataType t) {
    return t == PrimitiveType.INTEGER || t == PrimitiveType.LONG;
  }

  static boolean isTemporal(DataType t) {
    return t == PrimitiveType.TIMESTAMP || t == PrimitiveType.DATE;
  }

  private static int rank(DataType t) {
    if (t == PrimitiveType.INTEGER) {
      return 1;
    }
    if (t == PrimitiveType.LONG) {
      return 2;
    }
    return t instanceof DecimalType ? 3 : 4;
  }

  /** Decimal view of an integral or decimal type: int = decimal(10,0), long = decimal(20,0). */
  static DecimalType asDecimal(DataType t) {
    if (t instanceof DecimalType d) {
      return d;
    }
    return t == PrimitiveType.INTEGER ? new DecimalType(10, 0) : new DecimalType(20, 0);
  }

  /** The wider of two numeric types. */
  static DataType widerNumeric(DataType a, DataType b) {
    int ra = rank(a);
    int rb = rank(b);
    if (ra == 4 || rb == 4) {
      return PrimitiveType.DOUBLE;
    }
    if (ra == 3 || rb == 3) {
      DecimalType x = asDecimal(a);
      DecimalType y = asDecimal(b);
      int scale = Math.max(x.scale(), y.scale());
      int intDigits = Math.max(x.precision() - x.scale(), y.precision() - y.scale());
      return bounded(intDigits + scale, scale);
    }
    return ra >= rb ? a : b;
  }

  /**
   * The common type of two values that must meet (comparison, CASE branches, COALESCE, IN), or null
   * when there is none. A null type (the NULL literal) yields the other type.
   */
  static DataType common(DataType a, DataType b) {
    if (a == null) {
      return b;
    }
    if (b == null || a.equals(b)) {
      return a;
    }
    if (isNumeric(a) && isNumeric(b)) {
      return widerNumeric(a, b);
    }
    if (isTemporal(a) && isTemporal(b)) {
      return PrimitiveType.TIMESTAMP;
    }
    return null;
  }

  /** A decimal type with the precision capped at 38 (Spark's adjustment when it overflows). */
  static DecimalType bounded(int precision, int scale) {
    if (precision <= MAX_PRECISION) {
      return new DecimalType(Math.max(precision, 1), scale);
    }
    int intDigits = precision - scale;
    int minScale = Math.min(scale, 6);
    int adjustedScale = Math.max(MAX_PRECISION - intDigits, minScale);
    return new DecimalType(MAX_PRECISION, adjustedScale);
  }
}
