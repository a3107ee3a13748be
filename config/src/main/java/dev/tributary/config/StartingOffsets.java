package dev.tributary.config;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * Where a pipeline that has no checkpoint yet starts reading: {@code earliest}, {@code latest},
 * {@code timestamp:2026-01-01T00:00:00Z} (the first offset whose Kafka timestamp is at or after it)
 * or {@code table} (right after the offsets the sink table's last commit of this pipeline
 * recorded). Ignored once a checkpoint exists.
 */
public sealed interface StartingOffsets {

  /** The oldest offset still retained in each partition (the default). */
  record Earliest() implements StartingOffsets {
    @Override
    public String toString() {
      return "earliest";
    }
  }

  /** The end of each partition at the first batch. */
  record Latest() implements StartingOffsets {
    @Override
    public String toString() {
      return "latest";
    }
  }

  /**
   * Right after the offsets recorded by the sink table's latest commit of this pipeline: a new
   * checkpoint continues exactly where the table's data ends, so the table, not a lost or replaced
   * checkpoint, decides. Partitions the table has no offset for start at the earliest offset. State
   * of stateful operators starts empty.
   */
  record FromTable() implements StartingOffsets {
    @Override
    public String toString() {
      return "table";
    }
  }

  /**
   * The first offset of each partition whose timestamp is at or after {@code instant}.
   *
   * @param instant the point in time
   */
  record AtTimestamp(Instant instant) implements StartingOffsets {
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
   * Parses {@code earliest}, {@code latest}, {@code table} or {@code timestamp:<ISO-8601 instant>}.
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  static StartingOffsets parse(String text) {
    String value = text.strip();
    if (value.equals("earliest")) {
      return new Earliest();
    }
    if (value.equals("latest")) {
      return new Latest();
    }
    if (value.equals("table")) {
      return new FromTable();
    }
    if (value.startsWith("timestamp:")) {
      String instant = value.substring("timestamp:".length()).strip();
      try {
        return new AtTimestamp(Instant.parse(instant));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "cannot parse '"
                + instant
                + "' as an instant; write it in UTC like timestamp:2026-01-01T00:00:00Z",
            e);
      }
    }
    throw new IllegalArgumentException(
        "cannot parse '"
            + text
            + "' as starting offsets; write earliest, latest, table or timestamp:2026-01-01T00:00:00Z");
  }
}
