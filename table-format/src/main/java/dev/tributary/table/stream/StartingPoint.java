package dev.tributary.table.stream;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Where a new stream (one without a stored position) starts, the {@code starting-version} key:
 * Delta's {@code startingVersion} / {@code startingTimestamp} options.
 */
public sealed interface StartingPoint {

  /**
   * Delta's default (no starting option): the snapshot at the version current when the stream
   * starts, then every later commit.
   */
  record Earliest() implements StartingPoint {}

  /** Delta's {@code startingVersion: latest}: only the commits after the current version. */
  record Latest() implements StartingPoint {}

  /**
   * Delta's {@code startingVersion: <n>}: the changes of commit {@code version} and every later
   * one, without a snapshot.
   *
   * @param version an existing commit version
   */
  record AtVersion(long version) implements StartingPoint {
    public AtVersion {
      if (version < 0) {
        throw new IllegalArgumentException("A starting version must be >= 0, not " + version);
      }
    }
  }

  /**
   * Delta's {@code startingTimestamp}: the changes from the first commit whose timestamp is at or
   * after {@code timestamp}, without a snapshot.
   *
   * @param timestamp the instant
   */
  record AtTimestamp(Instant timestamp) implements StartingPoint {}

  /**
   * Parses {@code earliest}, {@code latest}, a version number, or {@code timestamp:<ISO instant>}
   * (or {@code timestamp:<yyyy-MM-dd>}, midnight UTC).
   *
   * @throws IllegalArgumentException saying which forms are accepted
   */
  static StartingPoint parse(String text) {
    String t = text == null ? "" : text.trim();
    if (t.equalsIgnoreCase("earliest")) {
      return new Earliest();
    }
    if (t.equalsIgnoreCase("latest")) {
      return new Latest();
    }
    if (t.startsWith("timestamp:")) {
      String when = t.substring("timestamp:".length()).trim();
      try {
        return new AtTimestamp(when.length() == 10
            ? LocalDate.parse(when).atStartOfDay(ZoneOffset.UTC).toInstant() : Instant.parse(when));
      } catch (DateTimeParseException e) {
        throw SourceErrors.badStartingPoint(text);
      }
    }
    try {
      return new AtVersion(Long.parseLong(t));
    } catch (IllegalArgumentException e) {
      throw SourceErrors.badStartingPoint(text);
    }
  }
}
