package dev.tributary.service.expr;

import dev.tributary.service.parse.IsoTimestamps;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Value conversions. Implicit ones (numeric widening, date to timestamp) never fail. Explicit
 * {@code CAST}s follow Spark's non-ANSI mode: a value that cannot be converted (the string {@code
 * '12x'} to int, a double out of long range, too many digits for a decimal) gives null rather than
 * an error, so one odd record cannot stop a pipeline.
 */
final class Casts {
  private Casts() {}

  /** A conversion of a non-null value; may return null (failed CAST). */
  @FunctionalInterface
  interface Conversion {
    Object apply(Object v);
  }

  /** The widening conversion from {@code from} to {@code to}; see {@link Types#common}. */
  static Conversion implicit(DataType from, DataType to) {
    Conversion c = explicit(from, to);
    if (c == null) {
      throw new IllegalStateException("no implicit conversion from " + from + " to " + to);
    }
    return c;
  }

  /** True when CAST(x AS to) is allowed for x of type from. */
  static boolean canCast(DataType from, DataType to) {
    return from == null || explicit(from, to) != null;
  }

  /** The CAST conversion, or null when the cast is not allowed. */
  static Conversion explicit(DataType from, DataType to) {
    if (from.equals(to)) {
      return v -> v;
    }
    Conversion widened = viaWiderType(from, to);
    if (widened != null) {
      return widened;
    }
    if (to == PrimitiveType.STRING) {
      return from instanceof StructType || from == PrimitiveType.BINARY ? null : Casts::toText;
    }
    if (to instanceof DecimalType d) {
      return toDecimal(from, d);
    }
    if (!(to instanceof PrimitiveType target)) {
      return null;
    }
    return switch (target) {
      case INTEGER -> toIntegral(from, Integer.MIN_VALUE, Integer.MAX_VALUE, true);
      case LONG -> toIntegral(from, Long.MIN_VALUE, Long.MAX_VALUE, false);
      case DOUBLE -> toDouble(from);
      case BOOLEAN -> toBoolean(from);
      case TIMESTAMP -> toTimestamp(from);
      case DATE -> toDate(from);
      default -> null;
    };
  }

  /**
   * CAST from the types a Delta source may carry but expressions do not compute with: byte and
   * short go through int, float through double, timestamp_ntz through the timestamp of its
   * wall-clock time in UTC (the session zone of the language) or, to string, its ISO-8601 local
   * text. Null when {@code from} is none of them, or the cast is not allowed.
   */
  private static Conversion viaWiderType(DataType from, DataType to) {
    DataType wider;
    Conversion widen;
    if (from == PrimitiveType.BYTE || from == PrimitiveType.SHORT) {
      wider = PrimitiveType.INTEGER;
      widen = v -> ((Number) v).intValue();
    } else if (from == PrimitiveType.FLOAT) {
      wider = PrimitiveType.DOUBLE;
      widen = v -> ((Float) v).doubleValue();
    } else if (from == PrimitiveType.TIMESTAMP_NTZ) {
      if (to == PrimitiveType.STRING) {
        return v -> DateTimeFormatter.ISO_LOCAL_DATE_TIME.format((LocalDateTime) v);
      }
      wider = PrimitiveType.TIMESTAMP;
      widen = v -> ((LocalDateTime) v).toInstant(ZoneOffset.UTC);
    } else {
      return null;
    }
    Conversion rest = explicit(wider, to);
    return rest == null ? null : v -> rest.apply(widen.apply(v));
  }

  /** The text form of a value, as CAST(x AS string) and concatenation produce it. */
  static String toText(Object v) {
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    return v.toString(); // Instant: ISO-8601 with Z; LocalDate: yyyy-MM-dd; numbers: Java's form
  }

  private static Conversion toIntegral(DataType from, long min, long max, boolean toInt) {
    Conversion asLong;
    if (Types.isIntegral(from)) {
      asLong = v -> ((Number) v).longValue();
    } else if (from == PrimitiveType.DOUBLE) {
      asLong =
          v -> {
            double d = (Double) v;
            // Truncation toward zero, as SQL casts do; out of range or NaN gives null.
            return Double.isNaN(d) || d < -9.223372036854776E18 || d >= 9.223372036854776E18
                ? null
                : (long) d;
          };
    } else if (from instanceof DecimalType) {
      asLong = v -> truncateToLong((BigDecimal) v);
    } else if (from == PrimitiveType.STRING) {
      asLong = v -> parseLong(((String) v).trim());
    } else if (from == PrimitiveType.BOOLEAN) {
      asLong = v -> ((Boolean) v) ? 1L : 0L;
    } else if (from == PrimitiveType.TIMESTAMP) {
      asLong = v -> ((Instant) v).getEpochSecond(); // epoch seconds, like Spark
    } else {
      return null;
    }
    return v -> {
      Object l = asLong.apply(v);
      if (l == null) {
        return null;
      }
      long x = (Long) l;
      if (x < min || x > max) {
        return null;
      }
      return toInt ? (Object) (int) x : (Object) x;
    };
  }

  private static Long parseLong(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      try {
        return truncateToLong(new BigDecimal(s)); // '1.5' -> 1, as Spark
      } catch (NumberFormatException notANumber) {
        return null;
      }
    }
  }

  private static Long truncateToLong(BigDecimal d) {
    if (d.precision() - d.scale() > 19) {
      return null;
    }
    try {
      return d.setScale(0, RoundingMode.DOWN).longValueExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private static Conversion toDouble(DataType from) {
    if (Types.isNumeric(from)) {
      return v -> ((Number) v).doubleValue();
    }
    if (from == PrimitiveType.STRING) {
      return v -> {
        try {
          return Double.parseDouble(((String) v).trim());
        } catch (NumberFormatException e) {
          return null;
        }
      };
    }
    if (from == PrimitiveType.BOOLEAN) {
      return v -> ((Boolean) v) ? 1.0 : 0.0;
    }
    if (from == PrimitiveType.TIMESTAMP) {
      return v -> {
        Instant i = (Instant) v;
        return i.getEpochSecond() + i.getNano() / 1e9;
      };
    }
    return null;
  }

  private static Conversion toDecimal(DataType from, DecimalType d) {
    Conversion asDecimal;
    if (from instanceof DecimalType) {
      asDecimal = v -> v;
    } else if (Types.isIntegral(from)) {
      asDecimal = v -> BigDecimal.valueOf(((Number) v).longValue());
    } else if (from == PrimitiveType.DOUBLE) {
      asDecimal =
          v -> {
            double x = (Double) v;
            return Double.isFinite(x) ? BigDecimal.valueOf(x) : null;
          };
    } else if (from == PrimitiveType.STRING) {
      asDecimal =
          v -> {
            try {
              return new BigDecimal(((String) v).trim());
            } catch (NumberFormatException e) {
              return null;
            }
          };
    } else if (from == PrimitiveType.BOOLEAN) {
      asDecimal = v -> ((Boolean) v) ? BigDecimal.ONE : BigDecimal.ZERO;
    } else {
      return null;
    }
    return v -> {
      Object x = asDecimal.apply(v);
      return x == null ? null : fit((BigDecimal) x, d);
    };
  }

  /** {@code v} rounded half-up to the type's scale, or null when it needs more precision. */
  static BigDecimal fit(BigDecimal v, DecimalType d) {
    if (v.precision() - v.scale() > d.precision() - d.scale()) {
      return null; // checked first so that 1E+999999 cannot expand to a million digits
    }
    BigDecimal r = v.setScale(d.scale(), RoundingMode.HALF_UP);
    return r.precision() - r.scale() > d.precision() - d.scale() ? null : r;
  }

  private static Conversion toBoolean(DataType from) {
    if (Types.isNumeric(from)) {
      return v -> v instanceof BigDecimal b ? b.signum() != 0 : ((Number) v).doubleValue() != 0;
    }
    if (from == PrimitiveType.STRING) {
      return v ->
          switch (((String) v).trim().toLowerCase(Locale.ROOT)) {
            case "t", "true", "y", "yes", "1" -> Boolean.TRUE;
            case "f", "false", "n", "no", "0" -> Boolean.FALSE;
            default -> null;
          };
    }
    return null;
  }

  private static Conversion toTimestamp(DataType from) {
    if (from == PrimitiveType.DATE) {
      return v -> ((LocalDate) v).atStartOfDay(ZoneOffset.UTC).toInstant();
    }
    if (from == PrimitiveType.STRING) {
      return v -> IsoTimestamps.parseTimestamp(((String) v).trim());
    }
    if (Types.isIntegral(from)) {
      return v -> Instant.ofEpochSecond(((Number) v).longValue()); // seconds, like Spark
    }
    if (from == PrimitiveType.DOUBLE || from instanceof DecimalType) {
      return v -> {
        double s = ((Number) v).doubleValue();
        if (!Double.isFinite(s) || Math.abs(s) > 3.1e16) {
          return null; // beyond Instant's range
        }
        long micros = (long) Math.floor(s * 1_000_000);
        return Instant.ofEpochSecond(
            Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L);
      };
    }
    return null;
  }

  private static Conversion toDate(DataType from) {
    if (from == PrimitiveType.TIMESTAMP) {
      return v -> LocalDate.ofInstant((Instant) v, ZoneOffset.UTC);
    }
    if (from == PrimitiveType.STRING) {
      return v -> {
        String s = ((String) v).trim();
        LocalDate d = IsoTimestamps.parseDate(s);
        if (d != null) {
          return d;
        }
        Instant i = IsoTimestamps.parseTimestamp(s);
        return i == null ? null : LocalDate.ofInstant(i, ZoneOffset.UTC);
      };
    }
    return null;
  }
}
