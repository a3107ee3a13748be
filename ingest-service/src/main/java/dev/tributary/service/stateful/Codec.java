package dev.tributary.service.stateful;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Binary encoding of row values for state keys and values. Every value is a type tag followed by
 * a self-delimiting body, so a concatenation of a fixed number of values never is a prefix of
 * another such concatenation: prefix scans over "window + group key" stay exact.
 * Times in keys use {@link #sortable(long)} so that RocksDB's unsigned byte order is time order.
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

  private Codec() {}

  /** A growable buffer that encodes values. */
  static final class Writer {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    private final DataOutputStream out = new DataOutputStream(bytes);

    Writer raw(byte b) {
      bytes.write(b);
      return this;
    }

    Writer sortableLong(long v) {
      try {
        out.writeLong(sortable(v));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    Writer bytes(byte[] b) {
      bytes.writeBytes(b);
      return this;
    }

    Writer value(Object v) {
      try {
        if (v == null) {
          out.writeByte(NULL);
        } else if (v instanceof String s) {
          out.writeByte(STRING);
          byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          out.writeInt(b.length);
          out.write(b);
        } else if (v instanceof Integer i) {
          out.writeByte(INT);
          out.writeInt(i);
        } else if (v instanceof Long l) {
          out.writeByte(LONG);
          out.writeLong(l);
        } else if (v instanceof Double d) {
          out.writeByte(DOUBLE);
          out.writeDouble(d);
        } else if (v instanceof Boolean b) {
          out.writeByte(BOOLEAN);
          out.writeBoolean(b);
        } else if (v instanceof Instant t) {
          out.writeByte(TIMESTAMP);
          out.writeLong(Times.micros(t));
        } else if (v instanceof LocalDate d) {
          out.writeByte(DATE);
          out.writeLong(d.toEpochDay());
        } else if (v instanceof byte[] b) {
          out.writeByte(BINARY);
          out.writeInt(b.length);
          out.write(b);
        } else if (v instanceof BigDecimal d) {
          out.writeByte(DECIMAL);
          out.writeInt(d.scale());
          byte[] b = d.unscaledValue().toByteArray();
          out.writeInt(b.length);
          out.write(b);
        } else {
          throw new IllegalArgumentException("cannot keep a " + v.getClass().getName() + " in state");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    byte[] toBytes() {
      return bytes.toByteArray();
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
            return new String(in.readNBytes(in.readInt()), java.nio.charset.StandardCharsets.UTF_8);
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
          case DECIMAL: {
            int scale = in.readInt();
            return new BigDecimal(new BigInteger(in.readNBytes(in.readInt())), scale);
          }
          default:
            throw new IllegalStateException("state value has unknown type tag " + tag
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
