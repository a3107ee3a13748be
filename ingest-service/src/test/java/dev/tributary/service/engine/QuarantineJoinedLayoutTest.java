package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.QuarantineRows.InputKind;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The quarantine layouts of a stream-stream join (docs/DESIGN.md, "Two inputs in one batch"): two
 * Kafka inputs keep {@link QuarantineRows#JOINED_SCHEMA}, two tables the table rows' columns plus
 * {@code input}, and a Kafka input with a table both provenance sets, the other kind's null, with
 * {@code error} where the quarantine's first-error report reads it.
 */
class QuarantineJoinedLayoutTest {
  private static final Instant AT = Instant.parse("2026-12-03T07:00:00Z");

  @Test
  void theSchemaFollowsTheInputsKinds() {
    assertThat(QuarantineRows.joinedSchema(InputKind.RECORDS, InputKind.RECORDS))
        .isEqualTo(QuarantineRows.JOINED_SCHEMA);
    assertThat(QuarantineRows.joinedSchema(InputKind.TABLE_ROWS, InputKind.TABLE_ROWS).fieldNames())
        .containsExactly(
            "source_table",
            "source_file",
            "source_version",
            "source_file_index",
            "source_row",
            "row",
            "error",
            "pipeline",
            "batch_id",
            "quarantined_at",
            "input");
    StructType mixed = QuarantineRows.joinedSchema(InputKind.TABLE_ROWS, InputKind.RECORDS);
    assertThat(QuarantineRows.joinedSchema(InputKind.RECORDS, InputKind.TABLE_ROWS))
        .isEqualTo(mixed)
        .isEqualTo(QuarantineRows.MIXED_SCHEMA);
    assertThat(mixed.fieldNames())
        .containsExactly(
            "topic",
            "partition",
            "offset",
            "kafka_timestamp",
            "key",
            "value",
            "error",
            "pipeline",
            "batch_id",
            "quarantined_at",
            "input",
            "source_table",
            "source_file",
            "source_version",
            "source_file_index",
            "source_row",
            "row");
    assertThat(mixed.fields()).allMatch(f -> f.nullable());
    // an older joined table of two Kafka inputs is a prefix: addColumns upgrades it
    assertThat(mixed.fields().subList(0, QuarantineRows.JOINED_SCHEMA.size()))
        .isEqualTo(QuarantineRows.JOINED_SCHEMA.fields());
  }

  @Test
  void aRecordAndATableRowEachFillTheirOwnProvenanceInTheMixedLayout() {
    Object[] record = {
      "clicks", 2, 41L, AT, null, new byte[] {1}, "bad json", "attribution", 7L, AT, "main"
    };
    UnaryOperator<Object[]> records =
        QuarantineRows.joinedLayout(InputKind.RECORDS, InputKind.TABLE_ROWS, InputKind.RECORDS);
    Object[] fromRecord = records.apply(record);
    assertThat(fromRecord).hasSize(QuarantineRows.MIXED_SCHEMA.size());
    assertThat(Arrays.asList(fromRecord).subList(0, record.length))
        .isEqualTo(Arrays.asList(record));
    assertThat(Arrays.asList(fromRecord).subList(record.length, fromRecord.length))
        .containsOnlyNulls();

    Object[] tableRow = {
      "s3://lake/purchases",
      "part-0.parquet",
      12L,
      0L,
      5L,
      "{\"user_id\":\"u1\"}",
      "amount > 0 failed",
      "attribution",
      7L,
      AT,
      "join[0]"
    };
    UnaryOperator<Object[]> rows =
        QuarantineRows.joinedLayout(InputKind.RECORDS, InputKind.TABLE_ROWS, InputKind.TABLE_ROWS);
    Object[] fromTable = rows.apply(tableRow);
    assertThat(Arrays.asList(fromTable))
        .isEqualTo(
            Arrays.asList(
                null,
                null,
                null,
                null,
                null,
                null,
                "amount > 0 failed",
                "attribution",
                7L,
                AT,
                "join[0]",
                "s3://lake/purchases",
                "part-0.parquet",
                12L,
                0L,
                5L,
                "{\"user_id\":\"u1\"}"));
    assertThat(fromTable[QuarantineRows.ERROR_INDEX]).isEqualTo("amount > 0 failed");
    assertThat(QuarantineRows.MIXED_SCHEMA.fields().get(QuarantineRows.ERROR_INDEX).name())
        .isEqualTo("error");

    // inputs of one kind: rows as they are
    for (InputKind kind : List.of(InputKind.RECORDS, InputKind.TABLE_ROWS)) {
      assertThat(QuarantineRows.joinedLayout(kind, kind, kind).apply(record)).isSameAs(record);
    }
  }
}
