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
 * A running aggregation: {@code aggregate} without a window, one result row per group-by key,
 * updated by every batch that brings rows of the key (Spark's {@code groupBy(keys).agg(...)} on a
 * stream). Nothing is ever final, so nothing is emitted for append mode (refused at validation) and
 * nothing is evicted: the keys carry no event time, so no watermark can pass them. State is one
 * entry per key, bounded only by the number of keys. State layout (operator {@code aggregate}):
 *
 * <pre>
 *   'R' groupKey                     -> measure buffer
 *   'C' groupKey measure# value      -> (empty)   count_distinct values
 * </pre>
 *
 * The prefixes differ from the window ('A', 'D') and session ('S', 'E') layouts, so a checkpoint of
 * one kind is never read as another (the checkpoint identity already refuses a changed window).
 *
 * <p>A global aggregation (no group-by) has one key, the empty one; like Spark's global aggregate,
 * which yields one row per batch even over no rows, it is touched by every batch: the first batch
 * writes it (count 0, other measures null, when no row arrived) and update mode writes it in every
 * batch.
 */
final class RunningAggregator implements Aggregator {
  private static final byte GROUP = 'R';
  private static final byte DISTINCT = 'C';
  private static final byte[] EMPTY = new byte[0];

  private final StateStore store;
  private final int[] groupColumns;
  private final Measures measures;

  /**
   * Buffers touched by this batch, by encoded group key: written back (and emitted in update mode)
   * at the end.
   */
  private final Map<ByteBuffer, Object[]> touched = new HashMap<>();

  RunningAggregator(StateStore store, int[] groupColumns, Measures measures) {
    this.store = store;
    this.groupColumns = groupColumns.clone();
    this.measures = measures;
  }

  /**
   * Adds a row; {@code timeMicros} is unused (a running aggregation has no window) and nothing is
   * ever late: the group keys carry no event time for a watermark to pass.
   */
  @Override
  public void add(Object[] row, long timeMicros, Emitter out) {
    byte[] group = Codec.key(row, groupColumns);
    Object[] buffer = buffer(group);
    measures.add(buffer, row);
    for (int m = 0; m < measures.size(); m++) {
      Object v = measures.isDistinct(m) ? measures.distinctInput(m, row) : null;
      if (v != null) {
        byte[] key = new Codec.Writer().raw(DISTINCT).bytes(group).raw((byte) m).value(v).toBytes();
        if (store.putIfAbsent(key, EMPTY)) {
          measures.countDistinct(buffer, m);
        }
      }
    }
  }

  /**
   * The group's buffer for this batch: from the heap if touched already, else from state, else new.
   */
  private Object[] buffer(byte[] group) {
    ByteBuffer k = ByteBuffer.wrap(group);
    Object[] buffer = touched.get(k);
    if (buffer == null) {
      byte[] stored = store.get(stateKey(group));
      buffer = stored == null ? measures.newBuffer() : measures.decode(stored, 0);
      touched.put(k, buffer);
    }
    return buffer;
  }

  /**
   * Writes the touched groups back; UPDATE emits them, COMPLETE emits every group; APPEND emits
   * nothing (no running row is ever final). {@code evictBeforeMicros} is ignored: nothing is
   * evicted.
   */
  @Override
  public void finish(Mode mode, long evictBeforeMicros, Emitter out) throws IOException {
    if (groupColumns.length == 0) {
      buffer(EMPTY);
    }
    // In state key order: the changelog (and update mode's output) must not depend on hashing.
    List<Map.Entry<ByteBuffer, Object[]>> changed = new ArrayList<>(touched.entrySet());
    changed.sort((a, b) -> Arrays.compareUnsigned(a.getKey().array(), b.getKey().array()));
    for (Map.Entry<ByteBuffer, Object[]> e : changed) {
      byte[] group = e.getKey().array();
      store.put(stateKey(group), measures.encode(e.getValue()));
      if (mode == Mode.UPDATE) {
        out.output(row(group, 0, e.getValue()));
      }
    }
    touched.clear();
    if (mode == Mode.COMPLETE) {
      try (StateIterator it = store.scan(new byte[] {GROUP})) {
        while (it.hasNext()) {
          StateEntry e = it.next();
          out.output(row(e.key(), 1, measures.decode(e.value(), 0)));
        }
      }
    }
  }

  /**
   * An output row: the group values (encoded in {@code key} from {@code offset}), then the
   * measures.
   */
  private Object[] row(byte[] key, int offset, Object[] buffer) {
    Object[] group = Codec.values(key, offset, groupColumns.length);
    Object[] results = measures.results(buffer);
    Object[] out = new Object[group.length + results.length];
    System.arraycopy(group, 0, out, 0, group.length);
    System.arraycopy(results, 0, out, group.length, results.length);
    return out;
  }

  private static byte[] stateKey(byte[] group) {
    return new Codec.Writer().raw(GROUP).bytes(group).toBytes();
  }

  /** Always 0: a running aggregation never evicts. */
  @Override
  public long evicted() {
    return 0;
  }

  @Override
  public void resetCounters() {}

  @Override
  public void discard() {
    touched.clear();
  }
}
