package dev.tributary.config;

import java.util.Objects;

/**
 * One conjunct of a {@link TimeCondition}, rewritten to {@code lowerColumn + offset < upperColumn}
 * ({@code <=} when not {@link #strict}): {@code p_ts >= ts} is {@code ts + 0 <= p_ts}, {@code p_ts
 * <= ts + INTERVAL 30 MINUTES} is {@code p_ts + (-30 min) <= ts}. The two columns are on different
 * sides of the join.
 *
 * @param lower the side of {@link #lowerColumn}
 * @param lowerColumn the event-time column on the smaller side of the comparison
 * @param upper the side of {@link #upperColumn}; never {@link #lower}
 * @param upperColumn the event-time column on the larger side
 * @param offsetMicros what is added to the lower column, in microseconds (may be negative)
 * @param strict {@code <} (true) or {@code <=} (false)
 */
public record Bound(
    JoinSide lower,
    String lowerColumn,
    JoinSide upper,
    String upperColumn,
    long offsetMicros,
    boolean strict) {

  /** Checks that the two columns are on different sides. */
  public Bound {
    Objects.requireNonNull(lower, "lower");
    Objects.requireNonNull(lowerColumn, "lowerColumn");
    Objects.requireNonNull(upper, "upper");
    Objects.requireNonNull(upperColumn, "upperColumn");
    if (lower == upper) {
      throw new IllegalArgumentException("a time bound compares the two sides of a join");
    }
  }

  /**
   * Whether a pair of rows passes this conjunct: exact microsecond arithmetic, as Spark evaluates
   * the condition on a candidate pair (rule P5). A sum beyond the range of a long is taken as that
   * range's end (no timestamp is that far).
   *
   * @param lowerMicros the event time of the {@link #lower} row's {@link #lowerColumn}
   * @param upperMicros the event time of the {@link #upper} row's {@link #upperColumn}
   */
  public boolean holds(long lowerMicros, long upperMicros) {
    long shifted = saturatedAdd(lowerMicros, offsetMicros);
    return strict ? shifted < upperMicros : shifted <= upperMicros;
  }

  /** The conjunct in its rewritten form, e.g. {@code p_ts - 30 min <= ts}. */
  public String canonical() {
    return lowerColumn
        + (offsetMicros == 0 ? "" : (offsetMicros > 0 ? " + " : " - ") + interval(offsetMicros))
        + (strict ? " < " : " <= ")
        + upperColumn;
  }

  /**
   * An interval in its largest exact unit, without sign: {@code 30 min}, {@code 1 h}, {@code 2 d},
   * {@code 1500 ms}, {@code 7 µs}.
   */
  static String interval(long micros) {
    long abs = Math.abs(micros);
    if (abs == 0) {
      return "0 ms";
    }
    String[] names = {"d", "h", "min", "s", "ms"};
    long[] sizes = {86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L};
    for (int i = 0; i < sizes.length; i++) {
      if (abs % sizes[i] == 0) {
        return abs / sizes[i] + " " + names[i];
      }
    }
    return abs + " µs";
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    // Overflow happened when both operands have the sign the sum lacks.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }
}
