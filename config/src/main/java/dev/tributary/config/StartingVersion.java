package dev.tributary.config;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * Where a Delta source without a checkpoint starts reading its table: {@code earliest} (the whole
 * table, the default), {@code latest} (only commits after the first batch), a table version, or
 * {@code timestamp:2026-01-01T00:00:00Z} (the first commit at or after it). Ignored once a
 * checkpoint exists.
 */
public sealed interface StartingVersion {

  /** The table's snapshot at the start, then every later commit (the default). */
  record Earliest() implements StartingVersion {
    @Override
    public String toString() {
      return "earliest";
    }
  }

  /** Only commits made after the first batch. */
  record Latest() implements StartingVersion {
    @Override
    public String toString() {
      return "latest";
    }
  }

  /**
   * The changes of {@code version} and every later commit.
   *
   * @param version a table version, at least 0
   */
  record AtVersion(long version) implements StartingVersion {
    /** Checks the version is not negative. */
    public AtVersion {
      if (version < 0) {
        throw new IllegalArgumentException("a table version is at least 0, got " + version);
      }
    }

    @Override
    public String toString() {
      return Long.toString(version);
    }
  }

  /**
   * The first commit whose timestamp is at or after {@code instant}, and every later one.
   *
   * @param instant the point in time
   */
  record AtTimestamp(Instant instant) implements StartingVersion {
    /** Checks the instant is not null. */
    public AtTimestamp {
      Objects.requireNonNull(instant, "instant");
    }

    @Override
    public String toString() {
      return "timestamp:" + instant;
    }
  }

  /**
   * Parses {@code earliest}, {@code latest}, a version number or {@code timestamp:<ISO-8601 instant
   * or date>}.
   *
   * @throws IllegalArgumentException with a message saying what is accepted
   */
  static StartingVersion parse(String text) {
    String t = text.trim();
    if (t.equals("earliest")) {
      return new Earliest();
    }
    if (t.equals("latest")) {
      return new Latest();
    }
    if (t.startsWith("timestamp:")) {
      String when = t.substring("timestamp:".length()).trim();
      try {
        return new AtTimestamp(
            when.length() == 10
                ? LocalDate.parse(when).atStartOfDay(ZoneOffset.UTC).toInstant()
                : Instant.parse(when));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "'"
                + when
                + "' is not an ISO-8601 instant or date; write e.g."
                + " timestamp:2026-01-01T00:00:00Z or timestamp:2026-01-01");
      }
    }
    if (t.matches("[0-9]{1,18}")) {
      return new AtVersion(Long.parseLong(t));
    }
    throw new IllegalArgumentException(
        "'"
            + t
            + "' is not a starting version; use earliest, latest, a table"
            + " version (e.g. 12) or timestamp:2026-01-01T00:00:00Z");
  }
}
