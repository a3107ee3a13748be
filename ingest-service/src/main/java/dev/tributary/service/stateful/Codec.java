package dev.tributary.service.stateful;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Binary encoding of row values for state keys and values. Every value is a type tag followed by a
 * self-delimiting body, so a concatenation of a fixed number of values never is a prefix of another
 * such concatenation: prefix scans over "window + group key" stay exact. Times in keys use {@link
 * #sortable(long)} so that RocksDB's unsigned byte order is time order.
 */
final class Codec {
  private static final byte NULL = 0;
  private static final byte STRING = 1;
  private static final byte INT = 2;
  private static final byte LONG = 3;
  private static final byte DOUBLE = 4;
  private static final byte BOOLEAN = 5;
  private static final byte TIMESTAMP = 6;
  private static final byte DATE = 7;
  private static final byte BINARY = 8;
  private static final byte DECIMAL = 9;

  /**
   * A struct value ({@code Object[]}, e.g. a nested Avro record): its field count, then its values.
   */
  private static final byte STRUCT = 10;

  /** The column types a Delta source may carry (issue 23): byte, short, float, timestamp_ntz. */
  private static final byte BYTE = 11;

  private static final byte SHORT = 12;
  private static final byte FLOAT = 13;
  private static final byte TIMESTAMP_NTZ = 14;

  /** An array value ({@code List}): its size, then its elements. */
  private static final byte LIST = 15;

  /** A map value ({@code Map}): its size, then key and value of each entry, in its order. */
  private static final byte MAP = 16;

  private Codec() {}

  /** A growable buffer that encodes values (big-endian; one per key, on the per-row path). */
  static final class Writer {
    private byte[] buf = new byte[48];
    private int size;

    Writer raw(byte b) {
      ensure(1);
      buf[size++] = b;
      return this;
    }

    Writer sortableLong(long v) {
      return putLong(sortable(v));
    }

    Writer bytes(byte[] b) {
      ensure(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
      return this;
    }

    Writer value(Object v) {
      if (v == null) {
        return raw(NULL);
      } else if (v instanceof String s) {
        return raw(STRING).lengthPrefixed(s.getBytes(StandardCharsets.UTF_8));
      } else if (v instanceof Integer i) {
        return raw(INT).putInt(i);
      } else if (v instanceof Long l) {
        return raw(LONG).putLong(l);
      } else if (v instanceof Double d) {
        return raw(DOUBLE).putLong(Double.doubleToLongBits(d));
      } else if (v instanceof Boolean b) {
        return raw(BOOLEAN).raw((byte) (b ? 1 : 0));
      } else if (v instanceof Instant t) {
        return raw(TIMESTAMP).putLong(Times.micros(t));
      } else if (v instanceof LocalDate d) {
        return raw(DATE).putLong(d.toEpochDay());
      } else if (v instanceof byte[] b) {
        return raw(BINARY).lengthPrefixed(b);
      } else if (v instanceof BigDecimal d) {
        return raw(DECIMAL).putInt(d.scale()).lengthPrefixed(d.unscaledValue().toByteArray());
      } else if (v instanceof Object[] struct) {
        raw(STRUCT).putInt(struct.length);
        for (Object field : struct) {
          value(field);
        }
        return this;
      } else if (v instanceof Byte b) {
        return raw(BYTE).raw(b);
      } else if (v instanceof Short sh) {
        return raw(SHORT).putInt(sh);
      } else if (v instanceof Float f) {
        return raw(FLOAT).putInt(Float.floatToIntBits(f));
      } else if (v instanceof LocalDateTime t) {
        return raw(TIMESTAMP_NTZ).putLong(Times.micros(t.toInstant(ZoneOffset.UTC)));
      } else if (v instanceof List<?> list) {
        raw(LIST).putInt(list.size());
        list.forEach(this::value);
        return this;
      } else if (v instanceof Map<?, ?> map) {
        raw(MAP).putInt(map.size());
        map.forEach(
            (k, x) -> {
              value(k);
              value(x);
            });
        return this;
      }
      throw new IllegalArgumentException("cannot keep a " + v.getClass().getName() + " in state");
    }

    byte[] toBytes() {
      return Arrays.copyOf(buf, size);
    }

    /** Empties the writer for the next key, keeping its buffer. */
    Writer reset() {
      size = 0;
      return this;
    }

    /**
     * The bytes written so far are {@code [0, size())} of this array (no copy; reset reuses it).
     */
    byte[] buffer() {
      return buf;
    }

    int size() {
      return size;
    }

    private Writer lengthPrefixed(byte[] b) {
      return putInt(b.length).bytes(b);
    }

    private Writer putInt(int v) {
      ensure(4);
      for (int shift = 24; shift >= 0; shift -= 8) {
        buf[size++] = (byte) (v >>> shift);
      }
      return this;
    }

    private Writer putLong(long v) {
      ensure(8);
      for (int shift = 56; shift >= 0; shift -= 8) {
        buf[size++] = (byte) (v >>> shift);
      }
      return this;
    }

    private void ensure(int more) {
      if (size + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
      }
    }
  }

  /** Reads values written by {@link Writer}. */
  static final class Reader {
    private final DataInputStream in;

    Reader(byte[] bytes, int offset) {
      this.in = new DataInputStream(new ByteArrayInputStream(bytes, offset, bytes.length - offset));
    }

    long sortableLong() {
      try {
        return sortable(in.readLong());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    Object value() {
      try {
        byte tag = in.readByte();
        switch (tag) {
          case NULL:
            return null;
          case STRING:
            return new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8);
          case INT:
            return in.readInt();
          case LONG:
            return in.readLong();
          case DOUBLE:
            return in.readDouble();
          case BOOLEAN:
            return in.readBoolean();
          case TIMESTAMP:
            return Times.instant(in.readLong());
          case DATE:
            return LocalDate.ofEpochDay(in.readLong());
          case BINARY:
            return in.readNBytes(in.readInt());
          case DECIMAL:
            {
              int scale = in.readInt();
              return new BigDecimal(new BigInteger(in.readNBytes(in.readInt())), scale);
            }
          case STRUCT:
            {
              Object[] struct = new Object[in.readInt()];
              for (int i = 0; i < struct.length; i++) {
                struct[i] = value();
              }
              return struct;
            }
          case BYTE:
            return in.readByte();
          case SHORT:
            return (short) in.readInt();
          case FLOAT:
            return Float.intBitsToFloat(in.readInt());
          case TIMESTAMP_NTZ:
            return LocalDateTime.ofInstant(Times.instant(in.readLong()), ZoneOffset.UTC);
          case LIST:
            {
              int n = in.readInt();
              List<Object> list = new ArrayList<>(n);
              for (int i = 0; i < n; i++) {
                list.add(value());
              }
              return Collections.unmodifiableList(list);
            }
          case MAP:
            {
              int n = in.readInt();
              Map<Object, Object> map = new LinkedHashMap<>();
              for (int i = 0; i < n; i++) {
                Object key = value();
                map.put(key, value());
              }
              return Collections.unmodifiableMap(map);
            }
          default:
            throw new IllegalStateException(
                "state value has unknown type tag "
                    + tag
                    + "; the checkpoint was written by an incompatible version");
        }
      } catch (IOException e) {
        throw new UncheckedIOException("state entry is truncated", e);
      }
    }
  }

  /** Flips the sign bit so that big-endian bytes of signed longs sort like the numbers. */
  static long sortable(long v) {
    return v ^ Long.MIN_VALUE;
  }

  /** Encodes the values at {@code columns} of {@code row}. */
  static byte[] key(Object[] row, int[] columns) {
    Writer w = new Writer();
    for (int c : columns) {
      w.value(row[c]);
    }
    return w.toBytes();
  }

  /** Decodes {@code count} values written one after another from {@code offset}. */
  static Object[] values(byte[] bytes, int offset, int count) {
    Reader r = new Reader(bytes, offset);
    Object[] out = new Object[count];
    for (int i = 0; i < count; i++) {
      out[i] = r.value();
    }
    return out;
  }
}
