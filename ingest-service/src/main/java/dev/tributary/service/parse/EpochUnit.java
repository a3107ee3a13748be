package dev.tributary.service.parse;

import java.time.Instant;
import java.util.Locale;

/**
 * The unit of a numeric timestamp in JSON: {@code timestamp} columns read numbers as epoch
 * milliseconds, {@code timestamp(seconds)}, {@code timestamp(micros)} and {@code timestamp(nanos)}
 * in their unit. Only numbers inside the years 0001-9999 are instants (Delta's range; see {@link
 * #toInstant}).
 */
public enum EpochUnit {
  SECONDS(1L),
  MILLIS(1_000L),
  MICROS(1_000_000L),
  NANOS(1_000_000_000L);

  /** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in epoch seconds. */
  static final long MIN_SECOND = -62_135_596_800L;

  static final long MAX_SECOND = 253_402_300_799L;

  private final long perSecond;

  EpochUnit(long perSecond) {
    this.perSecond = perSecond;
  }

  /** The unit in words, for messages: {@code seconds}, {@code milliseconds}, ... */
  public String words() {
    return switch (this) {
      case SECONDS -> "seconds";
      case MILLIS -> "milliseconds";
      case MICROS -> "microseconds";
      case NANOS -> "nanoseconds";
    };
  }

  /**
   * As written in a column type: {@code seconds}, {@code millis}, {@code micros}, {@code nanos}.
   */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The instant {@code value} units after the epoch, truncated to microseconds (Delta's precision),
   * or null when it is outside the years 0001-9999 (no overflow is possible: the range is checked
   * before any multiplication).
   */
  public Instant toInstant(long value) {
    long second = Math.floorDiv(value, perSecond);
    if (second < MIN_SECOND || second > MAX_SECOND) {
      return null;
    }
    long nanos = Math.floorMod(value, perSecond) * (1_000_000_000L / perSecond);
    return Instant.ofEpochSecond(second, nanos - nanos % 1000);
  }

  /**
   * Whether {@code value} in this unit is an instant of years 1900-2199: a plausible event time.
   */
  boolean plausible(long value) {
    long second = Math.floorDiv(value, perSecond);
    return second >= -2_208_988_800L && second < 7_258_118_400L;
  }
}
