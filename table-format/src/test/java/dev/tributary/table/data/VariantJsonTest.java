package dev.tributary.table.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.spark.types.variant.Variant;
import org.apache.spark.types.variant.VariantBuilder;
import org.junit.jupiter.api.Test;

/**
 * {@link VariantJson} against hand-built byte sequences of the Variant binary encoding (one per
 * type of Parquet's VariantEncoding.md, and objects and arrays with 1- to 4-byte offsets and ids),
 * each compared with the expected text and with Spark 4.0's own renderer ({@code Variant.toJson} in
 * UTC, what {@code to_json} gives), and against variants Spark builds from JSON ({@code
 * parse_json}).
 */
class VariantJsonTest {
  private static final byte[] NO_KEYS = {0x01, 0x00, 0x00};

  @Test
  void everyPrimitiveTypeIsRenderedAsSparksToJsonRendersIt() {
    assertRendered(primitive(0), "null");
    assertRendered(primitive(1), "true");
    assertRendered(primitive(2), "false");
    assertRendered(primitive(3, 0x80), "-128");
    assertRendered(primitive(4, 0xff, 0x7f), "32767");
    assertRendered(primitive(5, 0x00, 0x00, 0x00, 0x80), "-2147483648");
    assertRendered(primitive(6, le(Long.MIN_VALUE, 8)), "-9223372036854775808");
    assertRendered(primitive(7, le(Double.doubleToLongBits(1.0e20), 8)), "1.0E20");
    assertRendered(primitive(7, le(Double.doubleToLongBits(-0.1), 8)), "-0.1");
    assertRendered(primitive(7, le(Double.doubleToLongBits(Double.NaN), 8)), "NaN");
    assertRendered(primitive(14, le(Float.floatToIntBits(1.1f), 4)), "1.1");
    assertRendered(primitive(14, le(Float.floatToIntBits(3.0e-9f), 4)), "3.0E-9");
    // decimal4: scale 2, unscaled 150 -> 1.50 -> 1.5 (trailing zeros go)
    assertRendered(primitive(8, concat(new byte[] {2}, le(150, 4))), "1.5");
    // scale 0, unscaled 100 -> "100", never 1E+2
    assertRendered(primitive(8, concat(new byte[] {0}, le(100, 4))), "100");
    assertRendered(primitive(8, concat(new byte[] {3}, le(0, 4))), "0");
    // decimal8: scale 10, negative
    assertRendered(
        primitive(9, concat(new byte[] {10}, le(-12345678901234L, 8))), "-1234.5678901234");
    // decimal16: 38 digits, scale 0 (what parse_json makes of an integer beyond int64)
    byte[] big = new java.math.BigInteger("12345678901234567890123456789012345678").toByteArray();
    byte[] sixteen = new byte[16];
    for (int i = 0; i < big.length; i++) {
      sixteen[i] = big[big.length - 1 - i];
    }
    assertRendered(
        primitive(10, concat(new byte[] {0}, sixteen)), "12345678901234567890123456789012345678");
    assertRendered(
        primitive(10, concat(new byte[] {38}, le(-1, 16))),
        "-0.00000000000000000000000000000000000001");
    // date: days since the epoch, before and after it
    assertRendered(primitive(11, le(19782, 4)), "\"2024-02-29\"");
    assertRendered(primitive(11, le(-1, 4)), "\"1969-12-31\"");
    // timestamp (UTC-adjusted) and timestamp_ntz, microseconds
    assertRendered(primitive(12, le(1709200800500000L, 8)), "\"2024-02-29 10:00:00.5+00:00\"");
    assertRendered(primitive(12, le(-1, 8)), "\"1969-12-31 23:59:59.999999+00:00\"");
    assertRendered(primitive(13, le(1709200800000000L, 8)), "\"2024-02-29 10:00:00\"");
    assertRendered(primitive(13, le(1709200800123400L, 8)), "\"2024-02-29 10:00:00.1234\"");
    assertRendered(primitive(15, concat(le(3, 4), new byte[] {1, 2, (byte) 0xff})), "\"AQL/\"");
    assertRendered(longString("a\"b\\c\n\u0001é"), "\"a\\\"b\\\\c\\n\\u0001é\"");
    assertRendered(
        primitive(
            20, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
            0xee, 0xff),
        "\"00112233-4455-6677-8899-aabbccddeeff\"");
    assertRendered(shortString("héllo"), "\"héllo\"");
    assertRendered(shortString(""), "\"\"");
  }

  /** Types newer than Spark 4.0 (its renderer refuses them): rendered as their micro kin. */
  @Test
  void timeAndNanosecondTimestampsAreRenderedAsTheirMicrosecondKin() {
    assertThat(json(primitive(17, le(36000123456L, 8)), NO_KEYS)).isEqualTo("\"10:00:00.123456\"");
    assertThat(json(primitive(18, le(1709200800123456789L, 8)), NO_KEYS))
        .isEqualTo("\"2024-02-29 10:00:00.123456789+00:00\"");
    assertThat(json(primitive(19, le(-1, 8)), NO_KEYS))
        .isEqualTo("\"1969-12-31 23:59:59.999999999\"");
  }

  @Test
  void objectsKeepTheStoredFieldOrderAndArraysNestWithEveryOffsetAndIdSize() {
    byte[] metadata = metadata("a", "b", "c");
    // {"a": 1, "b": [true, null], "c": {"a": "x"}} with 1-byte ids and offsets
    byte[] inner = object(1, 1, false, new int[] {0}, shortString("x"));
    byte[] array = array(1, false, primitive(1), primitive(0));
    byte[] value = object(1, 1, false, new int[] {0, 1, 2}, primitive(3, 1), array, inner);
    assertRendered(value, metadata, "{\"a\":1,\"b\":[true,null],\"c\":{\"a\":\"x\"}}");
    // the same with 4-byte ids and offsets, a 4-byte element count (is_large) and values stored
    // in another order than the fields (offsets point anywhere)
    byte[] wide = object(4, 4, true, new int[] {0, 1, 2}, primitive(3, 1), array, inner);
    assertRendered(wide, metadata, "{\"a\":1,\"b\":[true,null],\"c\":{\"a\":\"x\"}}");
    assertRendered(array(3, true, shortString("s"), primitive(4, 1, 0)), NO_KEYS, "[\"s\",1]");
    assertRendered(array(2, false), NO_KEYS, "[]");
    assertRendered(object(2, 3, false, new int[] {}), NO_KEYS, "{}");
    // keys are escaped; metadata with 2-byte offsets
    byte[] twoByte = metadataWithOffsetSize(2, "q\"uote");
    assertRendered(
        object(1, 2, false, new int[] {0}, primitive(0)), twoByte, "{\"q\\\"uote\":null}");
  }

  @Test
  void whatSparksParseJsonBuildsIsRenderedAsSparkRendersIt() throws Exception {
    for (String json :
        List.of(
            "{\"id\":1,\"name\":\"a\",\"tags\":[\"x\",\"y\"],\"nested\":{\"z\":null,\"b\":false}}",
            "[1,-1,127,128,32767,32768,2147483647,2147483648,9223372036854775807]",
            "[9223372036854775808,-9223372036854775809,123456789012345678901234567890123456]",
            "[1.50,0.000,100.0,1e3,1.5e300,-2.5E-10,3.14159265358979323846264338327950288]",
            "{\"\\u00e9t\\u00e9\":\"\\n\\t\\\"\",\"\":[],\"k\":{}}",
            "\"just a string that is longer than sixty-three bytes, so not a short string\"",
            "null",
            "true")) {
      Variant v = VariantBuilder.parseJson(json, false);
      assertThat(VariantJson.toJson(v.getValue(), v.getMetadata()))
          .as(json)
          .isEqualTo(v.toJson(ZoneOffset.UTC));
    }
    // an object of 300 fields: 2-byte ids and offsets in the value, 2-byte offsets in the metadata
    StringBuilder many = new StringBuilder("{");
    for (int i = 0; i < 300; i++) {
      many.append(i == 0 ? "" : ",").append("\"key").append(i).append("\":").append(i * 1000);
    }
    Variant wide = VariantBuilder.parseJson(many.append('}').toString(), false);
    assertThat(VariantJson.toJson(wide.getValue(), wide.getMetadata()))
        .isEqualTo(wide.toJson(ZoneOffset.UTC));
  }

  @Test
  void malformedBytesAreRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> VariantJson.toJson(primitive(0), new byte[] {0x02, 0, 0}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("variant metadata is not version 1 (version 2)");
    assertThatThrownBy(() -> VariantJson.toJson(primitive(6, 1, 2), NO_KEYS))
        .hasMessage("variant value of 3 bytes ends before byte 9 it refers to");
    assertThatThrownBy(() -> VariantJson.toJson(primitive(21), NO_KEYS))
        .hasMessage("variant value has unknown primitive type 21 at byte 0");
    assertThatThrownBy(
            () -> VariantJson.toJson(object(1, 1, false, new int[] {5}, primitive(0)), NO_KEYS))
        .hasMessage("variant value names key 5 but the metadata has 0");
  }

  private static void assertRendered(byte[] value, String expected) {
    assertRendered(value, NO_KEYS, expected);
  }

  private static void assertRendered(byte[] value, byte[] metadata, String expected) {
    assertThat(json(value, metadata)).isEqualTo(expected);
    assertThat(new Variant(value, metadata).toJson(ZoneOffset.UTC))
        .as("Spark's rendering of the same bytes")
        .isEqualTo(expected);
  }

  private static String json(byte[] value, byte[] metadata) {
    return VariantJson.toJson(value, metadata);
  }

  private static byte[] primitive(int type, int... payload) {
    byte[] out = new byte[1 + payload.length];
    out[0] = (byte) (type << 2);
    for (int i = 0; i < payload.length; i++) {
      out[i + 1] = (byte) payload[i];
    }
    return out;
  }

  private static byte[] primitive(int type, byte[] payload) {
    return concat(new byte[] {(byte) (type << 2)}, payload);
  }

  /** A string of type 16: a 4-byte length, then UTF-8. */
  private static byte[] longString(String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    return primitive(16, concat(le(bytes.length, 4), bytes));
  }

  private static byte[] shortString(String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    return concat(new byte[] {(byte) (bytes.length << 2 | 1)}, bytes);
  }

  /**
   * An object: {@code ids[i]} is field i's key id; values are stored in reverse order, so offsets
   * are not in field order (the spec allows any).
   */
  private static byte[] object(
      int idSize, int offsetSize, boolean large, int[] ids, byte[]... values) {
    int header = ((large ? 1 : 0) << 4 | (idSize - 1) << 2 | (offsetSize - 1)) << 2 | 2;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(header);
    out.writeBytes(le(ids.length, large ? 4 : 1));
    for (int id : ids) {
      out.writeBytes(le(id, idSize));
    }
    int[] offsets = new int[values.length];
    int at = 0;
    for (int i = values.length - 1; i >= 0; i--) {
      offsets[i] = at;
      at += values[i].length;
    }
    for (int offset : offsets) {
      out.writeBytes(le(offset, offsetSize));
    }
    out.writeBytes(le(at, offsetSize));
    for (int i = values.length - 1; i >= 0; i--) {
      out.writeBytes(values[i]);
    }
    return out.toByteArray();
  }

  private static byte[] array(int offsetSize, boolean large, byte[]... values) {
    int header = ((large ? 1 : 0) << 2 | (offsetSize - 1)) << 2 | 3;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(header);
    out.writeBytes(le(values.length, large ? 4 : 1));
    int at = 0;
    for (byte[] v : values) {
      out.writeBytes(le(at, offsetSize));
      at += v.length;
    }
    out.writeBytes(le(at, offsetSize));
    for (byte[] v : values) {
      out.writeBytes(v);
    }
    return out.toByteArray();
  }

  private static byte[] metadata(String... keys) {
    return metadataWithOffsetSize(1, keys);
  }

  /** Version 1, sorted_strings set, the given offset size. */
  private static byte[] metadataWithOffsetSize(int offsetSize, String... keys) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write((offsetSize - 1) << 6 | 1 << 4 | 1);
    out.writeBytes(le(keys.length, offsetSize));
    int at = 0;
    ByteArrayOutputStream strings = new ByteArrayOutputStream();
    for (String k : keys) {
      out.writeBytes(le(at, offsetSize));
      byte[] bytes = k.getBytes(StandardCharsets.UTF_8);
      strings.writeBytes(bytes);
      at += bytes.length;
    }
    out.writeBytes(le(at, offsetSize));
    out.writeBytes(strings.toByteArray());
    return out.toByteArray();
  }

  private static byte[] le(long v, int width) {
    byte[] out = new byte[width];
    for (int i = 0; i < width; i++) {
      out[i] = (byte) (i < 8 ? v >> (8 * i) : v >> 63);
    }
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
