package dev.tributary.table.data;

import static dev.tributary.table.data.TestRows.ALL_TYPES;
import static dev.tributary.table.data.TestRows.asLists;
import static dev.tributary.table.data.TestRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.FileNotFoundException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DataFilesRoundTripTest {
  private final InMemoryObjectStore store = new InMemoryObjectStore();

  private static List<Object[]> allTypeRows() {
    List<Object[]> rows = new ArrayList<>();
    rows.add(
        row(
            "héllo wörld ✓ 𝄞 日本",
            42,
            1L << 40,
            3.25,
            true,
            Instant.parse("2024-02-29T23:59:59.123456Z"),
            LocalDate.of(2024, 2, 29),
            new byte[] {0, 1, (byte) 0xFF},
            new BigDecimal("1234567.89"),
            new BigDecimal("-12345678901234.5678"),
            new BigDecimal("1234567890123456789012345678.0123456789"),
            row("Zürich", 8001)));
    rows.add(row(null, null, null, null, null, null, null, null, null, null, null, null));
    rows.add(
        row(
            "",
            Integer.MIN_VALUE,
            Long.MIN_VALUE,
            -0.5,
            false,
            Instant.parse("1969-12-31T23:59:59.999999Z"),
            LocalDate.of(1900, 1, 1),
            new byte[0],
            new BigDecimal("-9999999.99"),
            new BigDecimal("99999999999999.9999"),
            new BigDecimal("-9999999999999999999999999999.9999999999"),
            row(null, null)));
    rows.add(
        row(
            "x",
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            Double.MAX_VALUE,
            true,
            Instant.parse("1970-01-01T00:00:00.000001Z"),
            LocalDate.of(9999, 12, 31),
            new byte[] {7},
            new BigDecimal("0.01"),
            new BigDecimal("0.0001"),
            new BigDecimal("0E-10"),
            row("Bern", null)));
    return rows;
  }

  @Test
  void everyTypeRoundTripsIncludingNulls() throws Exception {
    List<Object[]> rows = allTypeRows();
    DataFile file = writeOne(ALL_TYPES, rows, DataWriteOptions.defaults());

    assertThat(asLists(DataFiles.readAll(store, file, ALL_TYPES))).isEqualTo(asLists(rows));
    assertThat(file.path()).matches("part-00000-[0-9a-f-]{36}\\.snappy\\.parquet");
    assertThat(file.size()).isEqualTo(store.stat(file.path()).orElseThrow().size());
    assertThat(file.partitionValues()).isEmpty();
    assertThat(file.stats().numRecords()).isEqualTo(4);
  }

  @Test
  void decimalsAreRescaledToTheColumnScale() throws Exception {
    StructType schema = StructType.of(StructField.nullable("d", new DecimalType(5, 2)));
    DataFile file =
        writeOne(
            schema,
            List.of(row(new BigDecimal("1.5")), row(new BigDecimal("7"))),
            DataWriteOptions.defaults());

    List<Object[]> read = DataFiles.readAll(store, file, schema);
    assertThat(read)
        .extracting(r -> r[0])
        .containsExactly(new BigDecimal("1.50"), new BigDecimal("7.00"));
  }

  @Test
  void aDecimalThatNeedsRoundingIsRefusedWithTheFieldName() throws Exception {
    StructType schema = StructType.of(StructField.nullable("price", new DecimalType(5, 2)));
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, schema, List.of(), DataWriteOptions.defaults())) {
      assertThatThrownBy(() -> writer.write(row(new BigDecimal("1.234"))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'price'")
          .hasMessageContaining("decimal(5,2)")
          .hasMessageContaining("1.234");
      assertThatThrownBy(writer::finish)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("failed");
    }
    assertThat(store.list("")).isEmpty();
  }

  @Test
  void aNullInANonNullableFieldIsRefusedWithItsPath() throws Exception {
    StructType schema =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable(
                "inner", StructType.of(new StructField("must", PrimitiveType.STRING, false))));
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, schema, List.of(), DataWriteOptions.defaults())) {
      assertThatThrownBy(() -> writer.write(row(1L, row((Object) null))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Null value for non-nullable field 'inner.must'; supply a value or declare the field nullable");
    }
  }

  @Test
  void aValueOfTheWrongClassIsRefused() throws Exception {
    StructType schema = StructType.of(StructField.nullable("n", PrimitiveType.LONG));
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, schema, List.of(), DataWriteOptions.defaults())) {
      assertThatThrownBy(() -> writer.write(row(5)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Field 'n' of type long got a java.lang.Integer");
    }
  }

  @Test
  void aRowOfTheWrongArityIsRefused() throws Exception {
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, ALL_TYPES, List.of(), DataWriteOptions.defaults())) {
      assertThatThrownBy(() -> writer.write(row("only one")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Row has 1 values but the table schema has 12 columns");
    }
  }

  @Test
  void readingFillsColumnsMissingFromTheFileWithNullAndSkipsUnknownOnes() throws Exception {
    StructType written =
        StructType.of(
            StructField.nullable("a", PrimitiveType.LONG),
            StructField.nullable("gone", PrimitiveType.STRING));
    DataFile file =
        writeOne(written, List.of(row(1L, "x"), row(2L, "y")), DataWriteOptions.defaults());
    StructType evolved =
        StructType.of(
            StructField.nullable("a", PrimitiveType.LONG),
            StructField.nullable("added", PrimitiveType.DOUBLE));

    assertThat(asLists(DataFiles.readAll(store, file, evolved)))
        .isEqualTo(asLists(List.of(row(1L, null), row(2L, null))));
  }

  @Test
  void readingAColumnAsAnIncompatibleTypeFailsWithTheColumnAndFile() throws Exception {
    StructType written = StructType.of(StructField.nullable("a", PrimitiveType.STRING));
    DataFile file = writeOne(written, List.<Object[]>of(row("x")), DataWriteOptions.defaults());
    StructType other = StructType.of(StructField.nullable("a", PrimitiveType.LONG));

    assertThatThrownBy(() -> DataFiles.readAll(store, file, other))
        .hasMessageContaining("Data file '" + file.path() + "' stores column 'a' as")
        .hasMessageContaining("cannot be read as long");
  }

  @Test
  void readingAMissingFileNamesIt() {
    DataFile missing =
        new DataFile(
            "part-00000-nope.snappy.parquet",
            Map.of(),
            10,
            0,
            new FileStats(0, Map.of(), Map.of(), Map.of()));
    assertThatThrownBy(() -> DataFiles.read(store, missing, ALL_TYPES))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("part-00000-nope.snappy.parquet");
  }

  @Test
  void largeFilesAreReadWithRangedReadsAcrossWindows() throws Exception {
    StructType schema =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("payload", PrimitiveType.STRING));
    List<Object[]> rows = new ArrayList<>();
    Random random = new Random(7);
    for (long i = 0; i < 60_000; i++) {
      rows.add(row(i, Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong())));
    }
    DataFile file =
        writeOne(
            schema,
            rows,
            new DataWriteOptions(
                DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, DataWriteOptions.Codec.UNCOMPRESSED));
    assertThat(file.size()).isGreaterThan(2L * StoreInputFile.WINDOW);

    assertThat(asLists(DataFiles.readAll(store, file, schema))).isEqualTo(asLists(rows));
  }

  private DataFile writeOne(StructType schema, List<Object[]> rows, DataWriteOptions options)
      throws Exception {
    try (PartitionedDataWriter writer = DataFiles.newWriter(store, schema, List.of(), options)) {
      for (Object[] r : rows) {
        writer.write(r);
      }
      List<DataFile> files = writer.finish();
      assertThat(files).hasSize(1);
      return files.get(0);
    }
  }
}
