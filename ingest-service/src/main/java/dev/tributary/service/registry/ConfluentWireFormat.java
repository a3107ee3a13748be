package dev.tributary.service.registry;

/**
 * The Confluent wire format every registry-aware serializer writes (Avro, Protobuf, JSON Schema):
 *
 * <pre>
 *   byte 0      magic byte, always 0
 *   bytes 1-4   the schema id, a big-endian signed 32-bit int (the registry's global id)
 *   bytes 5-    the payload: Avro binary; for Protobuf the message indexes (zig-zag varints) and then
 *               the message
 * </pre>
 *
 * Example: {@code 00 00 00 00 2a 02 61} is schema id 42 and the Avro body {@code 02 61} (the string
 * "a").
 */
public final class ConfluentWireFormat {
  /** The only magic byte defined. */
  public static final byte MAGIC = 0;

  /** Magic byte and schema id. */
  public static final int HEADER_SIZE = 5;

  private ConfluentWireFormat() {}

  /**
   * Why {@code length} bytes from {@code offset} are not a wire-format record (too short, bad magic
   * byte), or null when the header is well-formed. The message is for the quarantine table.
   */
  public static String headerProblem(byte[] bytes, int offset, int length) {
    if (length < HEADER_SIZE) {
      return length
          + " bytes, shorter than the 5-byte Confluent wire header (magic byte 0 and a 4-byte schema id)";
    }
    if (bytes[offset] != MAGIC) {
      return String.format(
          "bad magic byte 0x%02x (the Confluent wire format starts with 0x00); the record was not"
              + " written by a schema-registry serializer%s",
          bytes[offset] & 0xff,
          bytes[offset] == '{' ? " (it looks like JSON: use format.json)" : "");
    }
    return null;
  }

  /** The schema id of a record whose header is well-formed ({@link #headerProblem} is null). */
  public static int schemaId(byte[] bytes, int offset) {
    return ((bytes[offset + 1] & 0xff) << 24)
        | ((bytes[offset + 2] & 0xff) << 16)
        | ((bytes[offset + 3] & 0xff) << 8)
        | (bytes[offset + 4] & 0xff);
  }

  /** The header for {@code schemaId}, for producers (tests, the demo). */
  public static byte[] header(int schemaId) {
    return new byte[] {
      MAGIC,
      (byte) (schemaId >>> 24),
      (byte) (schemaId >>> 16),
      (byte) (schemaId >>> 8),
      (byte) schemaId
    };
  }
}
