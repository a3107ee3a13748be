package dev.tributary.table.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RowChecksTest {
  static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("s", PrimitiveType.STRING),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("day", PrimitiveType.DATE),
          StructField.nullable("dec", new DecimalType(6, 2)),
          StructField.nullable(
              "addr", StructType.of(StructField.nullable("city", PrimitiveType.STRING))),
          StructField.nullable("region", PrimitiveType.STRING));
  static final RowChecks CHECKS = RowChecks.forTable(SCHEMA, List.of("region"));

  @TempDir Path dir;

  static Object[] row() {
    return new Object[] {
      1L,
      "s",
      Instant.parse("2026-01-01T00:00:00Z"),
      LocalDate.of(2026, 1, 1),
      new BigDecimal("12.50"),
      new Object[] {"Zürich"},
      "EU"
    };
  }

  static Object[] with(int index, Object value) {
    Object[] r = row();
    r[index] = value;
    return r;
  }

  @Test
  void aWritableRowHasNoProblem() {
    assertThat(CHECKS.problem(row())).isNull();
    assertThat(CHECKS.problem(new Object[] {1L, null, null, null, null, null, null})).isNull();
    assertThat(CHECKS.problem(with(1, "emoji \uD83D\uDE00 pair"))).isNull();
    assertThat(CHECKS.problem(with(2, RowChecks.MIN_TIMESTAMP))).isNull();
    assertThat(CHECKS.problem(with(2, RowChecks.MAX_TIMESTAMP))).isNull();
    assertThat(CHECKS.problem(with(4, new BigDecimal("1234.5")))).isNull(); // exact at scale 2
    assertThat(CHECKS.problem(with(4, new BigDecimal("1E+2")))).isNull();
  }

  @Test
  void timestampsAndDatesOutsideYears1To9999AreNamed() {
    assertThat(CHECKS.problem(with(2, Instant.parse("+10000-01-01T00:00:00Z"))))
        .isEqualTo(
            "column 'ts': timestamp +10000-01-01T00:00:00Z is outside the years 0001-9999 that Delta"
                + " and Spark timestamps hold");
    assertThat(CHECKS.problem(with(2, Instant.parse("0000-12-31T23:59:59.999999Z"))))
        .startsWith("column 'ts'");
    // microseconds since the epoch would overflow a long: the writer would fail with "long
    // overflow"
    assertThat(CHECKS.problem(with(2, Instant.ofEpochMilli(Long.MAX_VALUE))))
        .startsWith("column 'ts'");
    assertThat(CHECKS.problem(with(3, LocalDate.of(10000, 1, 1))))
        .startsWith("column 'day': date +10000-01-01 is outside the years 0001-9999");
  }

  @Test
  void unpairedSurrogatesAreNamedAlsoInNestedFields() {
    assertThat(CHECKS.problem(with(1, "ab\uD800")))
        .startsWith("column 's': the string has an unpaired UTF-16 surrogate at character 2");
    assertThat(CHECKS.problem(with(1, "\uDC00x"))).startsWith("column 's'");
    assertThat(CHECKS.problem(with(5, new Object[] {"x\uD800y"}))).startsWith("column 'addr.city'");
  }

  @Test
  void decimalsThatNeedRoundingOrMoreDigitsAreNamed() {
    assertThat(CHECKS.problem(with(4, new BigDecimal("1.005"))))
        .isEqualTo("column 'dec': 1.005 does not fit decimal(6,2) without rounding or overflow");
    assertThat(CHECKS.problem(with(4, new BigDecimal("12345.00")))).startsWith("column 'dec'");
    assertThat(CHECKS.problem(with(4, new BigDecimal("1E+999999999")))).startsWith("column 'dec'");
  }

  @Test
  void partitionValuesThatCannotNameADirectoryAreNamed() {
    assertThat(CHECKS.problem(with(6, "E\0U")))
        .startsWith("partition column 'region': the value contains a NUL");
    assertThat(CHECKS.problem(with(6, "x".repeat(300))))
        .startsWith("partition column 'region': the value makes");
    assertThat(CHECKS.problem(with(6, "x\uD800")))
        .startsWith("column 'region': the string has an unpaired");
  }

  @Test
  void partitionValuesThatTogetherMakeADirectoryTooLongForAnS3KeyAreRefused() {
    StructType schema =
        StructType.of(
            StructField.nullable("v", PrimitiveType.LONG),
            StructField.nullable("a", PrimitiveType.STRING),
            StructField.nullable("b", PrimitiveType.STRING),
            StructField.nullable("c", PrimitiveType.STRING),
            StructField.nullable("d", PrimitiveType.STRING));
    RowChecks checks = RowChecks.forTable(schema, List.of("a", "b", "c", "d"));
    String v = "x".repeat(200); // each segment fits (202 bytes), four of them do not (812)
    assertThat(checks.problem(new Object[] {1L, v, v, "short", "short"})).isNull();
    assertThat(checks.problem(new Object[] {1L, v, v, v, v}))
        .startsWith(
            "partition columns: the values make a partition directory of about 812 bytes (escaped),"
                + " above the 768 bytes");
    // the per-column cache of writable values must not hide a problem of the same value elsewhere
    assertThat(checks.problem(new Object[] {1L, v, v, v, v})).startsWith("partition columns:");
    assertThat(checks.problem(new Object[] {1L, v, v, null, null})).isNull();
  }

  @Test
  void aNullInANonNullableColumnIsNamed() {
    assertThat(CHECKS.problem(with(0, null)))
        .isEqualTo("column 'id': null in a non-nullable column");
  }

  @Test
  void everyRowWithoutAProblemIsWrittenAndEveryRowWithOneWouldHaveFailedTheWriter()
      throws Exception {
    Object[][] bad = {
      with(2, Instant.ofEpochMilli(Long.MAX_VALUE)),
      with(6, "E\0U"),
      with(6, "x".repeat(300)),
      with(4, new BigDecimal("1.005"))
    };
    for (Object[] r : bad) {
      assertThat(CHECKS.problem(r)).isNotNull();
      try (ObjectStore store =
              ObjectStores.open(dir.resolve("t" + System.nanoTime()).toString(), null);
          PartitionedDataWriter writer =
              DataFiles.newWriter(store, SCHEMA, List.of("region"), DataWriteOptions.defaults())) {
        assertThatThrownBy(
                () -> {
                  writer.write(r);
                  writer.finish();
                })
            .as(CHECKS.problem(r))
            .isInstanceOfAny(IllegalArgumentException.class, IOException.class);
      }
    }
    try (ObjectStore store = ObjectStores.open(dir.resolve("good").toString(), null);
        PartitionedDataWriter writer =
            DataFiles.newWriter(store, SCHEMA, List.of("region"), DataWriteOptions.defaults())) {
      writer.write(row());
      assertThat(writer.finish()).hasSize(1);
    }
  }
}
