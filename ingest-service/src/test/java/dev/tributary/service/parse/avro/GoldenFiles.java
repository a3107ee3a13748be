package dev.tributary.service.parse.avro;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The checked-in golden files of {@code src/test/resources/avro-golden}: for each logical type a
 * writer schema ({@code NAME.avsc}) and one record in the wire format under schema id 1 ({@code
 * NAME.bin}), encoded by Avro's own encoder. {@link AvroGoldenFilesTest} checks that this class
 * still encodes exactly the checked-in bytes, and decodes them. Run {@link #main} to rewrite them
 * (only when adding a case: the bytes must never change).
 */
final class GoldenFiles {
  static final Path DIR = Path.of("src/test/resources/avro-golden");

  private GoldenFiles() {}

  /** Each case's schema and datum, by name. */
  static Map<String, Map.Entry<Schema, Object>> cases() {
    Map<String, Map.Entry<Schema, Object>> cases = new LinkedHashMap<>();
    cases.put(
        "timestamp-millis",
        one("long", "timestamp-millis", 1_767_225_600_123L)); // 2026-01-01T00:00:00.123Z
    cases.put("timestamp-micros", one("long", "timestamp-micros", 1_767_225_600_123_456L));
    cases.put("date", one("int", "date", 20_454)); // 2026-01-01
    cases.put("uuid", one("string", "uuid", "6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"));
    Schema decimalBytes = LogicalTypes.decimal(12, 2).addToSchema(Schema.create(Schema.Type.BYTES));
    cases.put(
        "decimal-bytes",
        record(
            decimalBytes,
            new Conversions.DecimalConversion()
                .toBytes(
                    new BigDecimal("-1234567890.12"),
                    decimalBytes,
                    decimalBytes.getLogicalType())));
    Schema decimalFixed =
        LogicalTypes.decimal(9, 3).addToSchema(Schema.createFixed("money", null, "golden", 4));
    cases.put(
        "decimal-fixed",
        record(
            decimalFixed,
            new Conversions.DecimalConversion()
                .toFixed(
                    new BigDecimal("12345.678"), decimalFixed, decimalFixed.getLogicalType())));
    return cases;
  }

  private static Map.Entry<Schema, Object> one(String type, String logical, Object value) {
    Schema s = new LogicalTypeSchema(type, logical).schema();
    return record(s, value);
  }

  private record LogicalTypeSchema(String type, String logical) {
    Schema schema() {
      Schema base = Schema.create(Schema.Type.valueOf(type.toUpperCase(Locale.ROOT)));
      return switch (logical) {
        case "timestamp-millis" -> LogicalTypes.timestampMillis().addToSchema(base);
        case "timestamp-micros" -> LogicalTypes.timestampMicros().addToSchema(base);
        case "date" -> LogicalTypes.date().addToSchema(base);
        case "uuid" -> LogicalTypes.uuid().addToSchema(base);
        default -> throw new IllegalArgumentException(logical);
      };
    }
  }

  /** A record {@code golden.Event} with {@code id: long} and {@code v} of the given schema. */
  private static Map.Entry<Schema, Object> record(Schema v, Object value) {
    Schema schema =
        Schema.createRecord(
            "Event",
            null,
            "golden",
            false,
            List.of(
                new Schema.Field("id", Schema.create(Schema.Type.LONG)), new Schema.Field("v", v)));
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", 7L);
    r.put("v", value instanceof ByteBuffer b ? b : value);
    return Map.entry(schema, r);
  }

  public static void main(String[] args) throws Exception {
    Files.createDirectories(DIR);
    for (var c : cases().entrySet()) {
      Files.writeString(
          DIR.resolve(c.getKey() + ".avsc"), c.getValue().getKey().toString(true) + "\n");
      Files.write(
          DIR.resolve(c.getKey() + ".bin"),
          AvroWire.encode(1, c.getValue().getKey(), c.getValue().getValue()));
    }
  }
}
