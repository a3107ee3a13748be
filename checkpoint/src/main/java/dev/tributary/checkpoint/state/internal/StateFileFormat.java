package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.CorruptCheckpointException;
import dev.tributary.checkpoint.internal.CheckpointErrors;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
 * format         int32    1
 * kind           byte     'D' changelog, 'S' snapshot
 * stateVersion   int64    the version the file belongs to
 * record*        byte tag 1 = put: int32 keyLength, key, int32 valueLength, value
 *                         2 = delete: int32 keyLength, key
 * end            byte tag 0, int64 recordCount, int32 CRC-32C of every byte before it
 * </pre>
 *
 * Records are in strictly ascending unsigned-byte key order (each key once); snapshots hold only
 * puts. The end marker, count and checksum make truncation and corruption detectable.
 */
public final class StateFileFormat {
  public static final byte CHANGELOG = 'D';
  public static final byte SNAPSHOT = 'S';

  static final int FORMAT = 1;
  private static final byte[] MAGIC = "TRBSTATE".getBytes(StandardCharsets.US_ASCII);
  private static final byte END = 0;
  private static final byte PUT = 1;
  private static final byte DELETE = 2;
  // Keys and values are far smaller in practice; the bound turns a corrupt length into a clear
  // error instead of an attempt to allocate gigabytes.
  private static final int MAX_LENGTH = 256 << 20;

  private StateFileFormat() {}

  /** Receives the records of a file being read. A null value is a delete. */
  @FunctionalInterface
  public interface RecordSink {
    void accept(byte[] key, byte[] value) throws IOException;
  }

  /** Writes one file; {@link #finish()} writes the end marker and checksum. */
  public static final class Writer {
    private final OutputStream target;
    private final CheckedOutputStream checked;
    private final DataOutputStream out;
    private final byte kind;
    private byte[] previousKey;
    private long records;

    public Writer(OutputStream target, byte kind, long stateVersion) throws IOException {
      this.target = target;
      this.checked = new CheckedOutputStream(target, new CRC32C());
      this.out = new DataOutputStream(checked);
      this.kind = kind;
      out.write(MAGIC);
      out.writeInt(FORMAT);
      out.writeByte(kind);
      out.writeLong(stateVersion);
    }

    /** Appends a put, or a delete if {@code value} is null (changelogs only). */
    public void record(byte[] key, byte[] value) throws IOException {
      if (previousKey != null && Arrays.compareUnsigned(previousKey, key) >= 0) {
        throw new IllegalArgumentException("state file records must be in ascending key order");
      }
      if (value == null && kind == SNAPSHOT) {
        throw new IllegalArgumentException("a snapshot holds no deletes");
      }
      out.writeByte(value == null ? DELETE : PUT);
      out.writeInt(key.length);
      out.write(key);
      if (value != null) {
        out.writeInt(value.length);
        out.write(value);
      }
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
   * Reads a whole file from {@code in} (which the caller closes), checking magic, format, kind,
   * version, key order, end marker, count and checksum.
   *
   * @return the number of records
   * @throws CorruptCheckpointException naming {@code key} if anything does not match
   */
  public static long read(InputStream in, String location, String key, byte expectedKind,
      long expectedVersion, RecordSink sink) throws IOException {
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
        throw corrupt(location, key, "state file format " + format + " is unknown (this release"
            + " reads format " + FORMAT + (format > FORMAT ? "): written by a newer Tributary?"
                + " Upgrade Tributary" : ")"));
      }
      byte kind = data.readByte();
      long version = data.readLong();
      if (kind != expectedKind || version != expectedVersion) {
        throw corrupt(location, key, "it holds " + describe(kind) + " of version " + version
            + " but its name says " + describe(expectedKind) + " of version " + expectedVersion);
      }
      byte[] previous = null;
      long records = 0;
      while (true) {
        byte tag = data.readByte();
        if (tag == END) {
          break;
        }
        if (tag != PUT && (tag != DELETE || kind == SNAPSHOT)) {
          throw corrupt(location, key, "unexpected record tag " + tag + " at record " + records);
        }
        byte[] k = readBytes(data, location, key, records);
        byte[] v = tag == PUT ? readBytes(data, location, key, records) : null;
        if (previous != null && Arrays.compareUnsigned(previous, k) >= 0) {
          throw corrupt(location, key, "record " + records + " is out of key order");
        }
        sink.accept(k, v);
        previous = k;
        records++;
      }
      long count = data.readLong();
      int expectedCrc = (int) checked.getChecksum().getValue();
      int crc = new DataInputStream(in).readInt();
      if (count != records) {
        throw corrupt(location, key, "it holds " + records + " records but its trailer says "
            + count);
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
