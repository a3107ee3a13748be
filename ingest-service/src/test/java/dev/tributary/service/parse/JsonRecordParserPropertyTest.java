package dev.tributary.service.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random records: well-formed ones must round-trip exactly, and any byte sequence (garbage,
 * truncations, flipped bytes) must give a success or a failure, never an exception.
 */
class JsonRecordParserPropertyTest {
  private static final String[] TYPES = {
    "string", "int", "long", "double", "boolean", "timestamp", "date", "decimal(12,3)"
  };

  private final LinkedHashMap<String, String> declared = new LinkedHashMap<>();
  private final JsonRecordParser parser;

  JsonRecordParserPropertyTest() {
    for (String t : TYPES) {
      declared.put("c_" + t.replaceAll("\\W", ""), t);
    }
    for (String t : TYPES) {
      declared.put("nested.n_" + t.replaceAll("\\W", ""), t);
    }
    parser = new JsonRecordParser(JsonRecordParser.schemaOf(declared), 1 << 20);
  }

  @Test
  void wellFormedRandomRecordsRoundTrip() {
    Random random = new Random(42);
    for (int n = 0; n < 2_000; n++) {
      Object[] expected = new Object[TYPES.length];
      Object[] expectedNested = new Object[TYPES.length];
      StringBuilder json = new StringBuilder("{");
      StringBuilder nested = new StringBuilder("{");
      for (int i = 0; i < TYPES.length; i++) {
        appendField(random, json, "c_" + TYPES[i].replaceAll("\\W", ""), TYPES[i], expected, i);
        appendField(
            random, nested, "n_" + TYPES[i].replaceAll("\\W", ""), TYPES[i], expectedNested, i);
        if (random.nextInt(4) == 0) {
          json.append("\"junk").append(i).append("\":{\"a\":[1,\"x\",{\"b\":null}]},");
        }
      }
      nested.append("\"z\":0}");
      json.append("\"nested\":").append(nested).append('}');
      ParseResult r = parser.parse(json.toString().getBytes(StandardCharsets.UTF_8));
      // Compared by hand first: AssertJ descriptions of 5,000 records would dominate the runtime.
      Object[] row = r instanceof ParseResult.Success s ? s.row() : null;
      if (row == null
          || !Arrays.equals(Arrays.copyOf(row, TYPES.length), expected)
          || !Arrays.equals((Object[]) row[TYPES.length], expectedNested)) {
        assertThat(r).as(json.toString()).isInstanceOf(ParseResult.Success.class);
        assertThat(Arrays.copyOf(row, TYPES.length)).as(json.toString()).containsExactly(expected);
        assertThat((Object[]) row[TYPES.length])
            .as(json.toString())
            .containsExactly(expectedNested);
      }
    }
  }

  @Test
  void anyBytesGiveASuccessOrAFailureNeverAnException() {
    Random random = new Random(7);
    String valid =
        "{\"c_string\":\"a\\u00e9\",\"c_long\":12,\"nested\":{\"n_date\":\"2026-01-01\","
            + "\"n_decimal123\":\"1.5\"},\"c_timestamp\":\"2026-01-01T00:00:00Z\",\"x\":[1,2]}";
    byte[] base = valid.getBytes(StandardCharsets.UTF_8);
    int failures = 0;
    for (int n = 0; n < 8_000; n++) {
      byte[] input;
      switch (n % 4) {
        case 0 -> {
          input = new byte[random.nextInt(64)];
          random.nextBytes(input);
        }
        case 1 -> input = Arrays.copyOf(base, random.nextInt(base.length + 1));
        case 2 -> {
          input = base.clone();
          for (int k = 0; k < 1 + random.nextInt(3); k++) {
            input[random.nextInt(input.length)] = (byte) random.nextInt(256);
          }
        }
        default -> {
          input = base.clone();
          byte[] ascii = "{}[]\",:0123456789.eE+-tfnul \\".getBytes(StandardCharsets.UTF_8);
          input[random.nextInt(input.length)] = ascii[random.nextInt(ascii.length)];
        }
      }
      ParseResult r = parser.parse(input);
      assertThat(r).isNotNull();
      if (r instanceof ParseResult.Failure f) {
        assertThat(f.error()).isNotBlank();
        failures++;
      }
    }
    assertThat(failures).as("most mutated inputs are invalid").isGreaterThan(4_000);
  }

  private static void appendField(
      Random random, StringBuilder json, String name, String type, Object[] expected, int i) {
    int choice = random.nextInt(10);
    if (choice == 0) {
      return; // missing: null
    }
    json.append('"').append(name).append("\":");
    if (choice == 1) {
      json.append("null,");
      return;
    }
    switch (type) {
      case "string" -> {
        String s = randomString(random);
        expected[i] = s;
        json.append('"').append(escape(s)).append('"');
      }
      case "int" -> {
        int v = random.nextInt();
        expected[i] = v;
        json.append(v);
      }
      case "long" -> {
        long v = random.nextLong();
        expected[i] = v;
        json.append(v);
      }
      case "double" -> {
        double v = random.nextBoolean() ? random.nextGaussian() * 1e6 : random.nextInt(100);
        expected[i] = v;
        json.append(v);
      }
      case "boolean" -> {
        boolean v = random.nextBoolean();
        expected[i] = v;
        json.append(v);
      }
      case "timestamp" -> {
        long micros = random.nextLong() % (4_000_000_000L * 1_000_000L);
        Instant v = Instant.EPOCH.plusNanos(Math.abs(micros) * 1000);
        if (random.nextBoolean()) {
          expected[i] = v;
          json.append('"').append(v).append('"');
        } else {
          expected[i] = Instant.ofEpochMilli(v.toEpochMilli());
          json.append(v.toEpochMilli());
        }
      }
      case "date" -> {
        LocalDate v = LocalDate.ofEpochDay(random.nextInt(3_000_000));
        expected[i] = v.getYear() > 9999 ? null : v;
        if (expected[i] == null) {
          json.setLength(json.length() - name.length() - 3);
          return;
        }
        json.append('"').append(v).append('"');
      }
      default -> {
        BigDecimal v = BigDecimal.valueOf(random.nextLong() % 1_000_000_000_000L, 3);
        expected[i] = v;
        json.append(random.nextBoolean() ? v.toPlainString() : "\"" + v + "\"");
      }
    }
    json.append(',');
  }

  private static String randomString(Random random) {
    StringBuilder s = new StringBuilder();
    int len = random.nextInt(12);
    for (int k = 0; k < len; k++) {
      int kind = random.nextInt(5);
      s.append(
          switch (kind) {
            case 0 -> (char) ('a' + random.nextInt(26));
            case 1 -> "\"\\\n\t".charAt(random.nextInt(4));
            case 2 -> 'é';
            case 3 -> "\uD83D\uDE00"; // a surrogate pair
            default -> (char) (random.nextInt(0x20));
          });
    }
    return s.toString();
  }

  private static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
