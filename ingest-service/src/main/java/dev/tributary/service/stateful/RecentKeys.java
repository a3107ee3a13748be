package dev.tributary.service.stateful;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A heap-side Bloom filter over the keys of a deduplication state laid out by event time, so that a
 * key that is certainly new (almost every key, in a stream with few duplicates) costs no state
 * lookup. Filters are kept per event-time bucket and dropped once the watermark passes the bucket's
 * end, as the state's keys are.
 *
 * <p>It may answer "maybe" for a key that is not in the state (a false positive, about 1%, or a key
 * of a batch that was rolled back): the caller then looks it up. It must never answer "no" for a
 * key that is in the state, so it is filled with every key added and, after the state is loaded
 * from the checkpoint, with every key loaded. About 10 bits (1.25 bytes) of heap per key.
 */
final class RecentKeys {
  private static final int KEYS_PER_BLOCK = 1 << 16;
  private static final int BITS_PER_KEY = 10;
  private static final int HASHES = 7;

  private final long bucketMicros;
  private final TreeMap<Long, List<Block>> buckets = new TreeMap<>();
  // The bucket of the last call: consecutive events mostly share one (no boxing, no tree walk).
  private long lastBucket = Long.MIN_VALUE;
  private List<Block> lastBlocks;

  RecentKeys(long bucketMicros) {
    this.bucketMicros = Math.max(1, bucketMicros);
  }

  boolean mightContain(long eventTimeMicros, byte[] key) {
    List<Block> blocks = blocks(bucketOf(eventTimeMicros), false);
    if (blocks == null) {
      return false;
    }
    long hash = hash(key);
    for (Block b : blocks) {
      if (b.mightContain(hash)) {
        return true;
      }
    }
    return false;
  }

  void add(long eventTimeMicros, byte[] key) {
    List<Block> blocks = blocks(bucketOf(eventTimeMicros), true);
    if (blocks.isEmpty() || blocks.get(blocks.size() - 1).isFull()) {
      blocks.add(new Block());
    }
    blocks.get(blocks.size() - 1).add(hash(key));
  }

  private List<Block> blocks(long bucket, boolean create) {
    if (bucket == lastBucket && lastBlocks != null) {
      return lastBlocks;
    }
    List<Block> blocks =
        create ? buckets.computeIfAbsent(bucket, b -> new ArrayList<>(1)) : buckets.get(bucket);
    if (blocks != null) {
      lastBucket = bucket;
      lastBlocks = blocks;
    }
    return blocks;
  }

  /** Drops the buckets whose every time is below {@code watermarkMicros}. */
  void evictBelow(long watermarkMicros) {
    Map<Long, List<Block>> passed = buckets.headMap(bucketOf(watermarkMicros), false);
    passed.clear();
    lastBlocks = null;
  }

  private long bucketOf(long micros) {
    return Math.floorDiv(micros, bucketMicros);
  }

  /** FNV-1a over the bytes, then a 64-bit finaliser (MurmurHash3's fmix64) to spread the bits. */
  static long hash(byte[] key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /** A fixed-size Bloom filter for up to {@value #KEYS_PER_BLOCK} keys (double hashing). */
  private static final class Block {
    private final long[] bits = new long[KEYS_PER_BLOCK * BITS_PER_KEY / 64];
    private int keys;

    boolean isFull() {
      return keys >= KEYS_PER_BLOCK;
    }

    void add(long hash) {
      int h1 = (int) hash;
      int h2 = (int) (hash >>> 32);
      for (int i = 0; i < HASHES; i++) {
        int bit = Math.floorMod(h1 + i * h2, bits.length * 64);
        bits[bit >>> 6] |= 1L << bit;
      }
      keys++;
    }

    boolean mightContain(long hash) {
      int h1 = (int) hash;
      int h2 = (int) (hash >>> 32);
      for (int i = 0; i < HASHES; i++) {
        int bit = Math.floorMod(h1 + i * h2, bits.length * 64);
        if ((bits[bit >>> 6] & (1L << bit)) == 0) {
          return false;
        }
      }
      return true;
    }
  }
}
