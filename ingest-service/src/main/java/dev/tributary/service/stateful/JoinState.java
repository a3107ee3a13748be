package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The rows both sides of a stream-stream join keep, in one {@link StateStore} (operator {@code
 * join-0}: one commit covers both sides, so no crash leaves them at different versions). Layout,
 * with {@code s} the side ({@code 'L'} or {@code 'R'}), {@code key} the join key values ({@link
 * Codec}, self-delimiting, so a prefix scan by key is exact), {@code t} the event time ({@link
 * Codec#sortable}, big-endian: bytes sort as times, negative ones first), {@code b} the batch id (8
 * bytes) and {@code o} the row's ordinal in the side's input of that batch (4 bytes):
 *
 * <pre>
 *   s 'V' key t b o   -> matched (1 byte: 0 or 1), the side's row (Codec values)
 *   s 'T' t key b o   -> size of the 'V' entry's value (4 bytes)   eviction index, in time order
 *   s 'N'             -> rows (8 bytes), bytes (8 bytes)            the side's counters
 * </pre>
 *
 * A lookup is one prefix scan {@code s 'V' key}, in time order. Eviction walks {@code s 'T'} from
 * its start up to the state watermark, deletes each row's {@code 'V'} entry (reading it only when
 * the caller wants the row: an outer side), then drops the walked index with one range delete; rows
 * not due are never read. The index keeps the size of the row's value so that the byte counter, and
 * the store's own metrics ({@link StateStore#deleteKnown}, {@link StateStore#deleteKnownRange} with
 * the walk's count and bytes), stay exact without reading rows nobody wants. The suffix {@code b o}
 * keeps equal rows apart and is the same when a batch is replayed (the inputs are read in a fixed
 * order), so a replay writes the same changelog. Counters count the {@code 'V'} and {@code 'T'}
 * entries' keys and values; they are written once per batch ({@link #writeCounters}) and so are
 * restored with the state.
 */
final class JoinState {
  private static final byte ROWS = 'V';
  private static final byte INDEX = 'T';
  private static final byte COUNTERS = 'N';
  private static final int SUFFIX = 12; // batch id + ordinal
  private static final int HEAD = 2; // side + kind

  /** The two sides, by the byte that leads their keys. */
  enum Side {
    LEFT('L'),
    RIGHT('R');

    private final byte tag;

    Side(char tag) {
      this.tag = (byte) tag;
    }

    Side other() {
      return this == LEFT ? RIGHT : LEFT;
    }
  }

  private final StateStore store;
  private final int[] widths = new int[2];
  private final long[] rows = new long[2];
  private final long[] bytes = new long[2];

  /**
   * Reads the counters of the state {@code store} holds (at whatever version it was opened).
   *
   * @param leftWidth the number of columns of a left row, to decode stored rows
   * @param rightWidth the number of columns of a right row
   */
  JoinState(StateStore store, int leftWidth, int rightWidth) {
    this.store = store;
    this.widths[Side.LEFT.ordinal()] = leftWidth;
    this.widths[Side.RIGHT.ordinal()] = rightWidth;
    for (Side side : Side.values()) {
      byte[] n = store.get(new byte[] {side.tag, COUNTERS});
      if (n != null) {
        ByteBuffer b = ByteBuffer.wrap(n);
        rows[side.ordinal()] = b.getLong();
        bytes[side.ordinal()] = b.getLong();
      }
    }
  }

  /**
   * Stores a row. {@code (batchId, ordinal)} must be new for the side (the caller numbers each
   * side's input rows of a batch): the entries are inserted without a lookup.
   *
   * @param key the row's join key values ({@link Codec#key})
   */
  void append(
      Side side,
      byte[] key,
      long timeMicros,
      long batchId,
      int ordinal,
      boolean matched,
      Object[] row) {
    Codec.Writer value = new Codec.Writer().raw((byte) (matched ? 1 : 0));
    for (Object v : row) {
      value.value(v);
    }
    byte[] valueBytes = value.toBytes();
    byte[] rowKey =
        new Codec.Writer()
            .raw(side.tag)
            .raw(ROWS)
            .bytes(key)
            .sortableLong(timeMicros)
            .bytes(suffix(batchId, ordinal))
            .toBytes();
    byte[] indexKey = indexKey(side, key, timeMicros, batchId, ordinal);
    byte[] indexValue = ByteBuffer.allocate(4).putInt(valueBytes.length).array();
    store.insertAll(new byte[][] {rowKey, indexKey}, new byte[][] {valueBytes, indexValue});
    rows[side.ordinal()]++;
    bytes[side.ordinal()] += rowKey.length + valueBytes.length + indexKey.length + 4L;
  }

  private static byte[] indexKey(Side side, byte[] key, long time, long batchId, int ordinal) {
    return new Codec.Writer()
        .raw(side.tag)
        .raw(INDEX)
        .sortableLong(time)
        .bytes(key)
        .bytes(suffix(batchId, ordinal))
        .toBytes();
  }

  private static byte[] suffix(long batchId, int ordinal) {
    return ByteBuffer.allocate(SUFFIX).putLong(batchId).putInt(ordinal).array();
  }

  /**
   * The side's stored rows with join key {@code key}, in event-time order (then batch, then
   * ordinal). The caller must close it; changes made while it is open ({@link Stored#markMatched})
   * are allowed.
   */
  Lookup lookup(Side side, byte[] key) {
    byte[] prefix = new Codec.Writer().raw(side.tag).raw(ROWS).bytes(key).toBytes();
    return new Lookup(store.scan(prefix), prefix.length, widths[side.ordinal()]);
  }

  /** A cursor over the rows of one key. */
  final class Lookup implements AutoCloseable {
    private final StateIterator it;
    private final int timeOffset;
    private final int width;

    private Lookup(StateIterator it, int timeOffset, int width) {
      this.it = it;
      this.timeOffset = timeOffset;
      this.width = width;
    }

    /** The next stored row, or null when there is none. */
    Stored next() {
      if (!it.hasNext()) {
        return null;
      }
      StateEntry e = it.next();
      return new Stored(e.key(), e.value(), timeOffset, width);
    }

    @Override
    public void close() {
      it.close();
    }
  }

  /** A stored row as a lookup finds it; its columns are decoded only when asked for. */
  final class Stored {
    private final byte[] key;
    private final byte[] value;
    private final int timeOffset;
    private final int width;

    private Stored(byte[] key, byte[] value, int timeOffset, int width) {
      this.key = key;
      this.value = value;
      this.timeOffset = timeOffset;
      this.width = width;
    }

    long timeMicros() {
      return Codec.sortable(ByteBuffer.wrap(key, timeOffset, 8).getLong());
    }

    boolean matched() {
      return value[0] != 0;
    }

    Object[] row() {
      return Codec.values(value, 1, width);
    }

    /** Sets the row's matched flag in state (P5: the caller found a pair passing the condition). */
    void markMatched() {
      if (value[0] == 0) {
        value[0] = 1;
        store.put(key, value); // same size: the byte counter does not change
      }
    }
  }

  /** Receives an evicted row of an outer side. */
  interface Evicted {
    /**
     * @param matched whether the row joined at least one row while it was kept
     * @param row the row's columns
     */
    void accept(boolean matched, Object[] row) throws IOException;
  }

  /**
   * Removes the side's rows whose event time is at or before {@code stateWatermarkMicros}, in event
   * time order, handing each to {@code rows} (null when nobody wants them: their values are then
   * not read).
   *
   * @return the number of rows removed
   */
  long evict(Side side, long stateWatermarkMicros, Evicted evicted) throws IOException {
    byte[] start = {side.tag, INDEX};
    byte[] end =
        stateWatermarkMicros == Long.MAX_VALUE
            ? new byte[] {side.tag, (byte) (INDEX + 1)}
            : new Codec.Writer()
                .raw(side.tag)
                .raw(INDEX)
                .sortableLong(stateWatermarkMicros + 1)
                .toBytes();
    long removed = 0;
    long removedBytes = 0;
    long indexBytes = 0;
    try (StateIterator it = store.scan(start)) {
      while (it.hasNext()) {
        StateEntry e = it.next();
        byte[] indexKey = e.key();
        if (Arrays.compareUnsigned(indexKey, end) >= 0) {
          break;
        }
        byte[] rowKey = rowKeyOf(indexKey);
        int valueSize = ByteBuffer.wrap(e.value()).getInt();
        if (evicted != null) {
          byte[] value = store.get(rowKey);
          evicted.accept(value[0] != 0, Codec.values(value, 1, widths[side.ordinal()]));
        }
        store.deleteKnown(rowKey, valueSize);
        removed++;
        indexBytes += indexKey.length + e.value().length;
        removedBytes += rowKey.length + valueSize + indexKey.length + e.value().length;
      }
    }
    if (removed > 0) {
      // The walk above saw every entry of the range: [start, end) holds index entries only.
      store.deleteKnownRange(start, end, removed, indexBytes);
      rows[side.ordinal()] -= removed;
      bytes[side.ordinal()] -= removedBytes;
    }
    return removed;
  }

  /** {@code s 'T' t key b o} to {@code s 'V' key t b o}: the same bytes, the time moved. */
  private static byte[] rowKeyOf(byte[] indexKey) {
    byte[] rowKey = new byte[indexKey.length];
    int keyLength = indexKey.length - HEAD - 8 - SUFFIX;
    rowKey[0] = indexKey[0];
    rowKey[1] = ROWS;
    System.arraycopy(indexKey, HEAD + 8, rowKey, HEAD, keyLength);
    System.arraycopy(indexKey, HEAD, rowKey, HEAD + keyLength, 8);
    System.arraycopy(indexKey, HEAD + 8 + keyLength, rowKey, HEAD + keyLength + 8, SUFFIX);
    return rowKey;
  }

  /** The number of rows the side keeps (this batch's changes included). */
  long rows(Side side) {
    return rows[side.ordinal()];
  }

  /**
   * The bytes the side keeps: its row and index entries' keys and values (this batch's changes
   * included).
   */
  long bytes(Side side) {
    return bytes[side.ordinal()];
  }

  /**
   * Writes the counters into the state, once per batch before its commit, for the sides whose
   * counters changed since they were read or last written.
   */
  void writeCounters() {
    for (Side side : Side.values()) {
      byte[] key = {side.tag, COUNTERS};
      byte[] value =
          ByteBuffer.allocate(16)
              .putLong(rows[side.ordinal()])
              .putLong(bytes[side.ordinal()])
              .array();
      byte[] stored = store.get(key);
      boolean unchanged =
          stored == null
              ? rows[side.ordinal()] == 0 && bytes[side.ordinal()] == 0
              : Arrays.equals(stored, value);
      if (!unchanged) {
        store.put(key, value);
      }
    }
  }
}
