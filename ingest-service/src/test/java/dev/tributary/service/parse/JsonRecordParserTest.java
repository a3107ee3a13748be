package dev.tributary.service.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import org.junit.jupiter.api.Test;

class JsonRecordParserTest {

  private static StructType schema(String... pairs) {
    LinkedHashMap<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return JsonRecordParser.schemaOf(m);
  }

  private static JsonRecordParser parser(String... pairs) {
    return new JsonRecordParser(schema(pairs), JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
  }

  private static Object[] ok(JsonRecordParser p, String json) {
    ParseResult r = p.parse(json.getBytes(StandardCharsets.UTF_8));
    assertThat(r).as("result of %s", json).isInstanceOf(ParseResult.Success.class);
    return ((ParseResult.Success) r).row();
  }

  private static String error(JsonRecordParser p, String json) {
    ParseResult r = p.parse(json.getBytes(StandardCharsets.UTF_8));
    assertThat(r).as("result of %s", json).isInstanceOf(ParseResult.Failure.class);
    return ((ParseResult.Failure) r).error();
  }

  @Test
  void schemaOfBuildsNestedStructsInDeclarationOrder() {
    StructType s =
        schema(
            "order_id",
            "string",
            "customer.id",
            "long",
            "amount",
            "Decimal(10, 2)",
            "customer.address.city",
            "string",
            "customer.vip",
            "boolean",
            "day",
            "date");
    StructType address = StructType.of(StructField.nullable("city", PrimitiveType.STRING));
    StructType customer =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("address", address),
            StructField.nullable("vip", PrimitiveType.BOOLEAN));
    assertThat(s)
        .isEqualTo(
            StructType.of(
                StructField.nullable("order_id", PrimitiveType.STRING),
                StructField.nullable("customer", customer),
                StructField.nullable("amount", new DecimalType(10, 2)),
                StructField.nullable("day", PrimitiveType.DATE)));
  }

  @Test
  void byteShortFloatAndTimestampNtzAreReadInRangeAndRefusedOutOfIt() {
    JsonRecordParser p = parser("b", "byte", "s", "short", "f", "float", "t", "timestamp_ntz");

    assertThat(
            ok(p, "{\"b\":-128,\"s\":32767,\"f\":1.5," + "\"t\":\"2026-03-29T02:30:00.1234567\"}"))
        .containsExactly(
            (byte) -128, (short) 32767, 1.5f, LocalDateTime.parse("2026-03-29T02:30:00.123456"));
    assertThat(ok(p, "{\"b\":3.0,\"t\":\"1969-07-20 20:17:40\"}"))
        .containsExactly((byte) 3, null, null, LocalDateTime.parse("1969-07-20T20:17:40"));
    assertThat(error(p, "{\"b\":128}")).contains("field 'b'").contains("byte");
    assertThat(error(p, "{\"s\":-32769}")).contains("field 's'").contains("short");
    assertThat(error(p, "{\"t\":\"2026-01-01T00:00:00Z\"}"))
        .contains("field 't'")
        .contains("timestamp_ntz");
    assertThat(error(p, "{\"t\":1767225600000}")).contains("field 't'");
  }

  @Test
  void schemaOfRejectsBadDeclarationsNamingTheColumn() {
    assertThatThrownBy(() -> schema("a", "string", "amount", "bigint"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "column 'amount': unknown type 'bigint'; expected one of string, byte, short, int,"
                + " long, float, double, boolean, timestamp, timestamp(seconds|micros|nanos),"
                + " timestamp_ntz, date, decimal(p,s)");
    assertThatThrownBy(() -> schema("price", "decimal(40,2)"))
        .hasMessage(
            "column 'price': invalid type 'decimal(40,2)': decimal precision must be 1..38,"
                + " was 40");
    assertThatThrownBy(() -> schema("a", "long", "a.b", "string"))
        .hasMessage("column 'a.b': 'a' is declared as a long, so it cannot have nested fields");
    assertThatThrownBy(() -> schema("a.b", "long", "a", "string"))
        .hasMessageStartingWith("column 'a' is declared twice");
    assertThatThrownBy(() -> schema("a..b", "long"))
        .hasMessage("column 'a..b': empty name segment; write nested columns as parent.child");
    assertThatThrownBy(() -> JsonRecordParser.schemaOf(new LinkedHashMap<>()))
        .hasMessageContaining("declares no column");
  }

  @Test
  void fieldsAreMatchedByNameWhateverTheOrderAndTheShapeOfThePreviousRecord() {
    JsonRecordParser p = parser("a", "string", "b", "long", "c.x", "int");
    assertThat(ok(p, "{\"a\":\"1\",\"junk\":0,\"b\":2,\"c\":{\"x\":3}}"))
        .containsExactly("1", 2L, new Object[] {3});
    // the same names at other positions: an undeclared one where "b" was, "b" where "junk" was
    assertThat(ok(p, "{\"b\":4,\"a\":\"5\",\"c\":{\"y\":0,\"x\":6},\"junk\":7}"))
        .containsExactly("5", 4L, new Object[] {6});
    assertThat(ok(p, "{\"junk\":{\"b\":9},\"c\":null,\"a\":\"8\",\"a\":\"last wins\"}"))
        .containsExactly("last wins", null, null);
    assertThat(ok(p, "{\"a\":\"1\",\"junk\":0,\"b\":2,\"c\":{\"x\":3}}"))
        .containsExactly("1", 2L, new Object[] {3});
  }

  @Test
  void parsesEveryType() {
    JsonRecordParser p =
        parser(
            "s",
            "string",
            "i",
            "int",
            "l",
            "long",
            "d",
            "double",
            "b",
            "boolean",
            "ts",
            "timestamp",
            "dt",
            "date",
            "dec",
            "decimal(10,2)");
    Object[] row =
        ok(
            p,
            "{\"s\":\"h\\u00e9\\\"llo\",\"i\":-7,\"l\":9007199254740993,\"d\":2.5,"
                + "\"b\":true,\"ts\":\"2026-01-02T03:04:05.123456789Z\",\"dt\":\"2026-02-28\","
                + "\"dec\":12.5}");
    assertThat(row)
        .containsExactly(
            "hé\"llo",
            -7,
            9007199254740993L,
            2.5,
            true,
            Instant.parse("2026-01-02T03:04:05.123456Z"),
            LocalDate.of(2026, 2, 28),
            new BigDecimal("12.50"));
  }

  @Test
  void numericCoercions() {
    JsonRecordParser p = parser("i", "int", "l", "long", "d", "double", "dec", "decimal(5,2)");
    assertThat(ok(p, "{\"i\":3.0,\"l\":1e3,\"d\":4,\"dec\":\"-1.5\"}"))
        .containsExactly(3, 1000L, 4.0, new BigDecimal("-1.50"));
    assertThat(ok(p, "{\"i\":2147483647,\"l\":-9223372036854775808,\"dec\":0}"))
        .containsExactly(2147483647, Long.MIN_VALUE, null, new BigDecimal("0.00"));
    assertThat(ok(p, "{\"dec\":123.4500}")[3]).isEqualTo(new BigDecimal("123.45"));
    assertThat(ok(p, "{\"dec\":\"1E+2\"}")[3]).isEqualTo(new BigDecimal("100.00"));
  }

  @Test
  void aDecimalWrittenAsAHugeStringIsRefusedBeforeItIsParsed() {
    JsonRecordParser p = parser("dec", "decimal(5,2)");
    String digits = "1".repeat(200_000);
    assertThat(error(p, "{\"dec\":\"" + digits + "\"}"))
        .isEqualTo(
            "field 'dec': expected a decimal(5,2) (a number or a numeric string), found a string of"
                + " 200000 characters (numbers are read up to 1000)");
    assertThat(ok(p, "{\"dec\":\"" + "0".repeat(990) + "1.5\"}")[0])
        .isEqualTo(new BigDecimal("1.50"));
  }

  @Test
  void timestampForms() {
    JsonRecordParser p = parser("ts", "timestamp");
    assertThat(ok(p, "{\"ts\":\"2026-01-01T00:00:00Z\"}")[0])
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(ok(p, "{\"ts\":\"2026-01-01T02:30:00+02:30\"}")[0])
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(ok(p, "{\"ts\":\"2026-01-01T00:00:00-0100\"}")[0])
        .isEqualTo(Instant.parse("2026-01-01T01:00:00Z"));
    assertThat(ok(p, "{\"ts\":\"2026-01-01 10:11\"}")[0])
        .as("no zone means UTC; seconds optional; space separator")
        .isEqualTo(Instant.parse("2026-01-01T10:11:00Z"));
    assertThat(ok(p, "{\"ts\":\"2026-03-04\"}")[0])
        .isEqualTo(Instant.parse("2026-03-04T00:00:00Z"));
    assertThat(ok(p, "{\"ts\":1767225600123}")[0])
        .isEqualTo(Instant.parse("2026-01-01T00:00:00.123Z"));
    assertThat(ok(p, "{\"ts\":-1}")[0]).isEqualTo(Instant.parse("1969-12-31T23:59:59.999Z"));
  }

  private static JsonRecordParser declared(String... pairs) {
    LinkedHashMap<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return JsonRecordParser.forColumns(m, JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
  }

  @Test
  void epochUnitsReadNumbersInTheirUnitAndStringsAsIso() {
    JsonRecordParser p =
        declared(
            "s",
            "timestamp(seconds)",
            "ms",
            "timestamp",
            "us",
            "timestamp(micros)",
            "ns",
            "timestamp(nanos)",
            "c.ns",
            "timestamp(nanos)");
    assertThat(p.schema().fields())
        .extracting(f -> f.type())
        .startsWith(
            PrimitiveType.TIMESTAMP,
            PrimitiveType.TIMESTAMP,
            PrimitiveType.TIMESTAMP,
            PrimitiveType.TIMESTAMP);
    Instant t = Instant.parse("2026-01-01T00:00:00.123456Z");
    assertThat(
            ok(
                p,
                "{\"s\":1767225600,\"ms\":1767225600123,\"us\":1767225600123456,"
                    + "\"ns\":1767225600123456789,\"c\":{\"ns\":-1}}"))
        .containsExactly(
            Instant.parse("2026-01-01T00:00:00Z"),
            Instant.parse("2026-01-01T00:00:00.123Z"),
            t,
            t,
            new Object[] {Instant.parse("1969-12-31T23:59:59.999999Z")});
    assertThat(
            ok(p, "{\"s\":\"2026-01-01T00:00:00.123456Z\",\"ns\":\"2026-01-01T00:00:00.123456Z\"}"))
        .startsWith(t, null, null, t);
    assertThat(error(p, "{\"us\":1.5}"))
        .isEqualTo(
            "field 'us': expected a timestamp (ISO-8601 like 2026-01-01T00:00:00Z, or epoch microseconds),"
                + " found number 1.5");
    assertThatThrownBy(() -> declared("t", "timestamp(days)"))
        .hasMessage(
            "column 't': unknown epoch unit in 'timestamp(days)'; expected timestamp(seconds),"
                + " timestamp(millis), timestamp(micros) or timestamp(nanos)");
  }

  @Test
  void timestampsOutsideYears1To9999AreFailuresNamingTheField() {
    JsonRecordParser p =
        declared(
            "ts", "timestamp", "s", "timestamp(seconds)", "us", "timestamp(micros)", "day", "date");
    // epoch nanoseconds in a millisecond column: used to overflow microseconds later ("long
    // overflow")
    assertThat(error(p, "{\"ts\":1767225600123456789}"))
        .isEqualTo(
            "field 'ts': 1767225600123456789 epoch milliseconds is outside the years 0001-9999; if it"
                + " counts nanoseconds, declare the column as timestamp(nanos)");
    assertThat(error(p, "{\"ts\":9223372036854775807}"))
        .startsWith(
            "field 'ts': 9223372036854775807 epoch"
                + " milliseconds is outside the years 0001-9999");
    assertThat(error(p, "{\"ts\":-62135596800001}"))
        .startsWith("field 'ts': -62135596800001 epoch milliseconds is outside");
    assertThat(ok(p, "{\"ts\":-62135596800000}")[0])
        .isEqualTo(Instant.parse("0001-01-01T00:00:00Z"));
    assertThat(ok(p, "{\"ts\":253402300799999}")[0])
        .isEqualTo(Instant.parse("9999-12-31T23:59:59.999Z"));
    // beyond Instant's own range in seconds: must not throw
    assertThat(error(p, "{\"s\":9223372036854775807}"))
        .startsWith("field 's': 9223372036854775807 epoch seconds is outside");
    assertThat(error(p, "{\"us\":99999999999999999999}"))
        .isEqualTo(
            "field 'us': number 99999999999999999999 is out of range for a timestamp in epoch microseconds");
    assertThat(error(p, "{\"ts\":\"0000-12-31T23:59:59Z\"}"))
        .isEqualTo("field 'ts': timestamp \"0000-12-31T23:59:59Z\" is outside the years 0001-9999");
    assertThat(error(p, "{\"ts\":\"0001-01-01T00:30:00+01:00\"}"))
        .startsWith("field 'ts': timestamp");
    assertThat(ok(p, "{\"ts\":\"9999-12-31T23:59:59.999999Z\"}")[0])
        .isEqualTo(Instant.parse("9999-12-31T23:59:59.999999Z"));
    assertThat(error(p, "{\"day\":\"0000-01-01\"}"))
        .isEqualTo("field 'day': date \"0000-01-01\" is outside the years 0001-9999");
  }

  @Test
  void hostileInputsAreFailuresNotExceptions() {
    JsonRecordParser p = declared("n", "long", "s", "string", "d", "decimal(10,2)");
    String deep = "[".repeat(5000) + "]".repeat(5000);
    assertThat(error(p, "{\"skip\":" + deep + ",\"n\":1}")).startsWith("malformed JSON");
    assertThat(error(p, "{\"n\":" + "9".repeat(5000) + "}")).startsWith("malformed JSON");
    assertThat(error(p, "{\"d\":\"1e999999999\"}")).startsWith("field 'd': ");
    byte[] invalidUtf8 = {'{', '"', 's', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
    assertThat(p.parse(invalidUtf8)).isInstanceOf(ParseResult.Failure.class);
    assertThat(((ParseResult.Failure) p.parse(invalidUtf8)).error()).startsWith("malformed JSON");
  }

  @Test
  void nestedPathsUnknownAndMissingFields() {
    JsonRecordParser p =
        parser("id", "long", "customer.name", "string", "customer.geo.lat", "double");
    Object[] row =
        ok(
            p,
            "{\"extra\":{\"deep\":[1,{\"x\":[]}],\"y\":null},\"customer\":"
                + "{\"geo\":{\"lat\":1.5,\"lon\":2},\"name\":\"ann\",\"tags\":[\"a\"]},\"id\":1,"
                + "\"more\":[[],{}]}");
    assertThat(row[0]).isEqualTo(1L);
    Object[] customer = (Object[]) row[1];
    assertThat(customer[0]).isEqualTo("ann");
    assertThat((Object[]) customer[1]).containsExactly(1.5);

    Object[] missing = ok(p, "{}");
    assertThat(missing).containsExactly(null, null);
    Object[] nulls = ok(p, "{\"id\":null,\"customer\":{\"name\":null,\"geo\":null}}");
    assertThat(nulls[0]).isNull();
    assertThat((Object[]) nulls[1]).containsExactly(null, null);
    assertThat(ok(p, "{\"id\":1,\"id\":2}")[0]).as("last duplicate wins").isEqualTo(2L);
  }

  @Test
  void typeErrorsNameTheFieldAndTheValue() {
    JsonRecordParser p =
        parser(
            "amount_cents",
            "long",
            "name",
            "string",
            "flag",
            "boolean",
            "n",
            "int",
            "d",
            "double",
            "c.when",
            "timestamp",
            "day",
            "date",
            "price",
            "decimal(6,2)");
    assertThat(error(p, "{\"amount_cents\":\"12x\"}"))
        .isEqualTo("field 'amount_cents': expected a long, found string \"12x\"");
    assertThat(error(p, "{\"name\":12}"))
        .isEqualTo("field 'name': expected a string, found number 12");
    assertThat(error(p, "{\"flag\":\"true\"}"))
        .isEqualTo("field 'flag': expected a boolean, found string \"true\"");
    assertThat(error(p, "{\"amount_cents\":{\"v\":1}}"))
        .isEqualTo("field 'amount_cents': expected a long, found an object");
    assertThat(error(p, "{\"name\":[\"a\"]}"))
        .isEqualTo("field 'name': expected a string, found an array");
    assertThat(error(p, "{\"c\":5}")).isEqualTo("field 'c': expected an object, found number 5");
    assertThat(error(p, "{\"c\":{\"when\":\"yesterday\"}}"))
        .isEqualTo(
            "field 'c.when': expected a timestamp (ISO-8601 like 2026-01-01T00:00:00Z, or"
                + " epoch milliseconds), found string \"yesterday\"");
    assertThat(error(p, "{\"c\":{\"when\":1.5}}"))
        .startsWith("field 'c.when': expected a timestamp")
        .endsWith("found number 1.5");
    assertThat(error(p, "{\"day\":\"2026-02-30\"}"))
        .isEqualTo("field 'day': expected a date (yyyy-MM-dd), found string \"2026-02-30\"");
    assertThat(error(p, "{\"n\":3.5}"))
        .isEqualTo("field 'n': expected an int, found number 3.5 (it has a fractional part)");
    assertThat(error(p, "{\"n\":3000000000}"))
        .isEqualTo("field 'n': number 3000000000 is out of range for int");
    assertThat(error(p, "{\"amount_cents\":9223372036854775808}"))
        .isEqualTo("field 'amount_cents': number 9223372036854775808 is out of range for long");
    assertThat(error(p, "{\"amount_cents\":1e30}"))
        .isEqualTo("field 'amount_cents': number 1e30 is out of range for long");
    assertThat(error(p, "{\"d\":1e400}"))
        .isEqualTo("field 'd': number 1e400 is out of range for double");
    assertThat(error(p, "{\"price\":1.005}"))
        .isEqualTo(
            "field 'price': 1.005 has more than 2 digits after the point and cannot be"
                + " stored in decimal(6,2) without rounding; declare a larger scale");
    assertThat(error(p, "{\"price\":\"12345.6\"}"))
        .isEqualTo(
            "field 'price': 12345.6 has more than 4 digits before the point and does not"
                + " fit decimal(6,2); declare a larger precision");
    assertThat(error(p, "{\"price\":1e999999999}")).contains("does not fit decimal(6,2)");
    assertThat(error(p, "{\"price\":\"ten\"}"))
        .isEqualTo(
            "field 'price': expected a decimal(6,2) (a number or a numeric string), found"
                + " string \"ten\"");
    String longText = "x".repeat(100);
    assertThat(error(p, "{\"flag\":\"" + longText + "\"}"))
        .isEqualTo("field 'flag': expected a boolean, found string \"" + "x".repeat(40) + "...\"");
  }

  @Test
  void recordLevelErrors() {
    JsonRecordParser p = parser("a", "long");
    assertThat(p.parse(new byte[0]))
        .isEqualTo(ParseResult.failure("record is empty (0 bytes); expected a JSON object"));
    assertThat(error(p, "  \n ")).isEqualTo("record holds only whitespace; expected a JSON object");
    assertThat(error(p, "[1,2]"))
        .isEqualTo("expected a JSON object at the top level, found an array");
    assertThat(error(p, "\"x\""))
        .isEqualTo("expected a JSON object at the top level, found string \"x\"");
    assertThat(error(p, "{\"a\":1} {\"a\":2}"))
        .isEqualTo(
            "unexpected content after the JSON object at line 1 column 9; a record must"
                + " hold exactly one JSON object");
    assertThat(error(p, "{\"a\":1}x")).startsWith("malformed JSON at line 1 column 8: ");
    assertThat(error(p, "{\"a\":1, \"b\": tru}"))
        .startsWith("malformed JSON at line 1 column 14: Unrecognized token 'tru'");
    assertThat(error(p, "{\"a\":1"))
        .startsWith("malformed JSON at line 1 column 7: Unexpected end-of-input");
  }

  @Test
  void maxRecordSizeIsChecked() {
    JsonRecordParser p = new JsonRecordParser(schema("a", "string"), 1024 * 1024);
    byte[] big = new byte[(int) (2.1 * 1024 * 1024)];
    assertThat(p.parse(big))
        .isEqualTo(ParseResult.failure("record is 2.1 MB, above max-record-size 1 MB"));
    JsonRecordParser small = new JsonRecordParser(schema("a", "string"), 10);
    assertThat(small.parse("{\"a\":\"12345\"}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(ParseResult.failure("record is 13 bytes, above max-record-size 10 bytes"));
    assertThat(small.parse("{\"a\":\"1\"}".getBytes(StandardCharsets.UTF_8)).isSuccess()).isTrue();
    assertThatThrownBy(() -> new JsonRecordParser(schema("a", "string"), 0))
        .hasMessage("max-record-size must be positive, was 0 bytes");
  }

  @Test
  void fieldOrderDoesNotMatter() {
    JsonRecordParser p = parser("a", "long", "b", "string", "c", "boolean");
    assertThat(ok(p, "{\"a\":1,\"b\":\"x\",\"c\":true}")).containsExactly(1L, "x", true);
    assertThat(ok(p, "{\"c\":false,\"b\":\"y\",\"a\":2}")).containsExactly(2L, "y", false);
    assertThat(ok(p, "{\"b\":\"z\",\"zz\":0,\"c\":true,\"a\":3}")).containsExactly(3L, "z", true);
    assertThat(ok(p, "{\"a\":4,\"c\":true,\"b\":\"w\"}")).containsExactly(4L, "w", true);
    assertThat(ok(p, "{\"A\":5,\"b \":\"v\"}"))
        .as("names are case- and space-sensitive")
        .containsExactly(null, null, null);
  }

  @Test
  void parsesASliceOfABuffer() {
    JsonRecordParser p = parser("a", "long");
    byte[] buf = "xx{\"a\":5}yy".getBytes(StandardCharsets.UTF_8);
    assertThat(((ParseResult.Success) p.parse(buf, 2, 7)).row()).containsExactly(5L);
  }
}
