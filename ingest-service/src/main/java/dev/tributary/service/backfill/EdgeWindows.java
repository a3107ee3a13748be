package dev.tributary.service.backfill;

import dev.tributary.config.WindowSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The windows of a windowed aggregation that overlap a backfill's range without lying entirely
 * inside it: the backfill leaves them alone (it writes no row for them), because each also holds
 * events from outside the range. Windows are aligned to the epoch: a window starts at every
 * multiple of its slide (its size, for a tumbling window) and lasts its size.
 */
public final class EdgeWindows {
  private EdgeWindows() {}

  /** An edge window and why it is left alone. */
  public record EdgeWindow(Instant start, Instant end, String why) {
    @Override
    public String toString() {
      return "[" + start + ", " + end + "): " + why;
    }
  }

  /**
   * The edge windows of {@code window} at both ends of {@code range}, in time order; none when the
   * range's ends fall on window boundaries.
   */
  public static List<EdgeWindow> of(WindowSpec window, BackfillRange range) {
    Duration size;
    Duration slide;
    if (window instanceof WindowSpec.Tumbling t) {
      size = t.size();
      slide = t.size();
    } else if (window instanceof WindowSpec.Sliding s) {
      size = s.size();
      slide = s.slide();
    } else {
      return List.of(); // session windows are refused before a backfill starts (BackfillPlan)
    }
    List<EdgeWindow> out = new ArrayList<>();
    straddling(range.from(), size, slide, "starts before --from " + range.from(), out);
    straddling(range.to(), size, slide, "ends after --to " + range.to(), out);
    return out;
  }

  /** The windows with start < t < end, earliest first. */
  private static void straddling(
      Instant t, Duration size, Duration slide, String why, List<EdgeWindow> out) {
    long micros = BackfillRange.micros(t);
    long slideMicros = slide.toNanos() / 1000;
    long sizeMicros = size.toNanos() / 1000;
    // the latest window start at or before t, then back while the window still reaches past t
    long lastStart = Math.floorDiv(micros, slideMicros) * slideMicros;
    List<EdgeWindow> here = new ArrayList<>();
    for (long start = lastStart; start + sizeMicros > micros; start -= slideMicros) {
      if (start < micros) {
        here.add(new EdgeWindow(instant(start), instant(start + sizeMicros), why));
      }
    }
    Collections.reverse(here);
    out.addAll(here);
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
  }
}
