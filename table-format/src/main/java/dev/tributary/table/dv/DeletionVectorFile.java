package dev.tributary.table.dv;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * A deletion vector file's bytes (Delta PROTOCOL.md, "Deletion Vector File Storage Format"), all
 * numbers big-endian:
 *
 * <pre>
 * byte   format version, 1
 * per bitmap:
 *   int32  size of the serialized bitmap (n)
 *   n      the bitmap ({@link RoaringBitmapArray}, PORTABLE)
 *   int32  CRC-32 of the n bitmap bytes
 * </pre>
 *
 * A descriptor's {@code offset} points at a bitmap's size field (1 for the first bitmap) and its
 * {@code sizeInBytes} is {@code n}. Plain bytes, no I/O: {@link DeletionVectors} reads and writes
 * the files.
 */
public final class DeletionVectorFile {
  /** The only format version there is. */
  public static final byte VERSION = 1;

  private DeletionVectorFile() {}

  /** Bytes of a file holding {@code bitmaps}, and where each one is. */
  public record Encoded(byte[] bytes, List<Entry> entries) {
    public Encoded {
      entries = List.copyOf(entries);
    }
  }

  /**
   * One bitmap's place in a file.
   *
   * @param offset of its size field
   * @param sizeInBytes of its serialized bitmap
   * @param cardinality rows it holds
   */
  public record Entry(int offset, int sizeInBytes, long cardinality) {}

  /** A file holding the bitmaps in order. */
  public static Encoded encode(List<RoaringBitmapArray> bitmaps) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(VERSION);
    List<Entry> entries = new ArrayList<>(bitmaps.size());
    for (RoaringBitmapArray bitmap : bitmaps) {
      byte[] data = bitmap.serialize();
      entries.add(new Entry(out.size(), data.length, bitmap.cardinality()));
      out.writeBytes(ByteBuffer.allocate(4).putInt(data.length).array());
      out.writeBytes(data);
      out.writeBytes(ByteBuffer.allocate(4).putInt(checksum(data)).array());
    }
    return new Encoded(out.toByteArray(), entries);
  }

  /** The number of bytes of one entry: size field, bitmap, checksum. */
  public static int entryLength(int sizeInBytes) {
    return sizeInBytes + 8;
  }

  /**
   * The bitmap of one entry, checked against its declared size and its checksum.
   *
   * @param entry the entry's bytes: size field, bitmap, checksum ({@link #entryLength})
   * @param sizeInBytes the size the descriptor declares
   * @throws IllegalArgumentException if the size differs, the checksum does not match, or the bytes
   *     are not a valid bitmap
   */
  public static RoaringBitmapArray decodeEntry(byte[] entry, int sizeInBytes) {
    if (entry.length != entryLength(sizeInBytes)) {
      throw new IllegalArgumentException(
          "expected " + entryLength(sizeInBytes) + " bytes for the entry, got " + entry.length);
    }
    ByteBuffer buffer = ByteBuffer.wrap(entry);
    int size = buffer.getInt();
    if (size != sizeInBytes) {
      throw new IllegalArgumentException(
          "the file stores a bitmap of " + size + " bytes where the log says " + sizeInBytes);
    }
    byte[] data = new byte[size];
    buffer.get(data);
    int stored = buffer.getInt();
    int actual = checksum(data);
    if (stored != actual) {
      throw new IllegalArgumentException(
          String.format(
              "checksum mismatch: the file stores CRC-32 %08x, the bitmap's bytes give %08x",
              stored, actual));
    }
    return RoaringBitmapArray.deserialize(data);
  }

  private static int checksum(byte[] data) {
    CRC32 crc = new CRC32();
    crc.update(data);
    return (int) crc.getValue();
  }
}
