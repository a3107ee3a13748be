package dev.tributary.table.data;

import static dev.tributary.table.data.TestRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes through a local-disk store and reads the file back with parquet-hadoop's own example
 * object model (not our converters), checking the physical layout other engines rely on.
 */
class IndependentReaderTest {
  private static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("region", PrimitiveType.STRING),
          StructField.nullable("s", PrimitiveType.STRING),
          StructField.nullable("i", PrimitiveType.INTEGER),
          StructField.nullable("d", PrimitiveType.DOUBLE),
          StructField.nullable("b", PrimitiveType.BOOLEAN),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("dt", PrimitiveType.DATE),
          StructField.nullable("bin", PrimitiveType.BINARY),
          StructField.nullable("dec9", new DecimalType(9, 2)),
          StructField.nullable("dec18", new DecimalType(18, 4)),
          StructField.nullable("dec38", new DecimalType(38, 10)),
          StructField.nullable(
              "addr",
              StructType.of(
                  StructField.nullable("city", PrimitiveType.STRING),
                  new StructField("zip", PrimitiveType.INTEGER, false))));

  private static final String EXPECTED_SCHEMA =
      """
      message spark_schema {
        required int64 id;
        optional binary s (STRING);
        optional int32 i;
        optional double d;
        optional boolean b;
        optional int64 ts (TIMESTAMP(MICROS,true));
        optional int32 dt (DATE);
        optional binary bin;
        optional int32 dec9 (DECIMAL(9,2));
        optional int64 dec18 (DECIMAL(18,4));
        optional fixed_len_byte_array(16) dec38 (DECIMAL(38,10));
        optional group addr {
          optional binary city (STRING);
          required int32 zip;
        }
      }
      """;

  @TempDir Path dir;

  @Test
  void parquetsOwnReaderSeesTheSparkCompatibleSchemaAndValues() throws Exception {
    Instant ts = Instant.parse("2024-02-29T12:00:00.654321Z");
    BigDecimal big = new BigDecimal("-1234567890123456789012345678.0123456789");
    List<DataFile> files;
    try (ObjectStore store = ObjectStores.open(dir.toString(), null);
        PartitionedDataWriter writer =
            DataFiles.newWriter(
                store,
                SCHEMA,
                List.of("region"),
                new DataWriteOptions(
                    DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, DataWriteOptions.Codec.ZSTD))) {
      writer.write(
          row(
              7L,
              "eu/west",
              "Grüße 😀",
              3,
              2.5,
              true,
              ts,
              LocalDate.of(2024, 2, 29),
              new byte[] {1, 2},
              new BigDecimal("12.34"),
              new BigDecimal("-5.0001"),
              big,
              row("Bern", 3000)));
      writer.write(
          row(8L, "eu/west", null, null, null, null, null, null, null, null, null, null, null));
      files = writer.finish();
    }
    assertThat(files).hasSize(1);
    Path path = dir.resolve(files.get(0).path());
    assertThat(files.get(0).path())
        .startsWith("region=eu%2Fwest/part-00000-")
        .endsWith(".zstd.parquet");
    assertThat(path).exists();
    assertThat(Files.size(path)).isEqualTo(files.get(0).size());

    InputFile input = new LocalInputFile(path);
    try (ParquetFileReader reader = ParquetFileReader.open(input)) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      assertThat(schema).isEqualTo(MessageTypeParser.parseMessageType(EXPECTED_SCHEMA));
      assertThat(reader.getFooter().getBlocks().get(0).getColumns())
          .allSatisfy(c -> assertThat(c.getCodec()).isEqualTo(CompressionCodecName.ZSTD));
      assertThat(reader.getRecordCount()).isEqualTo(2);
    }

    List<Group> groups = readGroups(input);
    assertThat(groups).hasSize(2);
    Group first = groups.get(0);
    assertThat(first.getLong("id", 0)).isEqualTo(7L);
    assertThat(first.getString("s", 0)).isEqualTo("Grüße 😀");
    assertThat(first.getInteger("i", 0)).isEqualTo(3);
    assertThat(first.getDouble("d", 0)).isEqualTo(2.5);
    assertThat(first.getBoolean("b", 0)).isTrue();
    assertThat(first.getLong("ts", 0)).isEqualTo(ts.getEpochSecond() * 1_000_000 + 654_321);
    assertThat(first.getInteger("dt", 0)).isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
    assertThat(first.getBinary("bin", 0).getBytes()).containsExactly(1, 2);
    assertThat(first.getInteger("dec9", 0)).isEqualTo(1234);
    assertThat(first.getLong("dec18", 0)).isEqualTo(-50001L);
    assertThat(new BigDecimal(new BigInteger(first.getBinary("dec38", 0).getBytes()), 10))
        .isEqualTo(big);
    Group addr = first.getGroup("addr", 0);
    assertThat(addr.getString("city", 0)).isEqualTo("Bern");
    assertThat(addr.getInteger("zip", 0)).isEqualTo(3000);

    Group second = groups.get(1);
    assertThat(second.getLong("id", 0)).isEqualTo(8L);
    for (String column :
        List.of("s", "i", "d", "b", "ts", "dt", "bin", "dec9", "dec18", "dec38", "addr")) {
      assertThat(second.getFieldRepetitionCount(column)).as(column).isZero();
    }
  }

  @Test
  void localStoreHoldsOnlyPublishedFilesAfterFinishAndNothingAfterAbort() throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.toString(), null)) {
      try (PartitionedDataWriter writer =
          DataFiles.newWriter(store, SCHEMA, List.of("region"), DataWriteOptions.defaults())) {
        writer.write(
            row(1L, "a", null, null, null, null, null, null, null, null, null, null, null));
        // closed without finish: aborted
      }
      assertThat(regularFiles()).isEmpty();

      List<DataFile> files;
      try (PartitionedDataWriter writer =
          DataFiles.newWriter(store, SCHEMA, List.of("region"), DataWriteOptions.defaults())) {
        writer.write(
            row(1L, "a", null, null, null, null, null, null, null, null, null, null, null));
        writer.write(
            row(2L, null, null, null, null, null, null, null, null, null, null, null, null));
        files = writer.finish();
      }
      assertThat(regularFiles())
          .containsExactlyInAnyOrderElementsOf(files.stream().map(DataFile::path).toList());
      List<Object[]> rows = new ArrayList<>();
      for (DataFile f : files) {
        rows.addAll(DataFiles.readAll(store, f, SCHEMA));
      }
      assertThat(rows)
          .extracting(r -> r[0], r -> r[1])
          .containsExactlyInAnyOrder(Tuple.tuple(1L, "a"), Tuple.tuple(2L, null));
    }
  }

  private List<String> regularFiles() throws Exception {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .map(p -> dir.relativize(p).toString().replace('\\', '/'))
          .toList();
    }
  }

  private static List<Group> readGroups(InputFile input) throws Exception {
    List<Group> out = new ArrayList<>();
    try (ParquetReader<Group> reader =
        new ParquetReader.Builder<Group>(input) {
          @Override
          protected ReadSupport<Group> getReadSupport() {
            return new GroupReadSupport();
          }
        }.build()) {
      for (Group g = reader.read(); g != null; g = reader.read()) {
        out.add(g);
      }
    }
    return out;
  }
}
