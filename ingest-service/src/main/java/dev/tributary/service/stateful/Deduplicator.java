package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Drops rows whose key was seen before. Three state layouts, one per kind of expiry:
 *
 * <pre>
 *   keys hold the event time (operator {@code dedup-by-time}):
 *     'E' sortable(event time) other key values -> (empty)
 *   within-watermark, keys without the event time (operator {@code dedup}):
 *     'K' key                           -> expiry (8 bytes, big-endian micros)
 *     'T' sortable(expiry) key          -> (empty)     eviction index, in expiry order
 *   no watermark (operator {@code dedup}; keys never expire, like Spark without a watermark):
 *     'K' key                           -> (empty)
 * </pre>
 *
 * When the keys hold the event time, the key's expiry is that time, so the state is laid out in
 * eviction order: a row costs one lookup-and-insert, and evicting everything below the watermark is
 * one range delete. With {@code within-watermark} the expiry is the first occurrence's event time
 * plus the delay, which later duplicates do not carry, hence the separate index.
 */
final class Deduplicator {
  private static final byte BY_TIME = 'E';
  private static final byte KEY = 'K';
  private static final byte INDEX = 'T';
  private static final byte[] EMPTY = new byte[0];

  private final StateStore store;
  private final int[] keyColumns;
  private final Expiry expiry;
  private final long expiryOffsetMicros;
  private final RecentKeys recentKeys;
  private long evicted;

  /** How a key's expiry is known. */
  enum Expiry {
    /** Keys never expire. */
    NEVER,
    /** The keys hold the event time, which is the expiry. */
    EVENT_TIME_IN_KEY,
    /** The first occurrence's event time plus the watermark delay. */
    FIRST_SEEN_PLUS_DELAY
  }

  /** The state operator id of a layout: a checkpoint of one layout is never read as another. */
  static String operatorId(Expiry expiry) {
    return expiry == Expiry.EVENT_TIME_IN_KEY ? "dedup-by-time" : "dedup";
  }

  /**
   * @param expiryOffsetMicros the delay, for {@link Expiry#FIRST_SEEN_PLUS_DELAY}
   * @param recentKeys for {@link Expiry#EVENT_TIME_IN_KEY}: a filter holding at least every key of
   *     {@code store} (see {@link #fill}), kept up to date by this deduplicator; else null
   */
  Deduplicator(
      StateStore store,
      int[] keyColumns,
      Expiry expiry,
      long expiryOffsetMicros,
      RecentKeys recentKeys) {
    this.store = store;
    this.keyColumns = keyColumns.clone();
    this.expiry = expiry;
    this.expiryOffsetMicros = expiryOffsetMicros;
    this.recentKeys = expiry == Expiry.EVENT_TIME_IN_KEY ? recentKeys : null;
  }

  /**
   * Adds every key of an event-time-keyed {@code store} to {@code recentKeys}: after loading state.
   */
  static void fill(StateStore store, RecentKeys recentKeys) {
    try (StateIterator it = store.scan(new byte[] {BY_TIME})) {
      while (it.hasNext()) {
        byte[] key = it.next().key();
        recentKeys.add(Codec.sortable(ByteBuffer.wrap(key, 1, 8).getLong()), key);
      }
    }
  }

  /**
   * For each of the first {@code count} rows (event times in {@code eventTimes}): true if its key
   * is new (the row goes on), false for a duplicate. Rows are taken in order, so of two rows with
   * one key the first goes on. One batched state lookup and write for all of them.
   */
  boolean[] firstOccurrences(Object[][] rows, long[] eventTimes, int count) {
    byte[][] keys = new byte[count][];
    for (int i = 0; i < count; i++) {
      Codec.Writer prefix =
          expiry == Expiry.EVENT_TIME_IN_KEY
              ? new Codec.Writer().raw(BY_TIME).sortableLong(eventTimes[i])
              : new Codec.Writer().raw(KEY);
      keys[i] = withKey(prefix, rows[i]);
    }
    if (recentKeys != null) {
      return filtered(keys, eventTimes, count);
    }
    if (expiry != Expiry.FIRST_SEEN_PLUS_DELAY) {
      return store.putAllIfAbsent(keys, filledWith(EMPTY, count));
    }
    byte[][] expiries = new byte[count][];
    for (int i = 0; i < count; i++) {
      expiries[i] = ByteBuffer.allocate(8).putLong(eventTimes[i] + expiryOffsetMicros).array();
    }
    boolean[] first = store.putAllIfAbsent(keys, expiries);
    indexNewKeys(rows, eventTimes, first);
    return first;
  }

  /**
   * Event-time keys through the filter: a key it has never seen is new without a lookup; only the
   * others are looked up, after the new keys are inserted, so an equal key later in the chunk than
   * a new one finds it and is a duplicate (no heap set of the chunk's keys: hashing every new key
   * into one cost more than the rare extra lookup).
   */
  private boolean[] filtered(byte[][] keys, long[] eventTimes, int count) {
    boolean[] first = new boolean[count];
    byte[][] inserts = new byte[count][];
    int[] lookups = new int[count];
    int insertCount = 0;
    int lookupCount = 0;
    for (int i = 0; i < count; i++) {
      byte[] key = keys[i];
      if (!recentKeys.mightContain(eventTimes[i], key)) {
        recentKeys.add(eventTimes[i], key);
        inserts[insertCount++] = key;
        first[i] = true;
      } else {
        lookups[lookupCount++] = i;
      }
    }
    store.insertAll(Arrays.copyOf(inserts, insertCount), filledWith(EMPTY, insertCount));
    byte[][] candidates = new byte[lookupCount][];
    for (int j = 0; j < lookupCount; j++) {
      candidates[j] = keys[lookups[j]];
    }
    boolean[] set = store.putAllIfAbsent(candidates, filledWith(EMPTY, lookupCount));
    for (int j = 0; j < lookupCount; j++) {
      first[lookups[j]] = set[j];
    }
    return first;
  }

  private static byte[][] filledWith(byte[] value, int count) {
    byte[][] values = new byte[count][];
    Arrays.fill(values, value);
    return values;
  }

  /** Adds the eviction index entries of the keys just set (new keys, so new entries: no lookup). */
  private void indexNewKeys(Object[][] rows, long[] eventTimes, boolean[] first) {
    int n = 0;
    for (boolean f : first) {
      n += f ? 1 : 0;
    }
    byte[][] index = new byte[n][];
    for (int i = 0, j = 0; i < first.length; i++) {
      if (first[i]) {
        index[j++] =
            withKey(
                new Codec.Writer().raw(INDEX).sortableLong(eventTimes[i] + expiryOffsetMicros),
                rows[i]);
      }
    }
    store.insertAll(index, filledWith(EMPTY, n));
  }

  private byte[] withKey(Codec.Writer prefix, Object[] row) {
    for (int c : keyColumns) {
      prefix.value(row[c]);
    }
    return prefix.toBytes();
  }

  /**
   * Deletes the keys whose expiry is at or before the watermark (Spark: event time {@code <=}
   * watermark; within-watermark: {@code watermark >= expiry}). A later duplicate of an evicted
   * event-time key is at or behind the next batch's late watermark, so it is dropped as late.
   */
  void evict(long watermarkMicros) {
    long after = watermarkMicros + 1;
    switch (expiry) {
      case EVENT_TIME_IN_KEY -> {
        evicted += store.deleteRange(new byte[] {BY_TIME}, below(BY_TIME, after));
        if (recentKeys != null) {
          recentKeys.evictBelow(after);
        }
      }
      case FIRST_SEEN_PLUS_DELAY -> {
        byte[] end = below(INDEX, after);
        try (StateIterator it = store.scan(new byte[] {INDEX})) {
          while (it.hasNext()) {
            StateEntry e = it.next();
            if (Arrays.compareUnsigned(e.key(), end) >= 0) {
              break;
            }
            byte[] key = Arrays.copyOfRange(e.key(), 8, e.key().length);
            key[0] = KEY; // 'T' sortable(expiry) key -> 'K' key
            store.delete(key);
            evicted++;
          }
        }
        store.deleteRange(new byte[] {INDEX}, end);
      }
      default -> {}
    }
  }

  /** The first key of {@code prefix} at or after time {@code micros}: a range's exclusive end. */
  private static byte[] below(byte prefix, long micros) {
    return new Codec.Writer().raw(prefix).sortableLong(micros).toBytes();
  }

  long evicted() {
    return evicted;
  }

  void resetCounters() {
    evicted = 0;
  }
}
