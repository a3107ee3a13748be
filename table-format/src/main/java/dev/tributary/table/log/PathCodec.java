package dev.tributary.table.log;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Delta stores file paths as URIs (RFC 2396): a relative path is percent-encoded. We encode every
 * byte except unreserved characters, {@code /} and {@code =} (which Hive-style partition
 * directories need), so that a path never looks like a scheme ({@code a:b}) or holds a space.
 * Decoding accepts any percent-encoding (other writers encode less), and never turns {@code +} into
 * a space (that is form encoding, not URI encoding).
 */
public final class PathCodec {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private PathCodec() {}

  /** The path as it appears in the log. */
  public static String encode(String path) {
    StringBuilder out = new StringBuilder(path.length() + 16);
    for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~'
          || c == '/'
          || c == '=') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  /**
   * The object key of a path from the log.
   *
   * @throws IllegalArgumentException if a percent escape is malformed
   */
  public static String decode(String encoded) {
    if (encoded.indexOf('%') < 0) {
      return encoded;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '%') {
        if (i + 2 >= encoded.length()) {
          throw new IllegalArgumentException("truncated percent escape in path '" + encoded + "'");
        }
        int hi = Character.digit(encoded.charAt(i + 1), 16);
        int lo = Character.digit(encoded.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("bad percent escape in path '" + encoded + "'");
        }
        bytes.write((hi << 4) | lo);
        i += 2;
      } else {
        byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (Character.isHighSurrogate(c) && i + 1 < encoded.length()) {
          utf8 = encoded.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
          i++;
        }
        bytes.writeBytes(utf8);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** True for paths we cannot resolve against the table root (absolute URIs or paths). */
  static boolean isAbsolute(String decoded) {
    return decoded.startsWith("/") || decoded.contains("://");
  }
}
