package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import java.nio.ByteBuffer;

/**
 * Drops rows whose key was seen before. State layout (operator {@code dedup}):
 * <pre>
 *   'K' key               -> expiry (8 bytes, big-endian micros; absent meaning "never")
 *   'T' sortable(expiry) key -> (empty)     eviction index, in expiry order
 * </pre>
 * With the watermark column among the keys the expiry is the event time; with
 * {@code within-watermark} it is the first occurrence's event time plus the delay. A key is
 * evicted when its expiry is below the watermark. Without either, keys are kept forever (like
 * Spark's dropDuplicates without a watermark).
 */
final class Deduplicator {
  private static final byte KEY = 'K';
  private static final byte INDEX = 'T';
  private static final byte[] EMPTY = new byte[0];

  private final StateStore store;
  private final int[] keyColumns;
  private final boolean expires;
  private final long expiryOffsetMicros;
  private long duplicates;
  private long evicted;

  /**
   * @param expires whether keys expire (event time in the key, or within-watermark)
   * @param expiryOffsetMicros added to the event time to get the expiry (the delay for within-watermark, else 0)
   */
  Deduplicator(StateStore store, int[] keyColumns, boolean expires, long expiryOffsetMicros) {
    this.store = store;
    this.keyColumns = keyColumns.clone();
    this.expires = expires;
    this.expiryOffsetMicros = expiryOffsetMicros;
  }

  /** True if the row's key is new (the row goes on); false for a duplicate. */
  boolean firstOccurrence(Object[] row, long eventTimeMicros) {
    byte[] key = Codec.key(row, keyColumns);
    byte[] stateKey = new Codec.Writer().raw(KEY).bytes(key).toBytes();
    if (store.get(stateKey) != null) {
      duplicates++;
      return false;
    }
    if (expires) {
      long expiry = eventTimeMicros + expiryOffsetMicros;
      store.put(stateKey, ByteBuffer.allocate(8).putLong(expiry).array());
      store.put(new Codec.Writer().raw(INDEX).sortableLong(expiry).bytes(key).toBytes(), EMPTY);
    } else {
      store.put(stateKey, EMPTY);
    }
    return true;
  }

  /** Deletes the keys whose expiry is below the watermark; walks the index only as far as needed. */
  void evict(long watermarkMicros) {
    if (!expires) {
      return;
    }
    try (StateIterator it = store.scan(new byte[] {INDEX})) {
      while (it.hasNext()) {
        StateEntry e = it.next();
        long expiry = Codec.sortable(ByteBuffer.wrap(e.key(), 1, 8).getLong());
        if (expiry >= watermarkMicros) {
          break;
        }
        byte[] key = java.util.Arrays.copyOfRange(e.key(), 9, e.key().length);
        store.delete(e.key());
        store.delete(new Codec.Writer().raw(KEY).bytes(key).toBytes());
        evicted++;
      }
    }
  }

  long duplicates() {
    return duplicates;
  }

  long evicted() {
    return evicted;
  }

  void resetCounters() {
    duplicates = 0;
    evicted = 0;
  }
}
