package dev.tributary.service.parse.protobuf;

import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * The message indexes of the Confluent Protobuf wire format: after the magic byte and the 4-byte
 * schema id, which message of the schema's file the payload is. Encoded as Kafka's signed varints
 * (zig-zag, at most 5 bytes each): a count, then that many indexes, the first into the file's
 * top-level messages and each next one into the nested messages of the one before. The common case,
 * the first top-level message ({@code [0]}), is written as the single byte {@code 0} (a count of
 * zero), though the long form {@code 1, 0} means the same.
 *
 * <pre>
 *   00 | 00 00 00 2a | 00          | payload...   schema 42, first message
 *   00 | 00 00 00 2a | 04 02 04    | payload...   schema 42, message [1, 2]: 3rd nested of the 2nd
 * </pre>
 *
 * @param indexes the path from the file to the message, never empty
 */
public record MessageIndexes(List<Integer> indexes) {
  /** The first top-level message. */
  public static final MessageIndexes FIRST = new MessageIndexes(List.of(0));

  /** More levels than any sane schema nests; bounds the work a corrupt count can cause. */
  static final int MAX_DEPTH = 64;

  public MessageIndexes {
    indexes = List.copyOf(indexes);
    if (indexes.isEmpty()) {
      throw new IllegalArgumentException(
          "message indexes must not be empty; [0] is the first message");
    }
  }

  /** The indexes read from the start of a payload, and how many bytes they took. */
  public record Read(MessageIndexes indexes, int length) {}

  /**
   * Reads the indexes at {@code buffer[offset]}, within {@code length} bytes.
   *
   * @throws IllegalArgumentException with a message for the quarantine, when the bytes end inside
   *     them, a varint is longer than 5 bytes, or the count or an index is negative or absurd
   */
  public static Read read(byte[] buffer, int offset, int length) {
    int[] position = {offset};
    int end = offset + length;
    int count = readVarint(buffer, position, end);
    if (count == 0) {
      return new Read(FIRST, position[0] - offset);
    }
    if (count < 0 || count > MAX_DEPTH) {
      throw new IllegalArgumentException(ProtobufErrors.badIndexCount(count));
    }
    Integer[] path = new Integer[count];
    for (int i = 0; i < count; i++) {
      path[i] = readVarint(buffer, position, end);
      if (path[i] < 0) {
        throw new IllegalArgumentException(ProtobufErrors.negativeIndex(path[i]));
      }
    }
    return new Read(new MessageIndexes(List.of(path)), position[0] - offset);
  }

  /** The encoding a Confluent serializer writes (the single byte 0 for {@link #FIRST}). */
  public byte[] toBytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (equals(FIRST)) {
      out.write(0);
      return out.toByteArray();
    }
    writeVarint(indexes.size(), out);
    for (int index : indexes) {
      writeVarint(index, out);
    }
    return out.toByteArray();
  }

  private static int readVarint(byte[] b, int[] position, int end) {
    int raw = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (position[0] >= end) {
        throw new IllegalArgumentException(ProtobufErrors.truncatedIndexes());
      }
      int next = b[position[0]++];
      raw |= (next & 0x7f) << shift;
      if ((next & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw new IllegalArgumentException(ProtobufErrors.varintTooLong());
  }

  private static void writeVarint(int value, ByteArrayOutputStream out) {
    int v = (value << 1) ^ (value >> 31);
    while ((v & ~0x7f) != 0) {
      out.write((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }
}
