package dev.tributary.table.data;

/**
 * Truncation of string statistics to a prefix, as Delta does to keep the log small. Strings are
 * ordered by code point, which is the UTF-8 byte order Spark and the Delta readers compare in.
 */
final class StringBounds {
  /** Delta's default {@code dataSkippingStringPrefixLength}. */
  static final int PREFIX_LENGTH = 32;

  private StringBounds() {}

  /** A lower bound: the first {@value #PREFIX_LENGTH} code points (a prefix is never larger). */
  static String lowerBound(String min) {
    if (min.codePointCount(0, min.length()) <= PREFIX_LENGTH) {
      return min;
    }
    return min.substring(0, min.offsetByCodePoints(0, PREFIX_LENGTH));
  }

  /**
   * An upper bound of at most {@value #PREFIX_LENGTH} code points, or null if none exists. A longer
   * string is cut to the prefix and its last code point that can be incremented is incremented
   * (dropping what follows), which makes the result greater than every string that starts with the
   * prefix. Only a prefix of U+10FFFF characters has no such bound.
   */
  static String upperBound(String max) {
    if (max.codePointCount(0, max.length()) <= PREFIX_LENGTH) {
      return max;
    }
    int[] codePoints = max.codePoints().limit(PREFIX_LENGTH).toArray();
    for (int i = codePoints.length - 1; i >= 0; i--) {
      int next = codePoints[i] + 1;
      if (next >= Character.MIN_SURROGATE && next <= Character.MAX_SURROGATE) {
        next = Character.MAX_SURROGATE + 1;
      }
      if (next <= Character.MAX_CODE_POINT) {
        codePoints[i] = next;
        return new String(codePoints, 0, i + 1);
      }
    }
    return null;
  }
}
