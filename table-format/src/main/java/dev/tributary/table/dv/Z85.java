package dev.tributary.table.dv;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.UUID;

/**
 * Z85, the Base85 variant of ZeroMQ's RFC 32 that Delta uses to put bytes into JSON: every 4 bytes
 * (a big-endian unsigned 32-bit number) become 5 characters of an 85-character alphabet, most
 * significant digit first. Delta uses it for inline deletion vectors and for the UUID in the name
 * of a deletion vector file (16 bytes, 20 characters).
 *
 * <p>Input whose length is not a multiple of 4 is padded with zero bytes on encoding; {@link
 * #decode(String, int)} drops the padding again (Delta stores the unpadded size beside the text).
 */
public final class Z85 {
  private static final char[] ALPHABET =
      ("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")
          .toCharArray();
  private static final int[] DIGITS = new int[128];

  static {
    Arrays.fill(DIGITS, -1);
    for (int i = 0; i < ALPHABET.length; i++) {
      DIGITS[ALPHABET[i]] = i;
    }
  }

  private Z85() {}

  /** The text of {@code bytes}, zero-padded to a multiple of 4 bytes first. */
  public static String encode(byte[] bytes) {
    int groups = (bytes.length + 3) / 4;
    byte[] padded = bytes.length % 4 == 0 ? bytes : Arrays.copyOf(bytes, groups * 4);
    StringBuilder out = new StringBuilder(groups * 5);
    char[] group = new char[5];
    for (int g = 0; g < groups; g++) {
      long value = ByteBuffer.wrap(padded, g * 4, 4).getInt() & 0xFFFFFFFFL;
      for (int i = 4; i >= 0; i--) {
        group[i] = ALPHABET[(int) (value % 85)];
        value /= 85;
      }
      out.append(group);
    }
    return out.toString();
  }

  /**
   * The bytes of {@code text}.
   *
   * @throws IllegalArgumentException if the length is not a multiple of 5, a character is not in
   *     the alphabet, or a group exceeds 32 bits
   */
  public static byte[] decode(String text) {
    if (text.length() % 5 != 0) {
      throw new IllegalArgumentException(
          "Z85 text must have a multiple of 5 characters, has " + text.length());
    }
    ByteBuffer out = ByteBuffer.allocate(text.length() / 5 * 4);
    for (int g = 0; g < text.length(); g += 5) {
      long value = 0;
      for (int i = 0; i < 5; i++) {
        char c = text.charAt(g + i);
        int digit = c < 128 ? DIGITS[c] : -1;
        if (digit < 0) {
          throw new IllegalArgumentException(
              "'" + c + "' at position " + (g + i) + " is not a Z85 character");
        }
        value = value * 85 + digit;
      }
      if (value > 0xFFFFFFFFL) {
        throw new IllegalArgumentException(
            "Z85 group at position " + g + " exceeds 32 bits: '" + text.substring(g, g + 5) + "'");
      }
      out.putInt((int) value);
    }
    return out.array();
  }

  /**
   * The first {@code length} bytes of {@code text}: the inverse of {@link #encode} for input of any
   * length.
   *
   * @throws IllegalArgumentException as {@link #decode(String)}, or if the text holds fewer than
   *     {@code length} bytes or more than 3 bytes of padding
   */
  public static byte[] decode(String text, int length) {
    byte[] bytes = decode(text);
    if (length > bytes.length || bytes.length - length > 3) {
      throw new IllegalArgumentException(
          "Z85 text of " + bytes.length + " bytes cannot hold exactly " + length + " bytes");
    }
    return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
  }

  /** The 20 characters of a UUID: its 16 bytes, most significant first. */
  public static String encodeUuid(UUID uuid) {
    return encode(
        ByteBuffer.allocate(16)
            .putLong(uuid.getMostSignificantBits())
            .putLong(uuid.getLeastSignificantBits())
            .array());
  }

  /**
   * The UUID of 20 characters of Z85.
   *
   * @throws IllegalArgumentException if the text is not 20 Z85 characters
   */
  public static UUID decodeUuid(String text) {
    if (text.length() != 20) {
      throw new IllegalArgumentException(
          "a Z85 UUID has 20 characters, '" + text + "' has " + text.length());
    }
    ByteBuffer bytes = ByteBuffer.wrap(decode(text));
    return new UUID(bytes.getLong(), bytes.getLong());
  }
}
