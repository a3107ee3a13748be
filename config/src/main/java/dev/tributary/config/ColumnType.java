package dev.tributary.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of a declared column: one of the {@link Primitive} types, a {@link Decimal} or an {@link
 * EpochTimestamp}. Written in files as {@code string}, {@code byte}, {@code short}, {@code int},
 * {@code long}, {@code float}, {@code double}, {@code boolean}, {@code timestamp}, {@code
 * timestamp(seconds)}, {@code timestamp(micros)}, {@code timestamp(nanos)}, {@code timestamp_ntz},
 * {@code date} or {@code decimal(p,s)}.
 */
public sealed interface ColumnType
    permits ColumnType.Primitive, ColumnType.Decimal, ColumnType.EpochTimestamp {

  /** Returns the type as written in files, e.g. {@code long} or {@code decimal(10,2)}. */
  String canonical();

  /** Whether values are timestamps ({@code timestamp} or one of its epoch-unit forms). */
  default boolean isTimestamp() {
    return this == Primitive.TIMESTAMP || this instanceof EpochTimestamp;
  }

  /** The unit of a numeric epoch in a {@code timestamp(unit)} column. */
  enum EpochUnit {
    SECONDS,
    MILLIS,
    MICROS,
    NANOS;

    /**
     * The unit as written in files: {@code seconds}, {@code millis}, {@code micros}, {@code nanos}.
     */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * A timestamp whose numeric JSON values count {@code unit}s since 1970-01-01T00:00:00Z (ISO-8601
   * strings are read as for {@code timestamp}). Plain {@code timestamp} is epoch milliseconds, so
   * {@code timestamp(millis)} parses to {@link Primitive#TIMESTAMP}.
   *
   * @param unit seconds, micros or nanos
   */
  record EpochTimestamp(EpochUnit unit) implements ColumnType {
    /** Checks the unit is not millis (that is plain {@code timestamp}). */
    public EpochTimestamp {
      if (unit == null || unit == EpochUnit.MILLIS) {
        throw new IllegalArgumentException(
            "timestamp(millis) is plain timestamp; use Primitive.TIMESTAMP");
      }
    }

    @Override
    public String canonical() {
      return "timestamp(" + unit.keyword() + ")";
    }
  }

  /** The types without parameters. */
  enum Primitive implements ColumnType {
    /** UTF-8 text. */
    STRING,
    /** 8-bit signed integer (Delta's byte, Spark's TINYINT). */
    BYTE,
    /** 16-bit signed integer (Delta's short, Spark's SMALLINT). */
    SHORT,
    /** 32-bit signed integer. */
    INT,
    /** 64-bit signed integer. */
    LONG,
    /** 32-bit floating point. */
    FLOAT,
    /** 64-bit floating point. */
    DOUBLE,
    /** true or false. */
    BOOLEAN,
    /**
     * An instant, from an ISO-8601 string or epoch milliseconds (see {@link EpochTimestamp} for
     * other units).
     */
    TIMESTAMP,
    /**
     * A wall-clock date and time without a time zone (Delta's timestamp_ntz), from an ISO-8601
     * local date-time string like {@code 2026-01-01T10:00:00}.
     */
    TIMESTAMP_NTZ,
    /** A calendar date, from an ISO-8601 date string. */
    DATE;

    @Override
    public String canonical() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * A fixed-point decimal.
   *
   * @param precision total digits, 1 to 38
   * @param scale digits after the point, 0 to precision
   */
  record Decimal(int precision, int scale) implements ColumnType {
    /** Checks 1 <= precision <= 38 and 0 <= scale <= precision. */
    public Decimal {
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        throw new IllegalArgumentException(
            "decimal("
                + precision
                + ","
                + scale
                + ") is out of range; precision must be 1 to 38 and scale 0 to the precision");
      }
    }

    @Override
    public String canonical() {
      return "decimal(" + precision + "," + scale + ")";
    }
  }

  /**
   * Parses a type as written in files.
   *
   * @throws IllegalArgumentException naming the text and listing the accepted types
   */
  static ColumnType parse(String text) {
    String value = text.strip();
    Matcher decimal =
        Pattern.compile("decimal\\s*\\(\\s*(\\d{1,3})\\s*,\\s*(\\d{1,3})\\s*\\)").matcher(value);
    if (decimal.matches()) {
      return new Decimal(Integer.parseInt(decimal.group(1)), Integer.parseInt(decimal.group(2)));
    }
    for (Primitive p : Primitive.values()) {
      if (p.canonical().equals(value)) {
        return p;
      }
    }
    Matcher epoch = Pattern.compile("timestamp\\s*\\(\\s*([a-z]*)\\s*\\)").matcher(value);
    if (epoch.matches()) {
      for (EpochUnit unit : EpochUnit.values()) {
        if (unit.keyword().equals(epoch.group(1))) {
          return unit == EpochUnit.MILLIS ? Primitive.TIMESTAMP : new EpochTimestamp(unit);
        }
      }
      throw new IllegalArgumentException(
          "unknown epoch unit in column type '"
              + text
              + "'; use timestamp(seconds), timestamp(millis) (= timestamp), timestamp(micros) or timestamp(nanos)");
    }
    throw new IllegalArgumentException(
        "unknown column type '"
            + text
            + "'; use string, byte, short, int, long, float, double, boolean, timestamp,"
            + " timestamp(seconds|micros|nanos), timestamp_ntz, date"
            + " or decimal(p,s) like decimal(10,2)");
  }
}
