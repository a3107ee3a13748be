package dev.tributary.service.parse;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Allocation-free parsing of the timestamp and date strings that records carry, shared by the JSON
 * parser and the expression language so that both accept exactly the same texts.
 *
 * <p>Timestamps: {@code yyyy-MM-dd}, optionally followed by {@code T} (or a space) and {@code
 * HH:mm[:ss[.fraction]]}, optionally followed by a zone: {@code Z}, {@code +HH:mm}, {@code +HHmm}
 * or {@code +HH}. Without a zone the time is UTC. Fractions beyond microseconds are truncated
 * (Delta stores microseconds). Dates: exactly {@code yyyy-MM-dd}. Both return {@code null} for
 * anything else, including impossible dates like {@code 2026-02-30}; callers turn that into their
 * own error message.
 */
public final class IsoTimestamps {
  private IsoTimestamps() {}

  /** Parses a timestamp (see class comment), or returns null when the text is not one. */
  public static Instant parseTimestamp(String text) {
    return parseTimestamp(text.toCharArray(), 0, text.length());
  }

  /** Parses a date {@code yyyy-MM-dd}, or returns null when the text is not one. */
  public static LocalDate parseDate(String text) {
    return parseDate(text.toCharArray(), 0, text.length());
  }

  /**
   * As {@link #parseTimestamp(String)}, reading {@code len} chars of {@code c} from {@code off}.
   */
  public static Instant parseTimestamp(char[] c, int off, int len) {
    if (len < 10) {
      return null;
    }
    long epochDay = epochDay(c, off);
    if (epochDay == Long.MIN_VALUE) {
      return null;
    }
    int end = off + len;
    int i = off + 10;
    long secondOfDay = 0;
    int nanos = 0;
    if (i < end) {
      char sep = c[i];
      if (sep != 'T' && sep != 't' && sep != ' ') {
        return null;
      }
      i++;
      if (end - i < 5 || c[i + 2] != ':') {
        return null;
      }
      int hour = twoDigits(c, i);
      int minute = twoDigits(c, i + 3);
      i += 5;
      int second = 0;
      if (i < end && c[i] == ':') {
        if (end - i < 3) {
          return null;
        }
        second = twoDigits(c, i + 1);
        i += 3;
        if (i < end && c[i] == '.') {
          i++;
          int digits = 0;
          while (i < end && c[i] >= '0' && c[i] <= '9') {
            if (digits < 9) {
              nanos = nanos * 10 + (c[i] - '0');
            }
            digits++;
            i++;
          }
          if (digits == 0) {
            return null;
          }
          for (int d = digits; d < 9; d++) {
            nanos *= 10;
          }
          nanos -= nanos % 1000; // microsecond precision, like Delta and Spark
        }
      }
      if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
        return null;
      }
      secondOfDay = hour * 3600L + minute * 60L + second;
      if (i < end) {
        int offsetSeconds = zoneOffsetSeconds(c, i, end);
        if (offsetSeconds == Integer.MIN_VALUE) {
          return null;
        }
        secondOfDay -= offsetSeconds;
      }
    }
    return Instant.ofEpochSecond(epochDay * 86_400L + secondOfDay, nanos);
  }

  /** As {@link #parseDate(String)}, reading {@code len} chars of {@code c} from {@code off}. */
  public static LocalDate parseDate(char[] c, int off, int len) {
    if (len != 10) {
      return null;
    }
    long epochDay = epochDay(c, off);
    return epochDay == Long.MIN_VALUE ? null : LocalDate.ofEpochDay(epochDay);
  }

  /** Epoch day of {@code yyyy-MM-dd} at {@code off}, or Long.MIN_VALUE when invalid. */
  private static long epochDay(char[] c, int off) {
    if (c[off + 4] != '-' || c[off + 7] != '-') {
      return Long.MIN_VALUE;
    }
    int y1 = twoDigits(c, off);
    int y2 = twoDigits(c, off + 2);
    int month = twoDigits(c, off + 5);
    int day = twoDigits(c, off + 8);
    if (y1 < 0 || y2 < 0 || month < 0 || day < 0) {
      return Long.MIN_VALUE;
    }
    try {
      return LocalDate.of(y1 * 100 + y2, month, day).toEpochDay();
    } catch (DateTimeException e) {
      return Long.MIN_VALUE;
    }
  }

  /** Seconds east of UTC for Z / +HH:mm / +HHmm / +HH ending exactly at end, or MIN_VALUE. */
  private static int zoneOffsetSeconds(char[] c, int i, int end) {
    char sign = c[i];
    if ((sign == 'Z' || sign == 'z') && i + 1 == end) {
      return 0;
    }
    if (sign != '+' && sign != '-') {
      return Integer.MIN_VALUE;
    }
    int rest = end - i - 1;
    int hours;
    int minutes = 0;
    if (rest == 2) {
      hours = twoDigits(c, i + 1);
    } else if (rest == 4) {
      hours = twoDigits(c, i + 1);
      minutes = twoDigits(c, i + 3);
    } else if (rest == 5 && c[i + 3] == ':') {
      hours = twoDigits(c, i + 1);
      minutes = twoDigits(c, i + 4);
    } else {
      return Integer.MIN_VALUE;
    }
    if (hours < 0 || hours > 18 || minutes < 0 || minutes > 59) {
      return Integer.MIN_VALUE;
    }
    int seconds = hours * 3600 + minutes * 60;
    return sign == '-' ? -seconds : seconds;
  }

  /** Two decimal digits at i as 0..99, or -1. */
  private static int twoDigits(char[] c, int i) {
    int a = c[i] - '0';
    int b = c[i + 1] - '0';
    if (a < 0 || a > 9 || b < 0 || b > 9) {
      return -1;
    }
    return a * 10 + b;
  }
}
