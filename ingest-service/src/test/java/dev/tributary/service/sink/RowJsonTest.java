package dev.tributary.service.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.sink.jdbc.PostgresDialect;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sinks beyond Delta take every column type a Delta table has: the Kafka sink's JSON value
 * ({@link RowJson}) writes small numbers as numbers, arrays as arrays and maps as objects; the JDBC
 * sink creates a column of a fitting PostgreSQL type for each.
 */
class RowJsonTest {
  private static final StructType SCHEMA =
      StructType.of(
          new StructField("b", PrimitiveType.BYTE, true),
          new StructField("s", PrimitiveType.SHORT, true),
          new StructField("f", PrimitiveType.FLOAT, true),
          new StructField("at", PrimitiveType.TIMESTAMP_NTZ, true),
          new StructField("tags", new ArrayType(PrimitiveType.STRING, true), true),
          new StructField(
              "scores", new MapType(PrimitiveType.INTEGER, PrimitiveType.LONG, true), true));

  @Test
  void everyColumnTypeIsWrittenAsItsJsonValue() {
    Map<Integer, Long> scores = new LinkedHashMap<>();
    scores.put(1, 10L);
    scores.put(2, null);
    Object[] row = {
      (byte) 7,
      (short) -300,
      1.5f,
      LocalDateTime.parse("2026-03-29T02:30:00.123456"),
      java.util.Arrays.asList("a", null),
      scores
    };
    String json = new String(new RowJson(SCHEMA).encode(row), StandardCharsets.UTF_8);
    assertThat(json)
        .isEqualTo(
            "{\"b\":7,\"s\":-300,\"f\":1.5,\"at\":\"2026-03-29T02:30:00.123456\","
                + "\"tags\":[\"a\",null],\"scores\":{\"1\":10,\"2\":null}}");
    assertThat(RowJson.text(PrimitiveType.FLOAT, Float.NaN)).isEqualTo("\"NaN\"");
  }

  @Test
  void theJdbcSinkCreatesAFittingColumnForEveryType() {
    PostgresDialect dialect = new PostgresDialect();
    assertThat(
            List.of(
                dialect.columnType(PrimitiveType.BYTE),
                dialect.columnType(PrimitiveType.SHORT),
                dialect.columnType(PrimitiveType.FLOAT),
                dialect.columnType(PrimitiveType.TIMESTAMP_NTZ),
                dialect.columnType(new ArrayType(PrimitiveType.STRING, true)),
                dialect.columnType(new MapType(PrimitiveType.STRING, PrimitiveType.LONG, true))))
        .containsExactly(
            "smallint", "smallint", "real", "timestamp without time zone", "jsonb", "jsonb");
  }
}
