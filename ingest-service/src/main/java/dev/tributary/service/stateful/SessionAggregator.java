package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Session windows: per group, an event at t opens [t, t + gap); sessions that overlap or touch (a
 * session ending exactly where another starts: Spark's MergingSessionsIterator merges when {@code
 * start <= end}) merge into one spanning both. A row whose own session [t, t + gap) the late
 * watermark closed ({@code t + gap <= watermark}) is dropped as late. State layout (operator {@code
 * aggregate}):
 *
 * <pre>
 *   'S' groupKey sortable(start)                    -> sortable(end) measure buffer
 *   'E' groupKey sortable(start) measure# value     -> (empty)   count_distinct values
 * </pre>
 *
 * Sessions of one group are found with a prefix scan. Emission and eviction scan every session
 * (sessions are not ordered by end); documented in docs/STATEFUL.md.
 */
final class SessionAggregator implements Aggregator {
  private static final byte SESSION = 'S';
  private static final byte DISTINCT = 'E';
  private static final byte[] EMPTY = new byte[0];

  private final StateStore store;
  private final long gapMicros;
  private final int[] groupColumns;
  private final Measures measures;
  private final long lateMicros;
  private long evicted;

  /**
   * @param lateMicros the late watermark, {@link Long#MIN_VALUE} for none
   */
  SessionAggregator(
      StateStore store, long gapMicros, int[] groupColumns, Measures measures, long lateMicros) {
    this.store = store;
    this.gapMicros = gapMicros;
    this.groupColumns = groupColumns.clone();
    this.measures = measures;
    this.lateMicros = lateMicros;
  }

  @Override
  public void add(Object[] row, long timeMicros, Emitter out) throws IOException {
    if (timeMicros + gapMicros <= lateMicros) {
      out.late(row, Emitter.Late.window(lateMicros, timeMicros, timeMicros + gapMicros));
      return;
    }
    byte[] group = Codec.key(row, groupColumns);
    byte[] groupPrefix = new Codec.Writer().raw(SESSION).bytes(group).toBytes();
    long start = timeMicros;
    long end = timeMicros + gapMicros;
    List<Long> mergedStarts = new ArrayList<>();
    Object[] buffer = measures.newBuffer();
    try (StateIterator it = store.scan(groupPrefix)) {
      while (it.hasNext()) {
        StateEntry e = it.next();
        long s = Codec.sortable(ByteBuffer.wrap(e.key(), groupPrefix.length, 8).getLong());
        ByteBuffer v = ByteBuffer.wrap(e.value());
        long en = Codec.sortable(v.getLong());
        if (s <= timeMicros + gapMicros && timeMicros <= en) {
          mergedStarts.add(s);
          measures.merge(buffer, measures.decode(e.value(), 8));
          start = Math.min(start, s);
          end = Math.max(end, en);
        }
      }
    }
    for (long s : mergedStarts) {
      store.delete(sessionKey(group, s));
    }
    measures.add(buffer, row);
    moveDistinct(group, mergedStarts, start, buffer, row);
    store.put(
        sessionKey(group, start),
        new Codec.Writer().sortableLong(end).bytes(measures.encode(buffer)).toBytes());
  }

  /**
   * Re-keys the distinct values of merged sessions under the new start, recounting, then adds the
   * row's.
   */
  private void moveDistinct(
      byte[] group, List<Long> mergedStarts, long start, Object[] buffer, Object[] row) {
    byte[] newPrefix = distinctPrefix(group, start);
    for (long s : mergedStarts) {
      byte[] oldPrefix = distinctPrefix(group, s);
      try (StateIterator it = store.scan(oldPrefix)) {
        while (it.hasNext()) {
          StateEntry e = it.next();
          byte[] rest = Arrays.copyOfRange(e.key(), oldPrefix.length, e.key().length);
          store.delete(e.key());
          putDistinct(newPrefix, rest, buffer);
        }
      }
    }
    for (int m = 0; m < measures.size(); m++) {
      Object v = measures.isDistinct(m) ? measures.distinctInput(m, row) : null;
      if (v != null) {
        putDistinct(newPrefix, new Codec.Writer().raw((byte) m).value(v).toBytes(), buffer);
      }
    }
  }

  private void putDistinct(byte[] prefix, byte[] measureAndValue, Object[] buffer) {
    byte[] key = new Codec.Writer().bytes(prefix).bytes(measureAndValue).toBytes();
    if (store.putIfAbsent(key, EMPTY)) {
      measures.countDistinct(buffer, measureAndValue[0]);
    }
  }

  private static byte[] sessionKey(byte[] group, long start) {
    return new Codec.Writer().raw(SESSION).bytes(group).sortableLong(start).toBytes();
  }

  private static byte[] distinctPrefix(byte[] group, long start) {
    return new Codec.Writer().raw(DISTINCT).bytes(group).sortableLong(start).toBytes();
  }

  @Override
  public void finish(Mode mode, long evictBeforeMicros, Emitter out) throws IOException {
    if (mode == Mode.UPDATE) {
      throw new IllegalStateException("session windows do not support update mode");
    }
    try (StateIterator it = store.scan(new byte[] {SESSION})) {
      while (it.hasNext()) {
        StateEntry e = it.next();
        long end = Codec.sortable(ByteBuffer.wrap(e.value(), 0, 8).getLong());
        boolean emit = mode == Mode.COMPLETE || end <= evictBeforeMicros;
        if (!emit) {
          continue;
        }
        int groupEnd = e.key().length - 8;
        long start = Codec.sortable(ByteBuffer.wrap(e.key(), groupEnd, 8).getLong());
        Object[] group = Codec.values(e.key(), 1, groupColumns.length);
        Object[] results = measures.results(measures.decode(e.value(), 8));
        Object[] row = new Object[2 + group.length + results.length];
        row[0] = Times.instant(start);
        row[1] = Times.instant(end);
        System.arraycopy(group, 0, row, 2, group.length);
        System.arraycopy(results, 0, row, 2 + group.length, results.length);
        out.output(row);
        if (mode == Mode.APPEND) {
          store.delete(e.key());
          deletePrefix(distinctPrefix(Arrays.copyOfRange(e.key(), 1, groupEnd), start));
          evicted++;
        }
      }
    }
  }

  private void deletePrefix(byte[] prefix) {
    try (StateIterator it = store.scan(prefix)) {
      while (it.hasNext()) {
        store.delete(it.next().key());
      }
    }
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
  public void discard() {}
}
