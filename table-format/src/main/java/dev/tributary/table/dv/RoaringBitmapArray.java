package dev.tributary.table.dv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * A set of row indexes (non-negative 64-bit numbers) as Delta's deletion vectors hold them: an
 * array of 32-bit Roaring bitmaps ("buckets"), the bucket at index {@code k} holding the rows whose
 * high 32 bits are {@code k}. Mutable while it is built, not thread-safe.
 *
 * <p>Serialized form (all numbers little-endian), in one of two {@link Format formats}, each named
 * by its magic number in the first 4 bytes:
 *
 * <pre>
 * PORTABLE (1681511377) the 64-bit extension of the Roaring format specification:
 *   int64 number of buckets that follow
 *   per bucket, keys ascending: int32 key (high 32 bits, never negative), then the bucket as a
 *   32-bit Roaring bitmap in the specification's portable serialization
 * NATIVE (1681511376), the older form Delta still reads:
 *   int32 number of buckets n (the buckets 0..n-1, empty ones included)
 *   per bucket: int32 byte length, then the bucket's portable serialization
 * </pre>
 *
 * Delta writes PORTABLE and reads both; so does this class. An empty bucket may appear in either
 * form and is read as empty. The serialized bytes carry no checksum: a deletion vector file adds
 * one per bitmap ({@link DeletionVectorFile}), an inline one has none.
 */
public final class RoaringBitmapArray {
  /** The two serializations Delta reads, by magic number. */
  public enum Format {
    PORTABLE(1681511377),
    NATIVE(1681511376);

    private final int magic;

    Format(int magic) {
      this.magic = magic;
    }

    /** The 32-bit number the serialized form starts with. */
    public int magic() {
      return magic;
    }
  }

  /** The largest row index: the high 32 bits of a row index are a non-negative int. */
  public static final long MAX_ROW = Long.MAX_VALUE;

  private RoaringBitmap[] buckets = new RoaringBitmap[0];

  /** An empty set. */
  public RoaringBitmapArray() {}

  /** A set of the given rows. */
  public static RoaringBitmapArray of(long... rows) {
    RoaringBitmapArray set = new RoaringBitmapArray();
    for (long row : rows) {
      set.add(row);
    }
    return set;
  }

  /**
   * Adds a row index.
   *
   * @throws IllegalArgumentException if the row is negative
   */
  public void add(long row) {
    checkRow(row);
    bucket((int) (row >>> 32)).add((int) row);
  }

  /**
   * Adds the rows {@code [from, to)}.
   *
   * @throws IllegalArgumentException if {@code from} is negative or after {@code to}
   */
  public void addRange(long from, long to) {
    checkRow(from);
    if (to < from) {
      throw new IllegalArgumentException("range [" + from + ", " + to + ") ends before it starts");
    }
    long start = from;
    while (start < to) {
      int key = (int) (start >>> 32);
      long bucketEnd = Math.min(to, ((long) key + 1) << 32);
      bucket(key).add(start & 0xFFFFFFFFL, (bucketEnd - 1 & 0xFFFFFFFFL) + 1);
      start = bucketEnd;
    }
  }

  /** Adds every row of {@code other}. */
  public void addAll(RoaringBitmapArray other) {
    for (int key = 0; key < other.buckets.length; key++) {
      if (!other.buckets[key].isEmpty()) {
        bucket(key).or(other.buckets[key]);
      }
    }
  }

  /** True if the row is in the set. */
  public boolean contains(long row) {
    if (row < 0) {
      return false;
    }
    long key = row >>> 32;
    return key < buckets.length && buckets[(int) key].contains((int) row);
  }

  /** The number of rows in the set. */
  public long cardinality() {
    long n = 0;
    for (RoaringBitmap b : buckets) {
      n += b.getLongCardinality();
    }
    return n;
  }

  /** True if the set holds no row. */
  public boolean isEmpty() {
    return cardinality() == 0;
  }

  /** The rows in ascending order. */
  public long[] toArray() {
    long[] rows = new long[Math.toIntExact(cardinality())];
    int i = 0;
    for (int key = 0; key < buckets.length; key++) {
      PeekableIntIterator it = buckets[key].getIntIterator();
      while (it.hasNext()) {
        rows[i++] = ((long) key << 32) | (it.next() & 0xFFFFFFFFL);
      }
    }
    return rows;
  }

  /** The serialized form in Delta's {@link Format#PORTABLE} format (what Delta writes). */
  public byte[] serialize() {
    return serialize(Format.PORTABLE);
  }

  /** The serialized form in the given format; see the class comment. */
  public byte[] serialize(Format format) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(Integer.reverseBytes(format.magic()));
      if (format == Format.PORTABLE) {
        long nonEmpty = Arrays.stream(buckets).filter(b -> !b.isEmpty()).count();
        out.writeLong(Long.reverseBytes(nonEmpty));
        for (int key = 0; key < buckets.length; key++) {
          if (!buckets[key].isEmpty()) {
            out.writeInt(Integer.reverseBytes(key));
            compact(buckets[key]).serialize(out);
          }
        }
      } else {
        int n = buckets.length;
        while (n > 0 && buckets[n - 1].isEmpty()) {
          n--;
        }
        out.writeInt(Integer.reverseBytes(n));
        for (int key = 0; key < n; key++) {
          RoaringBitmap b = compact(buckets[key]);
          out.writeInt(Integer.reverseBytes(b.serializedSizeInBytes()));
          b.serialize(out);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("serializing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads a set from its serialized form, in either format (told apart by the magic number).
   *
   * @throws IllegalArgumentException if the bytes are not a valid serialized set: an unknown magic
   *     number, a negative or descending key, a bucket that is not a valid Roaring bitmap, or bytes
   *     missing or left over
   */
  public static RoaringBitmapArray deserialize(byte[] bytes) {
    ByteArrayInputStream source = new ByteArrayInputStream(bytes);
    DataInputStream in = new DataInputStream(source);
    RoaringBitmapArray set = new RoaringBitmapArray();
    try {
      int raw = in.readInt();
      // The header is little-endian; the example in Delta's PROTOCOL.md (written by a preview)
      // has a big-endian one, told apart by its magic number. The buckets are little-endian in
      // both, as the Roaring specification fixes.
      boolean little = isMagic(Integer.reverseBytes(raw));
      if (!little && !isMagic(raw)) {
        throw new IllegalArgumentException(
            "unknown magic number "
                + Integer.reverseBytes(raw)
                + " (a deletion vector starts with "
                + Format.PORTABLE.magic()
                + " or "
                + Format.NATIVE.magic()
                + ")");
      }
      Header header = new Header(in, little);
      int magic = little ? Integer.reverseBytes(raw) : raw;
      if (magic == Format.PORTABLE.magic()) {
        long n = header.readLong();
        if (n < 0 || n > Integer.MAX_VALUE) {
          throw new IllegalArgumentException("invalid number of buckets " + n);
        }
        int previous = -1;
        for (long i = 0; i < n; i++) {
          int key = header.readInt();
          if (key < 0 || key <= previous) {
            throw new IllegalArgumentException(
                "bucket key " + key + " is negative or not above the previous key " + previous);
          }
          previous = key;
          RoaringBitmap b = new RoaringBitmap();
          b.deserialize(in);
          set.bucket(key).or(b);
        }
      } else {
        int n = header.readInt();
        if (n < 0) {
          throw new IllegalArgumentException("invalid number of buckets " + n);
        }
        for (int key = 0; key < n; key++) {
          int size = header.readInt();
          int before = source.available();
          RoaringBitmap b = new RoaringBitmap();
          b.deserialize(in);
          if (before - source.available() != size) {
            throw new IllegalArgumentException(
                "bucket "
                    + key
                    + " declares "
                    + size
                    + " bytes but holds "
                    + (before - source.available()));
          }
          set.bucket(key).or(b);
        }
      }
      if (source.available() > 0) {
        throw new IllegalArgumentException(source.available() + " bytes left after the bitmap");
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException invalid) {
        throw invalid;
      }
      throw new IllegalArgumentException("not a valid serialized bitmap: " + e, e);
    }
    return set;
  }

  private static boolean isMagic(int value) {
    return value == Format.PORTABLE.magic() || value == Format.NATIVE.magic();
  }

  /** The header's numbers in their byte order. */
  private record Header(DataInputStream in, boolean little) {
    int readInt() throws IOException {
      int v = in.readInt();
      return little ? Integer.reverseBytes(v) : v;
    }

    long readLong() throws IOException {
      long v = in.readLong();
      return little ? Long.reverseBytes(v) : v;
    }
  }

  private RoaringBitmap bucket(int key) {
    if (key >= buckets.length) {
      int old = buckets.length;
      buckets = Arrays.copyOf(buckets, key + 1);
      for (int i = old; i < buckets.length; i++) {
        buckets[i] = new RoaringBitmap();
      }
    }
    return buckets[key];
  }

  private static RoaringBitmap compact(RoaringBitmap b) {
    RoaringBitmap copy = b.clone();
    copy.runOptimize(); // run containers are part of the format; long deleted ranges shrink
    return copy;
  }

  private static void checkRow(long row) {
    if (row < 0) {
      throw new IllegalArgumentException("a row index must not be negative, was " + row);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RoaringBitmapArray other && Arrays.equals(toArray(), other.toArray());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(toArray());
  }

  @Override
  public String toString() {
    long n = cardinality();
    long[] rows = n <= 20 ? toArray() : Arrays.copyOf(toArray(), 20);
    return "RoaringBitmapArray"
        + Arrays.toString(rows)
        + (n > 20 ? " and " + (n - 20) + " more" : "");
  }
}
