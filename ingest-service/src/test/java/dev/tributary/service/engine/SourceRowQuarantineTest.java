package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.log.AddFile;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A quarantined row of a table source names its table, file, version, file index and row. */
class SourceRowQuarantineTest {
  @Test
  void theQuarantineRowCarriesTheProvenanceAndTheValuesAsJson() {
    StructType schema =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("name", PrimitiveType.STRING),
            StructField.nullable("raw", PrimitiveType.BINARY),
            StructField.nullable("at", PrimitiveType.TIMESTAMP));
    AddFile add =
        new AddFile(
            "region=EU/part-0.parquet", Map.of("region", "EU"), 100, 0, true, null, Map.of());
    SourceRow row =
        new SourceRow(
            new SourceFile(12, 3, false, add),
            17,
            new Object[] {
              7L, "a \"quoted\" name", new byte[] {1, 2}, Instant.parse("2026-12-01T00:00:00Z")
            });
    Instant at = Instant.parse("2026-12-01T12:00:00Z");

    Object[] q =
        QuarantineRows.row(row, "s3://lake/bronze", schema, "transform failed: x", "silver", 4, at);

    assertThat(q).hasSize(QuarantineRows.SOURCE_ROW_SCHEMA.size());
    assertThat(q)
        .containsExactly(
            "s3://lake/bronze",
            "region=EU/part-0.parquet",
            12L,
            3L,
            17L,
            "{\"id\":7,\"name\":\"a \\\"quoted\\\" name\",\"raw\":\"AQI=\",\"at\":\"2026-12-01T00:00:00Z\"}",
            "transform failed: x",
            "silver",
            4L,
            at);
  }
}
