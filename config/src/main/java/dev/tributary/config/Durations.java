package dev.tributary.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the durations of pipeline files: a number and a unit, with or without a space,
 * such as {@code 500ms}, {@code 30s}, {@code 10 min}, {@code 15 minutes}, {@code 2h}, {@code 1
 * hour}, {@code 7 days}. Units (case-insensitive): ns; ms, millis, millisecond(s); s, sec(s),
 * second(s); m, min(s), minute(s); h, hr(s), hour(s); d, day(s); w, week(s). A fraction is allowed
 * ({@code 1.5 hours}).
 */
public final class Durations {

  private static final Pattern SYNTAX =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-z]+)", Pattern.CASE_INSENSITIVE);
  private static final long NANOS_PER_MILLI = 1_000_000L;

  private Durations() {}

  /**
   * Parses a duration such as {@code 15 minutes}.
   *
   * @throws IllegalArgumentException naming the text and showing the expected syntax when it is not
   *     a duration (including a number without a unit)
   */
  public static Duration parse(String text) {
    Matcher m = SYNTAX.matcher(text == null ? "" : text.strip());
    long unitNanos = m.matches() ? unitNanos(m.group(2).toLowerCase(Locale.ROOT)) : -1;
    if (unitNanos < 0) {
      throw new IllegalArgumentException(
          "cannot parse '"
              + text
              + "' as a duration; write a number and a unit like 500ms, 30s, 10 minutes, 1 hour or 7 days");
    }
    BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos));
    try {
      return Duration.ofNanos(nanos.setScale(0, RoundingMode.HALF_UP).longValueExact());
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "the duration '" + text + "' is too long; the maximum is about 292 years", e);
    }
  }

  /**
   * Prints a duration in the largest unit that represents it exactly, in a form {@link #parse}
   * reads back: {@code 1 hour}, {@code 90 minutes}, {@code 7 days}, {@code 500ms}. Sub-millisecond
   * parts are printed in nanoseconds.
   */
  public static String format(Duration duration) {
    long nanos = duration.toNanos();
    if (nanos % NANOS_PER_MILLI != 0) {
      return nanos + "ns";
    }
    long millis = nanos / NANOS_PER_MILLI;
    String[] names = {"day", "hour", "minute", "second"};
    long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    for (int i = 0; i < sizes.length; i++) {
      if (millis != 0 && millis % sizes[i] == 0) {
        long count = millis / sizes[i];
        return count + " " + names[i] + (count == 1 ? "" : "s");
      }
    }
    return millis + "ms";
  }

  private static long unitNanos(String unit) {
    return switch (unit) {
      case "ns", "nanos" -> 1L;
      case "ms", "milli", "millis", "millisecond", "milliseconds" -> NANOS_PER_MILLI;
      case "s", "sec", "secs", "second", "seconds" -> 1_000L * NANOS_PER_MILLI;
      case "m", "min", "mins", "minute", "minutes" -> 60_000L * NANOS_PER_MILLI;
      case "h", "hr", "hrs", "hour", "hours" -> 3_600_000L * NANOS_PER_MILLI;
      case "d", "day", "days" -> 86_400_000L * NANOS_PER_MILLI;
      case "w", "week", "weeks" -> 7 * 86_400_000L * NANOS_PER_MILLI;
      default -> -1;
    };
  }
}
