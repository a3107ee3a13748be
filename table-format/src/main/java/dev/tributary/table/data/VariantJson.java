package dev.tributary.table.data;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.Base64;
import java.util.Locale;
import java.util.UUID;

/**
 * Renders a value in the Variant binary encoding (Parquet's VariantEncoding.md, which Delta's
 * {@code variantType} feature stores as the {@code value} and {@code metadata} binaries of a
 * column) as the JSON text Spark 4.0's {@code to_json} gives for it with the session time zone UTC,
 * character for character ({@code org.apache.spark.types.variant.Variant.toJson}):
 *
 * <ul>
 *   <li>objects in the order their fields are stored (the encoding sorts them by key), no spaces;
 *   <li>{@code int8}..{@code int64} as integers; {@code double} and {@code float} as Java's {@code
 *       Double.toString} / {@code Float.toString} ({@code 1.0E20}, {@code NaN} as it is);
 *   <li>{@code decimal4/8/16} without trailing zeros, never in exponent form ({@code 1.50} is
 *       {@code 1.5}, {@code 1E+2} is {@code 100});
 *   <li>quoted: dates ({@code "2024-02-29"}), timestamps ({@code "2024-02-29 10:00:00.5+00:00"}),
 *       timestamps without time zone ({@code "2024-02-29 10:00:00.5"}: ISO local time, the fraction
 *       with no trailing zeros, none when zero), binary as Base64, UUIDs in hex with dashes;
 *   <li>strings escaped as Jackson's generator escapes them ({@code "}, {@code \}, control
 *       characters; nothing else).
 * </ul>
 *
 * <p>Spark 4.0 has no rendering for the types the encoding added after it (17 {@code time}, 18/19
 * timestamps in nanoseconds): this class renders them as the microsecond kinds are, with the
 * fraction up to nine digits, and {@code time} as a quoted ISO local time.
 *
 * @see <a
 *     href="https://github.com/apache/parquet-format/blob/master/VariantEncoding.md">VariantEncoding.md</a>
 */
final class VariantJson {
  private static final int PRIMITIVE = 0;
  private static final int SHORT_STRING = 1;
  private static final int OBJECT = 2;
  private static final int ARRAY = 3;

  private static final DateTimeFormatter LOCAL =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .appendLiteral(' ')
          .append(DateTimeFormatter.ISO_LOCAL_TIME)
          .toFormatter(Locale.US);
  private static final DateTimeFormatter WITH_OFFSET =
      new DateTimeFormatterBuilder()
          .append(LOCAL)
          .appendOffset("+HH:MM", "+00:00")
          .toFormatter(Locale.US);

  private final byte[] value;
  private final byte[] metadata;
  private final int dictionarySize;
  private final int keyOffsetSize;
  private final int keysStart;
  private final StringBuilder out = new StringBuilder();

  private VariantJson(byte[] value, byte[] metadata) {
    this.value = value;
    this.metadata = metadata;
    if (metadata.length < 1 || (metadata[0] & 0x0F) != 1) {
      throw new IllegalArgumentException(
          "variant metadata is not version 1"
              + (metadata.length < 1 ? " (empty)" : " (version " + (metadata[0] & 0x0F) + ")"));
    }
    keyOffsetSize = ((metadata[0] >> 6) & 3) + 1;
    dictionarySize = unsigned(metadata, 1, keyOffsetSize, "metadata");
    keysStart = 1 + (dictionarySize + 2) * keyOffsetSize;
    if (keysStart > metadata.length) {
      throw new IllegalArgumentException(
          "variant metadata of " + metadata.length + " bytes is too short for its dictionary");
    }
  }

  /**
   * The JSON text of a variant.
   *
   * @throws IllegalArgumentException if the bytes are not a valid variant: the message names the
   *     byte offset and what is wrong there
   */
  static String toJson(byte[] value, byte[] metadata) {
    VariantJson json = new VariantJson(value, metadata);
    json.append(0);
    return json.out.toString();
  }

  private void append(int pos) {
    int header = u8(pos);
    int basic = header & 3;
    int info = header >>> 2;
    switch (basic) {
      case SHORT_STRING -> appendString(pos + 1, info);
      case OBJECT -> appendObject(pos, info);
      case ARRAY -> appendArray(pos, info);
      default -> appendPrimitive(pos, info);
    }
  }

  private void appendObject(int pos, int info) {
    int offsetSize = (info & 3) + 1;
    int idSize = ((info >> 2) & 3) + 1;
    int countSize = ((info >> 4) & 1) == 1 ? 4 : 1;
    int count = unsigned(value, pos + 1, countSize, "value");
    int idStart = pos + 1 + countSize;
    int offsetStart = idStart + count * idSize;
    int dataStart = offsetStart + (count + 1) * offsetSize;
    out.append('{');
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        out.append(',');
      }
      appendQuoted(key(unsigned(value, idStart + i * idSize, idSize, "value")));
      out.append(':');
      append(dataStart + unsigned(value, offsetStart + i * offsetSize, offsetSize, "value"));
    }
    out.append('}');
  }

  private void appendArray(int pos, int info) {
    int offsetSize = (info & 3) + 1;
    int countSize = ((info >> 2) & 1) == 1 ? 4 : 1;
    int count = unsigned(value, pos + 1, countSize, "value");
    int offsetStart = pos + 1 + countSize;
    int dataStart = offsetStart + (count + 1) * offsetSize;
    out.append('[');
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        out.append(',');
      }
      append(dataStart + unsigned(value, offsetStart + i * offsetSize, offsetSize, "value"));
    }
    out.append(']');
  }

  private void appendPrimitive(int pos, int type) {
    int at = pos + 1;
    switch (type) {
      case 0 -> out.append("null");
      case 1 -> out.append("true");
      case 2 -> out.append("false");
      case 3 -> out.append(signed(at, 1));
      case 4 -> out.append(signed(at, 2));
      case 5 -> out.append(signed(at, 4));
      case 6 -> out.append(signed(at, 8));
      case 7 -> out.append(Double.longBitsToDouble(signed(at, 8)));
      case 8 -> appendDecimal(at, 4);
      case 9 -> appendDecimal(at, 8);
      case 10 -> appendDecimal(at, 16);
      case 11 -> appendQuoted(LocalDate.ofEpochDay((int) signed(at, 4)).toString(), false);
      case 12 -> appendQuoted(WITH_OFFSET.format(instant(signed(at, 8), 1_000)), false);
      case 13 -> appendQuoted(LOCAL.format(instant(signed(at, 8), 1_000)), false);
      case 14 -> out.append(Float.intBitsToFloat((int) signed(at, 4)));
      case 15 -> {
        int length = unsigned(value, at, 4, "value");
        appendQuoted(
            Base64.getEncoder().encodeToString(slice(value, at + 4, length, "value")), false);
      }
      case 16 -> appendString(at + 4, unsigned(value, at, 4, "value"));
      case 17 -> {
        LocalTime time = LocalTime.ofNanoOfDay(signed(at, 8) * 1_000);
        appendQuoted(DateTimeFormatter.ISO_LOCAL_TIME.format(time), false);
      }
      case 18 -> appendQuoted(WITH_OFFSET.format(instant(signed(at, 8), 1)), false);
      case 19 -> appendQuoted(LOCAL.format(instant(signed(at, 8), 1)), false);
      case 20 -> {
        check(value, at, 16, "value");
        long high = 0;
        long low = 0;
        for (int i = 0; i < 8; i++) {
          high = (high << 8) | (value[at + i] & 0xFF); // big-endian, unlike every other type
          low = (low << 8) | (value[at + 8 + i] & 0xFF);
        }
        appendQuoted(new UUID(high, low).toString(), false);
      }
      default ->
          throw new IllegalArgumentException(
              "variant value has unknown primitive type " + type + " at byte " + pos);
    }
  }

  private void appendDecimal(int at, int width) {
    int scale = u8(at);
    check(value, at + 1, width, "value");
    byte[] bigEndian = new byte[width];
    for (int i = 0; i < width; i++) {
      bigEndian[i] = value[at + width - i];
    }
    BigDecimal decimal = new BigDecimal(new BigInteger(bigEndian), scale);
    out.append(decimal.stripTrailingZeros().toPlainString());
  }

  private void appendString(int at, int length) {
    appendQuoted(new String(slice(value, at, length, "value"), StandardCharsets.UTF_8));
  }

  private void appendQuoted(String text) {
    appendQuoted(text, true);
  }

  /** A JSON string; text that needs no escaping (dates, Base64, UUIDs) says so. */
  private void appendQuoted(String text, boolean escape) {
    out.append('"');
    if (escape) {
      out.append(JsonStringEncoder.getInstance().quoteAsString(text));
    } else {
      out.append(text);
    }
    out.append('"');
  }

  private String key(int id) {
    if (id >= dictionarySize) {
      throw new IllegalArgumentException(
          "variant value names key " + id + " but the metadata has " + dictionarySize);
    }
    int start = unsigned(metadata, 1 + (id + 1) * keyOffsetSize, keyOffsetSize, "metadata");
    int end = unsigned(metadata, 1 + (id + 2) * keyOffsetSize, keyOffsetSize, "metadata");
    return new String(
        slice(metadata, keysStart + start, end - start, "metadata"), StandardCharsets.UTF_8);
  }

  /** Micro- or nanoseconds since the epoch, in UTC (Spark's session time zone in our tests). */
  private static ZonedDateTime instant(long units, long nanosPerUnit) {
    long perSecond = 1_000_000_000L / nanosPerUnit;
    return Instant.ofEpochSecond(
            Math.floorDiv(units, perSecond), Math.floorMod(units, perSecond) * nanosPerUnit)
        .atZone(ZoneOffset.UTC);
  }

  private int u8(int pos) {
    check(value, pos, 1, "value");
    return value[pos] & 0xFF;
  }

  /** A little-endian two's-complement integer of {@code width} bytes. */
  private long signed(int at, int width) {
    check(value, at, width, "value");
    long result = 0;
    for (int i = width - 1; i >= 0; i--) {
      result = (result << 8) | (value[at + i] & 0xFF);
    }
    int unused = 64 - 8 * width;
    return (result << unused) >> unused;
  }

  /** A little-endian unsigned integer of 1..4 bytes (sizes, offsets, ids). */
  private static int unsigned(byte[] bytes, int at, int width, String which) {
    check(bytes, at, width, which);
    long result = 0;
    for (int i = width - 1; i >= 0; i--) {
      result = (result << 8) | (bytes[at + i] & 0xFF);
    }
    if (result > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "variant " + which + " has a size of " + result + " at byte " + at);
    }
    return (int) result;
  }

  private static byte[] slice(byte[] bytes, int at, int length, String which) {
    check(bytes, at, length, which);
    byte[] out = new byte[length];
    System.arraycopy(bytes, at, out, 0, length);
    return out;
  }

  private static void check(byte[] bytes, int at, int length, String which) {
    if (at < 0 || length < 0 || at + length > bytes.length) {
      throw new IllegalArgumentException(
          "variant "
              + which
              + " of "
              + bytes.length
              + " bytes ends before byte "
              + ((long) at + length)
              + " it refers to");
    }
  }
}
