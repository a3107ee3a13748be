package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.CorruptCheckpointException;
import dev.tributary.checkpoint.internal.CheckpointErrors;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The binary format of changelog ({@code .delta}) and snapshot ({@code .snapshot}) files, all
 * integers big-endian:
 *
 * <pre>
 * magic          8 bytes  "TRBSTATE"
 * format         int32    2 (1 is still read)
 * kind           byte     'D' changelog, 'S' snapshot
 * stateVersion   int64    the version the file belongs to
 * record*        byte tag 1 = put: int32 keyLength, key, int32 valueLength, value
 *                         2 = delete: int32 keyLength, key
 *                         3 = delete range: int32 fromLength, from, int32 toLength, to
 *                             (every key k with from &lt;= k &lt; to)
 * end            byte tag 0, int64 recordCount, int32 CRC-32C of every byte before it
 * </pre>
 *
 * A snapshot holds only puts, in strictly ascending unsigned-byte key order (each key once). A
 * changelog of format 2 is the batch's operations in the order the operator made them, applied in
 * that order (a key may appear more than once); format 1 changelogs held each key once, in key
 * order, and no range deletes. The end marker, count and checksum make truncation and corruption
 * detectable.
 */
public final class StateFileFormat {
  public static final byte CHANGELOG = 'D';
  public static final byte SNAPSHOT = 'S';

  static final int FORMAT = 2;
  private static final byte[] MAGIC = "TRBSTATE".getBytes(StandardCharsets.US_ASCII);
  private static final byte END = 0;
  static final byte PUT = 1;
  static final byte DELETE = 2;
  static final byte DELETE_RANGE = 3;
  // Keys and values are far smaller in practice; the bound turns a corrupt length into a clear
  // error instead of an attempt to allocate gigabytes.
  private static final int MAX_LENGTH = 256 << 20;
  // Records are small; checksumming them one write at a time would cost more than writing them.
  private static final int BUFFER = 1 << 16;

  private StateFileFormat() {}

  /** Receives the records of a file being read, in file order. */
  public interface RecordSink {
    /** A put, or a delete if {@code value} is null. */
    void accept(byte[] key, byte[] value) throws IOException;

    /** A delete of every key in [{@code from}, {@code to}); only changelogs have these. */
    default void deleteRange(byte[] from, byte[] to) throws IOException {
      throw new UnsupportedOperationException("range delete");
    }
  }

  /** Writes a snapshot; {@link #finish()} writes the end marker and checksum. */
  public static final class Writer {
    private final OutputStream target;
    private final CheckedOutputStream checked;
    private final BufferedOutputStream buffered;
    private final DataOutputStream out;
    private byte[] previousKey;
    private long records;

    public Writer(OutputStream target, long stateVersion) throws IOException {
      this.target = target;
      this.checked = new CheckedOutputStream(target, new CRC32C());
      this.buffered = new BufferedOutputStream(checked, BUFFER);
      this.out = new DataOutputStream(buffered);
      out.write(header(SNAPSHOT, stateVersion));
    }

    /** Appends a put; keys must come in strictly ascending order. */
    public void record(byte[] key, byte[] value) throws IOException {
      if (previousKey != null && Arrays.compareUnsigned(previousKey, key) >= 0) {
        throw new IllegalArgumentException("snapshot records must be in ascending key order");
      }
      out.writeByte(PUT);
      out.writeInt(key.length);
      out.write(key);
      out.writeInt(value.length);
      out.write(value);
      previousKey = key;
      records++;
    }

    /** Writes the end marker, count and checksum, and flushes; does not close the target. */
    public void finish() throws IOException {
      out.writeByte(END);
      out.writeLong(records);
      out.flush();
      // The checksum does not cover itself, so it goes straight to the target.
      DataOutputStream tail = new DataOutputStream(target);
      tail.writeInt((int) checked.getChecksum().getValue());
      tail.flush();
    }
  }

  /**
   * A changelog being recorded: the operations of one batch, encoded as they happen (about {@code 9
   * + key + value} bytes each on the heap until the commit).
   */
  public static final class ChangeLog {
    // The operations as they are encoded, in ops[0, size): written in place (a DataOutputStream
    // over a ByteArrayOutputStream took a lock per field, a tenth of the seed query's dedup
    // thread).
    private byte[] ops = new byte[1 << 16];
    private int size;
    private long records;

    public void put(byte[] key, byte[] value) {
      write(PUT, key, value);
    }

    public void delete(byte[] key) {
      write(DELETE, key, null);
    }

    public void deleteRange(byte[] from, byte[] to) {
      write(DELETE_RANGE, from, to);
    }

    public boolean isEmpty() {
      return records == 0;
    }

    public void clear() {
      size = 0;
      records = 0;
    }

    /** The whole changelog file of {@code stateVersion} holding the operations so far. */
    public byte[] toFile(long stateVersion) {
      byte[] header = header(CHANGELOG, stateVersion);
      ByteBuffer file = ByteBuffer.allocate(header.length + size + 1 + 8 + 4);
      file.put(header).put(ops, 0, size).put(END).putLong(records);
      CRC32C crc = new CRC32C();
      crc.update(file.array(), 0, file.position());
      file.putInt((int) crc.getValue());
      return file.array();
    }

    /** tag, key length (4 bytes, big-endian), key[, second's length, second]. */
    private void write(byte tag, byte[] key, byte[] second) {
      int needed = 1 + 4 + key.length + (second == null ? 0 : 4 + second.length);
      if (ops.length - size < needed) {
        long grown = Math.max((long) ops.length * 2, (long) size + needed);
        if (grown > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException(
              "a state changelog cannot exceed 2 GB in one batch: lower max-offsets-per-trigger");
        }
        ops = Arrays.copyOf(ops, (int) grown);
      }
      ops[size++] = tag;
      size = putBytes(key, size);
      if (second != null) {
        size = putBytes(second, size);
      }
      records++;
    }

    private int putBytes(byte[] bytes, int at) {
      int n = bytes.length;
      ops[at] = (byte) (n >>> 24);
      ops[at + 1] = (byte) (n >>> 16);
      ops[at + 2] = (byte) (n >>> 8);
      ops[at + 3] = (byte) n;
      System.arraycopy(bytes, 0, ops, at + 4, n);
      return at + 4 + n;
    }
  }

  private static byte[] header(byte kind, long stateVersion) {
    return ByteBuffer.allocate(MAGIC.length + 4 + 1 + 8)
        .put(MAGIC)
        .putInt(FORMAT)
        .put(kind)
        .putLong(stateVersion)
        .array();
  }

  /**
   * Reads a whole file from {@code in} (which the caller closes), checking magic, format, kind,
   * version, key order, end marker, count and checksum.
   *
   * @return the number of records
   * @throws CorruptCheckpointException naming {@code key} if anything does not match
   */
  public static long read(
      InputStream in,
      String location,
      String key,
      byte expectedKind,
      long expectedVersion,
      RecordSink sink)
      throws IOException {
    CheckedInputStream checked = new CheckedInputStream(in, new CRC32C());
    DataInputStream data = new DataInputStream(checked);
    try {
      byte[] magic = new byte[MAGIC.length];
      data.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw corrupt(location, key, "it does not start with the state file magic 'TRBSTATE'");
      }
      int format = data.readInt();
      if (format > FORMAT || format < 1) {
        throw corrupt(
            location,
            key,
            "state file format "
                + format
                + " is unknown (this release"
                + " reads format "
                + FORMAT
                + (format > FORMAT
                    ? "): written by a newer Tributary?" + " Upgrade Tributary"
                    : ")"));
      }
      byte kind = data.readByte();
      long version = data.readLong();
      if (kind != expectedKind || version != expectedVersion) {
        throw corrupt(
            location,
            key,
            "it holds "
                + describe(kind)
                + " of version "
                + version
                + " but its name says "
                + describe(expectedKind)
                + " of version "
                + expectedVersion);
      }
      // Snapshots, and changelogs of format 1, hold each key once in ascending order.
      boolean ordered = kind == SNAPSHOT || format == 1;
      byte[] previous = null;
      long records = 0;
      while (true) {
        byte tag = data.readByte();
        if (tag == END) {
          break;
        }
        boolean known =
            tag == PUT
                || (kind == CHANGELOG && (tag == DELETE || (tag == DELETE_RANGE && format >= 2)));
        if (!known) {
          throw corrupt(location, key, "unexpected record tag " + tag + " at record " + records);
        }
        byte[] k = readBytes(data, location, key, records);
        byte[] v = tag == DELETE ? null : readBytes(data, location, key, records);
        if (ordered && previous != null && Arrays.compareUnsigned(previous, k) >= 0) {
          throw corrupt(location, key, "record " + records + " is out of key order");
        }
        if (tag == DELETE_RANGE) {
          sink.deleteRange(k, v);
        } else {
          sink.accept(k, v);
        }
        previous = k;
        records++;
      }
      long count = data.readLong();
      int expectedCrc = (int) checked.getChecksum().getValue();
      int crc = new DataInputStream(in).readInt();
      if (count != records) {
        throw corrupt(
            location, key, "it holds " + records + " records but its trailer says " + count);
      }
      if (crc != expectedCrc) {
        throw corrupt(location, key, "its CRC-32C checksum does not match its content");
      }
      if (in.read() != -1) {
        throw corrupt(location, key, "there are bytes after its checksum");
      }
      return records;
    } catch (EOFException truncated) {
      throw corrupt(location, key, "it ends before its end marker and checksum (truncated)");
    }
  }

  private static byte[] readBytes(DataInputStream data, String location, String key, long record)
      throws IOException {
    int length = data.readInt();
    if (length < 0 || length > MAX_LENGTH) {
      throw corrupt(location, key, "record " + record + " has an impossible length " + length);
    }
    byte[] bytes = new byte[length];
    data.readFully(bytes);
    return bytes;
  }

  private static String describe(byte kind) {
    return kind == CHANGELOG ? "a changelog" : kind == SNAPSHOT ? "a snapshot" : "kind " + kind;
  }

  private static CorruptCheckpointException corrupt(String location, String key, String problem) {
    return CheckpointErrors.corrupt(location, key, problem);
  }
}
