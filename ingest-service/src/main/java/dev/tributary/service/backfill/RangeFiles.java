package dev.tributary.service.backfill;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.WindowSpec;
import dev.tributary.table.ReplaceRangeTransaction;
import dev.tributary.table.ReplaceRangeTransaction.Placement;
import dev.tributary.table.Snapshot;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.types.StructField;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * The range a {@code --replace} swaps, as the live table's files and rows see it ({@link
 * ReplaceRangeTransaction.Range}): rows by {@link RowSelector}'s rule, files by the bounds of the
 * rule's columns — a partition value, or the file's statistics (min, max, null count).
 *
 * <p>Statistics of timestamps may be truncated to milliseconds (Spark writes them so; Tributary
 * writes microseconds): a maximum that is a whole millisecond may stand for a value up to 999 µs
 * later, so it is read as that later value when a file is judged entirely inside or before the
 * range. Window bounds are multiples of the window's slide and size; when those are whole
 * milliseconds a truncated statistic is exact and no slack is needed (else the edge file is
 * rewritten rather than removed: slower, never wrong). A file without statistics for the column, or
 * that may hold nulls where the rule needs a value, straddles: it is rewritten, row by row.
 */
final class RangeFiles {
  private static final long MILLI_MICROS = 1000;

  private RangeFiles() {}

  /** The range of {@code plan} in the live table as of {@code live}. */
  static ReplaceRangeTransaction.Range of(BackfillPlan plan, Snapshot live) {
    RowSelector selector = plan.selector(live.schema());
    BackfillRange range = plan.range();
    ReplaceRangeTransaction.Classifier files;
    String predicate;
    if (selector instanceof RowSelector.ByEventTime byTime) {
      Column column = Column.of(live, byTime.column(), true);
      files = file -> placeEvents(column.bounds(file), range);
      predicate =
          byTime.column()
              + " >= '"
              + range.from()
              + "' AND "
              + byTime.column()
              + " < '"
              + range.to()
              + "'";
    } else {
      boolean slack =
          plan.live()
              .aggregate()
              .flatMap(AggregateSpec::window)
              .map(w -> !wholeMillis(w))
              .orElse(true);
      Column start = Column.of(live, AggregateSpec.WINDOW_START, slack);
      Column end = Column.of(live, AggregateSpec.WINDOW_END, slack);
      files = file -> placeWindows(start.bounds(file), end.bounds(file), range);
      predicate =
          AggregateSpec.WINDOW_START
              + " >= '"
              + range.from()
              + "' AND "
              + AggregateSpec.WINDOW_END
              + " <= '"
              + range.to()
              + "'";
    }
    return new ReplaceRangeTransaction.Range(files, selector::keeps, predicate);
  }

  /** Events: inside when every row's time is in [from, to); outside when none is. */
  static Placement placeEvents(Optional<Bounds> bounds, BackfillRange range) {
    if (bounds.isEmpty()) {
      return Placement.STRADDLES;
    }
    Bounds b = bounds.get();
    if (b.allNull()) {
      return Placement.OUTSIDE; // a row without event time lies outside every range
    }
    long from = BackfillRange.micros(range.from());
    long to = BackfillRange.micros(range.to());
    if (b.maxUpper() < from || b.min() >= to) {
      return Placement.OUTSIDE;
    }
    if (!b.mayBeNull() && b.min() >= from && b.maxUpper() < to) {
      return Placement.INSIDE;
    }
    return Placement.STRADDLES;
  }

  /** Windows: inside when every row's window lies in the range; outside when none does. */
  static Placement placeWindows(
      Optional<Bounds> starts, Optional<Bounds> ends, BackfillRange range) {
    if (starts.isEmpty() || ends.isEmpty()) {
      return Placement.STRADDLES;
    }
    Bounds s = starts.get();
    Bounds e = ends.get();
    if (s.allNull() || e.allNull()) {
      return Placement.OUTSIDE;
    }
    long from = BackfillRange.micros(range.from());
    long to = BackfillRange.micros(range.to());
    if (s.maxUpper() < from || e.min() > to) {
      return Placement.OUTSIDE; // every window starts before the range, or ends after it
    }
    if (!s.mayBeNull() && !e.mayBeNull() && s.min() >= from && e.maxUpper() <= to) {
      return Placement.INSIDE;
    }
    return Placement.STRADDLES;
  }

  private static boolean wholeMillis(WindowSpec window) {
    if (window instanceof WindowSpec.Tumbling t) {
      return whole(t.size());
    }
    if (window instanceof WindowSpec.Sliding s) {
      return whole(s.size()) && whole(s.slide());
    }
    return false;
  }

  private static boolean whole(Duration d) {
    return d.toNanos() % 1_000_000L == 0;
  }

  /**
   * A column's values in one file, in microseconds since the epoch.
   *
   * @param min the least non-null value (meaningless when {@code allNull})
   * @param maxUpper the greatest non-null value, or the latest it may be if truncated
   * @param mayBeNull whether some row may hold null
   * @param allNull whether every row holds null
   */
  record Bounds(long min, long maxUpper, boolean mayBeNull, boolean allNull) {}

  /** A column of the live table, and where a file says its bounds. */
  private record Column(
      String name, String physicalName, boolean partition, boolean truncatable, StructField field) {
    static Column of(Snapshot live, String name, boolean truncatable) {
      StructField field =
          live.schema()
              .field(name)
              .orElseThrow(() -> new IllegalStateException("no column " + name + " in the table"));
      return new Column(
          name,
          live.columnMapping().physicalName(field),
          live.partitionColumns().contains(name),
          truncatable,
          field);
    }

    Optional<Bounds> bounds(DataFile file) {
      if (partition) {
        Long value =
            micros(
                DataFiles.parsePartitionValue(
                    file.partitionValues().get(physicalName), field.type()));
        return Optional.of(
            value == null ? new Bounds(0, 0, true, true) : new Bounds(value, value, false, false));
      }
      long rows = file.stats().numRecords();
      Long nulls = file.stats().nullCount().get(name) instanceof Number n ? n.longValue() : null;
      Long min = micros(file.stats().minValues().get(name));
      Long max = micros(file.stats().maxValues().get(name));
      if (rows >= 0 && nulls != null && nulls == rows) {
        return Optional.of(new Bounds(0, 0, true, true));
      }
      if (rows < 0 || min == null || max == null) {
        return Optional.empty(); // nothing known: the file is read row by row
      }
      long upper = truncatable && Math.floorMod(max, MILLI_MICROS) == 0 ? max + 999 : max;
      return Optional.of(new Bounds(min, upper, nulls == null || nulls > 0, false));
    }
  }

  private static Long micros(Object value) {
    if (value instanceof Instant i) {
      return BackfillRange.micros(i);
    }
    if (value instanceof LocalDateTime local) {
      return BackfillRange.micros(local.toInstant(ZoneOffset.UTC));
    }
    return null;
  }
}
