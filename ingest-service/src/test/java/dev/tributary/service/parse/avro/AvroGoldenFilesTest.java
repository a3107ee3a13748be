package dev.tributary.service.parse.avro;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.registry.RegisteredSchema;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checked-in Avro records of each logical type ({@link GoldenFiles}) decode to the values
 * JSON's parser produces for the same column types: the bytes are fixed, so a change of the
 * decoder's mapping cannot pass unnoticed.
 */
class AvroGoldenFilesTest {

  @ParameterizedTest(name = "{0} as {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "timestamp-millis | timestamp     | 2026-01-01T00:00:00.123Z",
        "timestamp-micros | timestamp     | 2026-01-01T00:00:00.123456Z",
        "timestamp-millis | long          | 1767225600123",
        "date             | date          | 2026-01-01",
        "uuid             | string        | 6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
        "decimal-bytes    | decimal(12,2) | -1234567890.12",
        "decimal-bytes    | decimal(20,4) | -1234567890.1200",
        "decimal-fixed    | decimal(9,3)  | 12345.678",
      })
  void decodesTheGoldenRecord(String name, String declared, String expected) throws Exception {
    byte[] bytes = Files.readAllBytes(GoldenFiles.DIR.resolve(name + ".bin"));
    String schema = Files.readString(GoldenFiles.DIR.resolve(name + ".avsc"));
    var entry = GoldenFiles.cases().get(name);
    assertThat(AvroWire.encode(1, entry.getKey(), entry.getValue()))
        .as("Avro still encodes the golden record to the checked-in bytes")
        .isEqualTo(bytes);
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "long");
    columns.put("v", declared);
    AvroRecordDecoder decoder =
        new AvroRecordDecoder(
            id -> new RegisteredSchema(id, "AVRO", schema, List.of()),
            columns,
            new LinkedHashMap<>(),
            1 << 20);

    ParseResult result = decoder.decode("golden", 0, 0, null, bytes);

    assertThat(result).isInstanceOf(ParseResult.Success.class);
    Object[] row = ((ParseResult.Success) result).row();
    assertThat(row[0]).isEqualTo(7L);
    assertThat(row[1]).isEqualTo(expectedValue(declared, expected));
  }

  @ParameterizedTest(name = "{0} does not fit {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "decimal-bytes    | decimal(11,2) | field 'v': -1234567890.12 has more than 9 digits before the point and does not fit decimal(11,2)",
        "decimal-fixed    | decimal(9,2)  | field 'v': 12345.678 has more than 2 digits after the point",
        "date             | timestamp     | field 'v': writer schema id 1 has an int (date), which does not fit the declared timestamp",
        "uuid             | int           | field 'v': writer schema id 1 has a string (uuid), which does not fit the declared int",
      })
  void quarantinesAGoldenRecordThatDoesNotFit(String name, String declared, String reason)
      throws Exception {
    byte[] bytes = Files.readAllBytes(GoldenFiles.DIR.resolve(name + ".bin"));
    String schema = Files.readString(GoldenFiles.DIR.resolve(name + ".avsc"));
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("v", declared);
    AvroRecordDecoder decoder =
        new AvroRecordDecoder(
            id -> new RegisteredSchema(id, "AVRO", schema, List.of()),
            columns,
            new LinkedHashMap<>(),
            1 << 20);

    ParseResult result = decoder.decode("golden", 2, 40, null, bytes);

    assertThat(((ParseResult.Failure) result).error())
        .startsWith("golden/2 offset 40: value: " + reason);
  }

  private static Object expectedValue(String declared, String text) {
    if (declared.startsWith("decimal")) {
      return new BigDecimal(text);
    }
    return switch (declared) {
      case "timestamp" -> Instant.parse(text);
      case "date" -> LocalDate.parse(text);
      case "long" -> Long.parseLong(text);
      default -> text;
    };
  }
}
