package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tumbling and sliding window aggregation. Windows are aligned to the epoch: an event at time t
 * belongs to every window [start, start + size) with start a multiple of the slide and start <= t <
 * start + size (one window when tumbling). State layout (operator {@code aggregate}):
 *
 * <pre>
 *   'A' sortable(end) sortable(start) groupKey                   -> measure buffer
 *   'D' sortable(end) sortable(start) groupKey measure# value    -> (empty)   count_distinct values
 * </pre>
 *
 * Keys sort by window end, so emitting and evicting the windows the watermark passed reads only
 * those. Buffers touched by a batch are kept on the heap until the batch ends (one batch's worth of
 * groups), then written back; that set is also what update mode emits.
 */
final class WindowAggregator implements Aggregator {
  private static final byte AGG = 'A';
  private static final byte DISTINCT = 'D';
  private static final byte[] EMPTY = new byte[0];

  private final StateStore store;
  private final long sizeMicros;
  private final long slideMicros;
  private final int[] groupColumns;
  private final Measures measures;
  private final long lateMicros;
  private final Map<WindowGroup, Touched> touched = new HashMap<>();
  // Per row, the group key is encoded into this writer's buffer and looked up through the probe:
  // a row of an already touched window allocates neither (a tenth of the seed query's engine
  // thread went to those allocations and the byte-buffer hashing).
  private final Codec.Writer groupKey = new Codec.Writer();
  private final WindowGroup probe = new WindowGroup();
  private long evicted;

  /**
   * @param lateMicros the late watermark: a (row, window) pair whose window ends at or before it is
   *     dropped as late (Spark: {@code window.end <= watermark}); {@link Long#MIN_VALUE} for none
   */
  WindowAggregator(
      StateStore store,
      long sizeMicros,
      long slideMicros,
      int[] groupColumns,
      Measures measures,
      long lateMicros) {
    this.store = store;
    this.sizeMicros = sizeMicros;
    this.slideMicros = slideMicros;
    this.groupColumns = groupColumns.clone();
    this.measures = measures;
    this.lateMicros = lateMicros;
  }

  /**
   * A window (by its start) and a group's encoded values, {@code group[0, length)}: the heap key of
   * a touched buffer. Keys in the map are never changed; the one {@link #probe} is re-aimed per
   * lookup.
   */
  private static final class WindowGroup {
    private long start;
    private byte[] group;
    private int length;
    private int hash;

    WindowGroup() {}

    WindowGroup(long start, byte[] group) {
      aim(start, group, group.length);
    }

    WindowGroup aim(long start, byte[] group, int length) {
      this.start = start;
      this.group = group;
      this.length = length;
      int h = Long.hashCode(start);
      for (int i = 0; i < length; i++) {
        h = 31 * h + group[i];
      }
      this.hash = h;
      return this;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof WindowGroup w
          && w.start == start
          && w.hash == hash
          && Arrays.equals(w.group, 0, w.length, group, 0, length);
    }
  }

  /** A buffer touched in this batch, with its state key (window end, start, group values). */
  private record Touched(byte[] windowGroup, Object[] buffer) {}

  @Override
  public void add(Object[] row, long timeMicros, Emitter out) throws IOException {
    long lastStart = timeMicros - Math.floorMod(timeMicros, slideMicros);
    if (lastStart + sizeMicros <= lateMicros) {
      // Even the row's last window is closed (windows are judged by their end, per window).
      for (long start = lastStart; start > timeMicros - sizeMicros; start -= slideMicros) {
        out.late(row, Emitter.Late.window(lateMicros, start, start + sizeMicros));
      }
      return;
    }
    groupKey.reset();
    for (int c : groupColumns) {
      groupKey.value(row[c]); // as Codec.key
    }
    byte[] group = null; // copied out of the writer only for a window touched the first time
    for (long start = lastStart; start > timeMicros - sizeMicros; start -= slideMicros) {
      if (start + sizeMicros <= lateMicros) {
        out.late(row, Emitter.Late.window(lateMicros, start, start + sizeMicros));
        continue;
      }
      Touched entry = touched.get(probe.aim(start, groupKey.buffer(), groupKey.size()));
      if (entry == null) {
        if (group == null) {
          group = groupKey.toBytes();
        }
        byte[] windowGroup =
            new Codec.Writer()
                .sortableLong(start + sizeMicros)
                .sortableLong(start)
                .bytes(group)
                .toBytes();
        byte[] stored = store.get(prefixed(AGG, windowGroup));
        entry =
            new Touched(
                windowGroup, stored == null ? measures.newBuffer() : measures.decode(stored, 0));
        touched.put(new WindowGroup(start, group), entry);
      }
      byte[] windowGroup = entry.windowGroup();
      Object[] buffer = entry.buffer();
      measures.add(buffer, row);
      for (int m = 0; m < measures.size(); m++) {
        Object v = measures.isDistinct(m) ? measures.distinctInput(m, row) : null;
        if (v != null) {
          byte[] dkey =
              new Codec.Writer().raw(DISTINCT).bytes(windowGroup).raw((byte) m).value(v).toBytes();
          if (store.putIfAbsent(dkey, EMPTY)) {
            measures.countDistinct(buffer, m);
          }
        }
      }
    }
  }

  @Override
  public void finish(Mode mode, long evictBeforeMicros, Emitter out) throws IOException {
    // In state key order: the changelog (and update mode's output) must not depend on hashing.
    List<Touched> changed = new ArrayList<>(touched.values());
    changed.sort((a, b) -> Arrays.compareUnsigned(a.windowGroup(), b.windowGroup()));
    for (Touched t : changed) {
      store.put(prefixed(AGG, t.windowGroup()), measures.encode(t.buffer()));
      if (mode == Mode.UPDATE) {
        out.output(row(t.windowGroup(), 0, t.buffer()));
      }
    }
    touched.clear();
    if (mode == Mode.COMPLETE) {
      try (StateIterator it = store.scan(new byte[] {AGG})) {
        while (it.hasNext()) {
          StateEntry e = it.next();
          out.output(row(e.key(), 1, measures.decode(e.value(), 0)));
        }
      }
      return;
    }
    if (evictBeforeMicros == Long.MIN_VALUE) {
      return;
    }
    // Windows ending at or before the watermark are final: emitted (append mode), then both
    // their buffers and their distinct values are dropped with one range delete each.
    byte[] evictEnd = new Codec.Writer().raw(AGG).sortableLong(evictBeforeMicros + 1).toBytes();
    if (mode == Mode.APPEND) {
      try (StateIterator it = store.scan(new byte[] {AGG})) {
        while (it.hasNext()) {
          StateEntry e = it.next();
          if (Arrays.compareUnsigned(e.key(), evictEnd) >= 0) {
            break;
          }
          out.output(row(e.key(), 1, measures.decode(e.value(), 0)));
        }
      }
    }
    evicted += store.deleteRange(new byte[] {AGG}, evictEnd);
    evictEnd[0] = DISTINCT;
    store.deleteRange(new byte[] {DISTINCT}, evictEnd);
  }

  /** An output row from a key laid out as end, start, group values (from {@code offset}). */
  private Object[] row(byte[] key, int offset, Object[] buffer) {
    ByteBuffer b = ByteBuffer.wrap(key, offset, 16);
    long end = Codec.sortable(b.getLong());
    long start = Codec.sortable(b.getLong());
    Object[] group = Codec.values(key, offset + 16, groupColumns.length);
    Object[] results = measures.results(buffer);
    Object[] out = new Object[2 + group.length + results.length];
    out[0] = Times.instant(start);
    out[1] = Times.instant(end);
    System.arraycopy(group, 0, out, 2, group.length);
    System.arraycopy(results, 0, out, 2 + group.length, results.length);
    return out;
  }

  private static byte[] prefixed(byte prefix, byte[] rest) {
    byte[] out = new byte[rest.length + 1];
    out[0] = prefix;
    System.arraycopy(rest, 0, out, 1, rest.length);
    return out;
  }

  @Override
  public long evicted() {
    return evicted;
  }

  @Override
  public void resetCounters() {
    evicted = 0;
  }

  @Override
  public void discard() {
    touched.clear();
  }
}
