package dev.tributary.service.backfill;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * A half-open event-time range [from, to) of a backfill.
 *
 * @param from the first instant inside the range
 * @param to the first instant after it
 */
public record BackfillRange(Instant from, Instant to) {

  /** Checks the range is not empty. */
  public BackfillRange {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (!to.isAfter(from)) {
      throw new BackfillRefusal(BackfillErrors.emptyRange(from, to));
    }
  }

  /**
   * Parses {@code --from} and {@code --to} (ISO-8601 instants in UTC, like {@code
   * 2026-11-01T00:00:00Z}).
   *
   * @throws BackfillRefusal naming the option that does not parse, or an empty range
   */
  public static BackfillRange parse(String from, String to) {
    return new BackfillRange(instant("--from", from), instant("--to", to));
  }

  private static Instant instant(String option, String text) {
    try {
      return Instant.parse(text.strip());
    } catch (DateTimeParseException e) {
      throw new BackfillRefusal(BackfillErrors.badInstant(option, text));
    }
  }

  /** Whether {@code t} lies in [from, to). */
  public boolean contains(Instant t) {
    return !t.isBefore(from) && t.isBefore(to);
  }

  /** Whether the window [start, end) lies entirely inside the range. */
  public boolean containsWindow(Instant start, Instant end) {
    return !start.isBefore(from) && !end.isAfter(to);
  }

  /**
   * Where reading starts by Kafka timestamp: {@code delay} before the range, so that events that
   * reached the broker late (up to the watermark delay after their event time) are not missed.
   */
  public Instant readFrom(Duration delay) {
    return from.minus(delay);
  }

  /**
   * Where reading ends by Kafka timestamp: {@code delay} after the range, so that events of the
   * range that arrived late are read, and the watermark reaches the range's end.
   */
  public Instant readUntil(Duration delay) {
    return to.plus(delay);
  }

  /** {@code t} in microseconds since the epoch, as the engine keeps watermarks. */
  public static long micros(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
  }

  @Override
  public String toString() {
    return "[" + from + ", " + to + ")";
  }
}
