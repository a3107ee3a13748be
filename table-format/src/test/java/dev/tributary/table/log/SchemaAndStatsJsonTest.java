package dev.tributary.table.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.data.FileStats;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.VariantType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaAndStatsJsonTest {
  static final StructType ADDRESS =
      StructType.of(
          StructField.nullable("city", PrimitiveType.STRING),
          StructField.nullable("zip", PrimitiveType.INTEGER));
  static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("amount", new DecimalType(10, 2)),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("day", PrimitiveType.DATE),
          StructField.nullable("ok", PrimitiveType.BOOLEAN),
          StructField.nullable("x", PrimitiveType.DOUBLE),
          StructField.nullable("raw", PrimitiveType.BINARY),
          StructField.nullable("address", ADDRESS));

  @Test
  void schemaStringIsDeltaJsonWithNestedStructs() {
    String json =
        SchemaJson.toJson(
            StructType.of(
                new StructField("id", PrimitiveType.LONG, false),
                StructField.nullable("address", ADDRESS)));

    assertThat(json)
        .isEqualTo(
            "{\"type\":\"struct\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
                + "{\"name\":\"address\",\"type\":{\"type\":\"struct\",\"fields\":["
                + "{\"name\":\"city\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
                + "{\"name\":\"zip\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]},"
                + "\"nullable\":true,\"metadata\":{}}]}");
    assertThat(SchemaJson.parse(SchemaJson.toJson(SCHEMA))).isEqualTo(SCHEMA);
  }

  @Test
  void unsupportedTypesAreRefusedNamingTheColumn() {
    String schema =
        "{\"type\":\"struct\",\"fields\":[{\"name\":\"tags\",\"type\":{\"type\":\"array\","
            + "\"elementType\":\"interval\",\"containsNull\":true},\"nullable\":true,\"metadata\":{}}]}";

    assertThatThrownBy(() -> SchemaJson.parse(schema))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("column 'tags.element' has type interval, which Tributary does not support");
  }

  @Test
  void thePreviewsTableVersionOfATypeChangeIsKeptWhereItWasWritten() {
    String schema =
        "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,"
            + "\"metadata\":{\"delta.typeChanges\":[{\"tableVersion\":3,\"fromType\":\"integer\","
            + "\"toType\":\"long\"}]}},{\"name\":\"b\",\"type\":\"double\",\"nullable\":true,"
            + "\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"float\",\"toType\":\"double\"}]}}]}";
    assertThat(SchemaJson.toJson(SchemaJson.parse(schema))).isEqualTo(schema);
  }

  @Test
  void variantColumnsRoundTripAndReadAsTheirJsonText() {
    String schema =
        "{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"variant\",\"nullable\":true,"
            + "\"metadata\":{}},{\"name\":\"tags\",\"type\":{\"type\":\"array\","
            + "\"elementType\":\"variant\",\"containsNull\":true},\"nullable\":true,\"metadata\":{}}]}";
    StructType parsed = SchemaJson.parse(schema);
    assertThat(parsed.fields().get(0).type()).isEqualTo(VariantType.VARIANT);
    assertThat(SchemaJson.toJson(parsed)).isEqualTo(schema);
    assertThat(VariantType.asJsonText(parsed).fields())
        .extracting(f -> f.type())
        .containsExactly(PrimitiveType.STRING, new ArrayType(PrimitiveType.STRING, true));
  }

  @Test
  void arraysMapsAndTheSmallAndZonelessTypesRoundTripInSparksShape() {
    String schema =
        "{\"type\":\"struct\",\"fields\":["
            + "{\"name\":\"b\",\"type\":\"byte\",\"nullable\":true,\"metadata\":{}},"
            + "{\"name\":\"s\",\"type\":\"short\",\"nullable\":true,\"metadata\":{}},"
            + "{\"name\":\"f\",\"type\":\"float\",\"nullable\":true,\"metadata\":{}},"
            + "{\"name\":\"t\",\"type\":\"timestamp_ntz\",\"nullable\":true,\"metadata\":{}},"
            + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"elementType\":\"string\","
            + "\"containsNull\":false},\"nullable\":true,\"metadata\":{}},"
            + "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"keyType\":\"string\","
            + "\"valueType\":{\"type\":\"array\",\"elementType\":{\"type\":\"struct\","
            + "\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]},"
            + "\"containsNull\":true},\"valueContainsNull\":true},\"nullable\":true,\"metadata\":{}}]}";

    StructType parsed = SchemaJson.parse(schema);

    assertThat(parsed)
        .isEqualTo(
            StructType.of(
                StructField.nullable("b", PrimitiveType.BYTE),
                StructField.nullable("s", PrimitiveType.SHORT),
                StructField.nullable("f", PrimitiveType.FLOAT),
                StructField.nullable("t", PrimitiveType.TIMESTAMP_NTZ),
                StructField.nullable("tags", new ArrayType(PrimitiveType.STRING, false)),
                StructField.nullable(
                    "m",
                    new MapType(
                        PrimitiveType.STRING,
                        new ArrayType(
                            StructType.of(StructField.nullable("x", PrimitiveType.LONG)), true),
                        true))));
    assertThat(SchemaJson.toJson(parsed)).isEqualTo(schema);
  }

  @Test
  void statsUseMicrosecondTimestampsAndRoundTrip() {
    FileStats stats =
        new FileStats(
            3,
            Map.of(
                "id",
                1L,
                "amount",
                new BigDecimal("1.50"),
                "ts",
                Instant.parse("2024-05-01T12:00:00.000001Z"),
                "day",
                LocalDate.of(2024, 5, 1),
                "ok",
                false,
                "x",
                -0.5,
                "address",
                Map.of("city", "Oslo")),
            Map.of(
                "id",
                9L,
                "amount",
                new BigDecimal("99.99"),
                "ts",
                Instant.parse("2024-05-01T12:00:01Z"),
                "day",
                LocalDate.of(2024, 5, 2),
                "ok",
                true,
                "x",
                Double.NaN,
                "raw",
                new byte[] {1}),
            Map.of("id", 0L, "amount", 1L, "address", Map.of("city", 0L, "zip", 3L)));

    String json = StatsJson.toJson(stats, SCHEMA);

    assertThat(json)
        .contains("\"ts\":\"2024-05-01T12:00:00.000001Z\"")
        .contains("\"ts\":\"2024-05-01T12:00:01.000000Z\"")
        .contains("\"amount\":1.50")
        .doesNotContain("NaN")
        .doesNotContain("raw");
    FileStats back = StatsJson.parse(json, SCHEMA);
    assertThat(back.numRecords()).isEqualTo(3);
    assertThat(back.minValues()).isEqualTo(stats.minValues());
    assertThat(back.maxValues()).doesNotContainKeys("x", "raw").containsEntry("ok", true);
    assertThat(back.nullCount()).isEqualTo(stats.nullCount());
  }

  @Test
  void statsOfAFileWithADeletionVectorHaveWideBoundsAndAlwaysNumRecords() {
    String stats = "{\"numRecords\":10,\"minValues\":{\"id\":1},\"maxValues\":{\"id\":9}}";
    assertThat(StatsJson.withWideBounds(stats, 99))
        .as("the stats' own count stands")
        .isEqualTo(
            "{\"numRecords\":10,\"minValues\":{\"id\":1},\"maxValues\":{\"id\":9},"
                + "\"tightBounds\":false}");
    assertThat(StatsJson.withWideBounds("{\"minValues\":{}}", 7))
        .isEqualTo("{\"minValues\":{},\"numRecords\":7,\"tightBounds\":false}");
    assertThat(StatsJson.withWideBounds(null, 7))
        .isEqualTo("{\"numRecords\":7,\"tightBounds\":false}");
    assertThat(StatsJson.numRecords(stats)).isEqualTo(10);
    assertThat(StatsJson.numRecords("{\"minValues\":{}}")).isEqualTo(-1);
    assertThat(StatsJson.numRecords(null)).isEqualTo(-1);
    assertThatThrownBy(() -> StatsJson.numRecords("[1]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("stats are not a JSON object: [1]");
  }
}
