package dev.tributary.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of a declared column: one of the {@link Primitive} types or a {@link Decimal}. Written in
 * files as {@code string}, {@code int}, {@code long}, {@code double}, {@code boolean}, {@code timestamp},
 * {@code date} or {@code decimal(p,s)}.
 */
public sealed interface ColumnType permits ColumnType.Primitive, ColumnType.Decimal {

  /** Returns the type as written in files, e.g. {@code long} or {@code decimal(10,2)}. */
  String canonical();

  /** The types without parameters. */
  enum Primitive implements ColumnType {
    /** UTF-8 text. */
    STRING,
    /** 32-bit signed integer. */
    INT,
    /** 64-bit signed integer. */
    LONG,
    /** 64-bit floating point. */
    DOUBLE,
    /** true or false. */
    BOOLEAN,
    /** An instant, from an ISO-8601 string or epoch milliseconds. */
    TIMESTAMP,
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
        throw new IllegalArgumentException("decimal(" + precision + "," + scale
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
    Matcher decimal = Pattern.compile("decimal\\s*\\(\\s*(\\d{1,3})\\s*,\\s*(\\d{1,3})\\s*\\)").matcher(value);
    if (decimal.matches()) {
      return new Decimal(Integer.parseInt(decimal.group(1)), Integer.parseInt(decimal.group(2)));
    }
    for (Primitive p : Primitive.values()) {
      if (p.canonical().equals(value)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown column type '" + text
        + "'; use string, int, long, double, boolean, timestamp, date or decimal(p,s) like decimal(10,2)");
  }
}
