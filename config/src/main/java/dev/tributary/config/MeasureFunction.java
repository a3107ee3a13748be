package dev.tributary.config;

import java.util.Locale;

/** The aggregate functions a measure can use, written in lower case in files. */
public enum MeasureFunction {
  /** Number of rows ({@code count()}) or of non-null values ({@code count(col)}). */
  COUNT,
  /** Sum of the non-null values. */
  SUM,
  /** Smallest non-null value. */
  MIN,
  /** Largest non-null value. */
  MAX,
  /** Average of the non-null values, as a double. */
  AVG,
  /** Number of distinct non-null values (exact). */
  COUNT_DISTINCT,
  /**
   * The first value in input order, null included (Spark's {@code first} with ignoreNulls=false).
   */
  FIRST,
  /** The last value in input order, null included (Spark's {@code last} with ignoreNulls=false). */
  LAST,
  /** An estimate of the number of distinct non-null values (HyperLogLog sketch, bounded state). */
  APPROX_COUNT_DISTINCT;

  /** Returns the name as written in files, e.g. {@code count_distinct}. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }
}
