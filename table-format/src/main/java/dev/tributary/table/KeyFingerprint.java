package dev.tributary.table;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;

/**
 * The 128-bit fingerprint of a key (the values of a row's key columns), which {@link KeyIndex}
 * stores instead of the key itself. Two keys that are equal as a merge compares them (null-safe,
 * {@link Object#equals} per column, binary by content) always have the same fingerprint.
 *
 * <p>A key of one integral column (int, long, timestamp, date) is its own fingerprint: exact, no
 * collision possible. Any other key is hashed by two independent 64-bit chains (the MurmurHash3 and
 * SplitMix64 finalizers, each a bijection of the 64-bit state) over a typed, length-prefixed
 * encoding of its values: two different keys collide with probability about 2^-128, so a table of
 * 10^8 keys merging 10^6 changes per batch would meet one collision in about 10^21 batches. A
 * collision cannot corrupt a copy-on-write merge (the rewrite compares the real keys and fails
 * loudly on a mismatch); a deletion-vector merge relies on the fingerprint alone.
 *
 * <p>Not thread-safe: one instance per reader, reused for every key (no allocation per key).
 */
final class KeyFingerprint {
  private static final long EXACT = 0x5f3759df_0badc0deL;
  private static final long TAG_NULL = 0x1b873593_cc9e2d51L;
  private static final long TAG_INT = 0x2545f491_4f6cdd1dL;
  private static final long TAG_DOUBLE = 0x6a09e667_f3bcc908L;
  private static final long TAG_BOOL = 0x3c6ef372_fe94f82bL;
  private static final long TAG_STRING = 0x510e527f_ade682d1L;
  private static final long TAG_BINARY = 0x9b05688c_2b3e6c1fL;
  private static final long TAG_DECIMAL = 0x1f83d9ab_fb41bd6bL;
  private static final long TAG_TIMESTAMP = 0x5be0cd19_137e2179L;
  private static final long TAG_DATE = 0xcbbb9d5d_c1059ed8L;
  private static final long TAG_OTHER = 0x629a292a_367cd507L;

  private final int[] columns;
  private final boolean exactSingle;
  private long a;
  private long b;
  private long words;

  /** The high half of the last fingerprint computed. */
  long hi;

  /** The low half of the last fingerprint computed. */
  long lo;

  /**
   * @param columns the key columns' positions in the rows given to {@link #of}
   * @param integralSingle true when the key is one column of an integral, timestamp or date type
   */
  KeyFingerprint(int[] columns, boolean integralSingle) {
    this.columns = columns.clone();
    this.exactSingle = integralSingle && columns.length == 1;
  }

  /** Computes the fingerprint of {@code row}'s key into {@link #hi} and {@link #lo}. */
  void of(Object[] row) {
    if (exactSingle) {
      Object v = row[columns[0]];
      Long exact = exactValue(v);
      if (exact != null) {
        hi = exact;
        lo = EXACT;
        return;
      }
    }
    a = 0x243f6a88_85a308d3L;
    b = 0x13198a2e_03707344L;
    words = 0;
    for (int c : columns) {
      add(row[c]);
    }
    hi = fmix(a ^ words);
    lo = splitmix(b ^ ~words);
    if (lo == EXACT) {
      lo = ~EXACT; // never mistaken for an exact integral key
    }
  }

  private static Long exactValue(Object v) {
    if (v instanceof Long l) {
      return l;
    }
    if (v instanceof Integer i) {
      return (long) i;
    }
    if (v instanceof Short s) {
      return (long) s;
    }
    if (v instanceof Byte by) {
      return (long) by;
    }
    if (v instanceof LocalDate d) {
      return d.toEpochDay();
    }
    if (v instanceof Instant t) {
      return micros(t);
    }
    return null;
  }

  private static long micros(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
  }

  private void add(Object v) {
    if (v == null) {
      word(TAG_NULL);
    } else if (v instanceof Long
        || v instanceof Integer
        || v instanceof Short
        || v instanceof Byte) {
      word(TAG_INT);
      word(((Number) v).longValue());
    } else if (v instanceof Double d) {
      word(TAG_DOUBLE);
      word(Double.doubleToLongBits(d));
    } else if (v instanceof Float f) {
      word(TAG_DOUBLE ^ 1);
      word(Float.floatToIntBits(f));
    } else if (v instanceof Boolean bool) {
      word(TAG_BOOL ^ (bool ? 1 : 0));
    } else if (v instanceof String s) {
      string(s);
    } else if (v instanceof byte[] bytes) {
      bytes(ByteBuffer.wrap(bytes));
    } else if (v instanceof ByteBuffer buffer) {
      bytes(buffer.duplicate());
    } else if (v instanceof BigDecimal d) {
      word(TAG_DECIMAL ^ d.scale());
      if (d.unscaledValue().bitLength() < 64) {
        word(d.unscaledValue().longValue());
      } else {
        bytes(ByteBuffer.wrap(d.unscaledValue().toByteArray()));
      }
    } else if (v instanceof Instant t) {
      word(TAG_TIMESTAMP);
      word(micros(t));
    } else if (v instanceof LocalDate d) {
      word(TAG_DATE);
      word(d.toEpochDay());
    } else {
      word(TAG_OTHER);
      string(v.getClass().getName() + ":" + v);
    }
  }

  private void string(String s) {
    int n = s.length();
    word(TAG_STRING ^ n);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      word(
          (long) s.charAt(i)
              | (long) s.charAt(i + 1) << 16
              | (long) s.charAt(i + 2) << 32
              | (long) s.charAt(i + 3) << 48);
    }
    long last = 0;
    for (int shift = 0; i < n; i++, shift += 16) {
      last |= (long) s.charAt(i) << shift;
    }
    word(last);
  }

  private void bytes(ByteBuffer buffer) {
    int n = buffer.remaining();
    word(TAG_BINARY ^ n);
    long w = 0;
    int k = 0;
    while (buffer.hasRemaining()) {
      w |= (buffer.get() & 0xffL) << (8 * k);
      if (++k == 8) {
        word(w);
        w = 0;
        k = 0;
      }
    }
    word(w);
  }

  private void word(long w) {
    a = fmix(a ^ w) + 0x9e3779b9_7f4a7c15L;
    b = splitmix(b + Long.rotateLeft(w, 29) * 0xd6e8feb8_6659fd93L);
    words++;
  }

  /** The MurmurHash3 64-bit finalizer: a bijection that mixes every input bit into every bit. */
  static long fmix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7_ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe_1a85ec53L;
    return k ^ (k >>> 33);
  }

  /** The SplitMix64 finalizer: another bijection with independent constants. */
  static long splitmix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d_1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb_133111ebL;
    return z ^ (z >>> 31);
  }
}
