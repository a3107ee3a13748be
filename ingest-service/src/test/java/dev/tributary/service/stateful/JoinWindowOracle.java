package dev.tributary.service.stateful;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongUnaryOperator;

/**
 * The expected output of an operator after a stream-stream join, composed from {@link JoinOracle}'s
 * joined rows per batch and Spark's rules for the operator, stated declaratively (no state store,
 * no code shared with {@link StatefulQuery}). The operator's watermarks are the join's output
 * watermark {@code D1} of each batch's {@code W_evict} and {@code W_late} (rule D1, written here as
 * a function the test passes in, not taken from {@link DownstreamWatermark}).
 *
 * <ul>
 *   <li><b>Tumbling window count, append mode.</b> A joined row with time {@code t} belongs to the
 *       window {@code [s, s + size)}, {@code s} the multiple of the size at or before {@code t}. It
 *       is late in batch b when its window ends at or before {@code D1(W_late(b))}. A window is in
 *       the output when it ends at or before {@code D1(W_evict)} of the cut's last batch, with the
 *       number of its rows that were not late; never otherwise.
 *   <li><b>Deduplication with the event time in its key.</b> A joined row is late in batch b when
 *       its time is at or before {@code D1(W_late(b))}; every key with a row that is not late is
 *       output once.
 * </ul>
 */
final class JoinWindowOracle {
  private JoinWindowOracle() {}

  /** The batches' watermarks as the operator after the join sees them. */
  record Watermarks(long[] evict, long[] late) {}

  /** The watermarks of {@code batches} through the join's output watermark {@code d1}. */
  static Watermarks downstream(List<JoinOracle.Batch> batches, LongUnaryOperator d1) {
    long[] evict = new long[batches.size()];
    long[] late = new long[batches.size()];
    for (int b = 0; b < batches.size(); b++) {
      evict[b] = d1.applyAsLong(batches.get(b).evict());
      late[b] = d1.applyAsLong(batches.get(b).late());
    }
    return new Watermarks(evict, late);
  }

  /**
   * The window rows {@code [window_start, window_end, group, count]} and the late joined rows.
   *
   * @param joined the join's output rows per batch ({@link JoinOracle.Expected#output})
   * @param time the index of the window's time column in a joined row
   * @param group the index of the group-by column
   */
  static Counted windowCount(
      List<List<List<Object>>> joined, Watermarks wm, int time, int group, long sizeMicros) {
    Map<List<Object>, Long> counts = new LinkedHashMap<>();
    List<List<Object>> late = new ArrayList<>();
    long lastEvict = wm.evict()[wm.evict().length - 1];
    for (int b = 0; b < joined.size(); b++) {
      for (List<Object> row : joined.get(b)) {
        if (row.get(time) == null) {
          continue; // no window (an outer row's missing side)
        }
        long t = Times.micros((Instant) row.get(time));
        long start = Math.floorDiv(t, sizeMicros) * sizeMicros;
        long end = start + sizeMicros;
        if (end <= wm.late()[b]) {
          late.add(row);
          continue;
        }
        counts.merge(
            Arrays.asList(Times.instant(start), Times.instant(end), row.get(group)), 1L, Long::sum);
      }
    }
    List<List<Object>> out = new ArrayList<>();
    counts.forEach(
        (window, n) -> {
          long end = Times.micros((Instant) window.get(1));
          if (end <= lastEvict) {
            List<Object> r = new ArrayList<>(window);
            r.add(n);
            out.add(r);
          }
        });
    return new Counted(out, late);
  }

  /** The window rows and the rows dropped as late. */
  record Counted(List<List<Object>> rows, List<List<Object>> late) {}

  /**
   * The deduplicated keys: each key (the values at {@code keys}) with a row not late, once; {@code
   * time} is the index of the event time (one of the keys).
   */
  static Set<List<Object>> dedupKeys(
      List<List<List<Object>>> joined, Watermarks wm, int time, int... keys) {
    Set<List<Object>> out = new LinkedHashSet<>();
    for (int b = 0; b < joined.size(); b++) {
      for (List<Object> row : joined.get(b)) {
        Objects.requireNonNull(row.get(time), "the watermarked side's time");
        if (Times.micros((Instant) row.get(time)) <= wm.late()[b]) {
          continue;
        }
        List<Object> key = new ArrayList<>();
        for (int k : keys) {
          key.add(row.get(k));
        }
        out.add(key);
      }
    }
    return out;
  }

  /**
   * The 5-minute window count per user on the click time after the seed inner join (clicks kept 30
   * minutes past the purchases' time, purchases none), with the join's output watermark {@code
   * max(0, min(W − 30 min − 1 ms, W − 1 ms, W))} (D1): {@link JoinOracle}'s pairs of {@code
   * batches} through {@link #windowCount}.
   */
  static Counted afterSeedInnerJoin(List<JoinOracle.Batch> batches) {
    long minute = 60_000_000L;
    JoinOracle.Expected joined =
        JoinOracle.compute(
            JoinOracle.Kind.INNER,
            new JoinOracle.SideRules(true, w -> JoinOracle.seedState(w, 30 * minute)),
            new JoinOracle.SideRules(true, w -> JoinOracle.seedState(w, 0)),
            (l, r) -> l <= r && r <= l + 30 * minute,
            false,
            batches);
    Watermarks wm =
        downstream(
            batches,
            w ->
                Math.max(
                    0,
                    Math.min(
                        w,
                        Math.min(
                            JoinOracle.seedState(w, 0).getAsLong(),
                            JoinOracle.seedState(w, 30 * minute).getAsLong()))));
    return windowCount(joined.output(), wm, 1, 0, 5 * minute);
  }
}
