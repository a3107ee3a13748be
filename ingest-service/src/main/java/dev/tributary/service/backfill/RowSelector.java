package dev.tributary.service.backfill;

import dev.tributary.config.AggregateSpec;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Which output rows of a backfill belong to its range: a row of events by its event-time column in
 * [from, to); a row of a windowed aggregation by its window lying entirely inside the range (an
 * edge window holds events from outside the range, which the backfill did not all read). A row
 * whose time is null lies outside every range.
 */
public sealed interface RowSelector {

  /** Whether the backfill writes {@code row} (aligned with the output schema). */
  boolean keeps(Object[] row);

  /** The rule, for the summary ("event_ts in [..)", "windows inside [..)"). */
  String describe();

  /** Rows of events, by the event-time column at {@code index}. */
  record ByEventTime(String column, int index, BackfillRange range) implements RowSelector {
    @Override
    public boolean keeps(Object[] row) {
      Instant t = instant(row[index]);
      return t != null && range.contains(t);
    }

    @Override
    public String describe() {
      return column + " in " + range;
    }
  }

  /** Windowed aggregates, by their window_start and window_end columns. */
  record ByWindow(int startIndex, int endIndex, BackfillRange range) implements RowSelector {
    @Override
    public boolean keeps(Object[] row) {
      Instant start = instant(row[startIndex]);
      Instant end = instant(row[endIndex]);
      return start != null && end != null && range.containsWindow(start, end);
    }

    @Override
    public String describe() {
      return "windows inside " + range;
    }
  }

  /** The window columns of a windowed aggregation's output schema. */
  static RowSelector windows(StructType output, BackfillRange range) {
    return new ByWindow(
        output.indexOf(AggregateSpec.WINDOW_START),
        output.indexOf(AggregateSpec.WINDOW_END),
        range);
  }

  /**
   * The event-time column {@code column} of {@code output}.
   *
   * @throws BackfillRefusal if the output has no such column
   */
  static RowSelector eventTime(
      String pipeline, StructType output, String column, BackfillRange range) {
    int index = output.indexOf(column);
    if (index < 0) {
      throw new BackfillRefusal(BackfillErrors.eventTimeNotInOutput(pipeline, column));
    }
    return new ByEventTime(column, index, range);
  }

  private static Instant instant(Object value) {
    if (value instanceof Instant i) {
      return i;
    }
    if (value instanceof LocalDateTime local) {
      return local.toInstant(ZoneOffset.UTC); // timestamp_ntz: read as UTC, like the range
    }
    return null;
  }
}
