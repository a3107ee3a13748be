package dev.tributary.table.data;

import static dev.tributary.table.data.TestRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CodecTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("name", PrimitiveType.STRING));

  @ParameterizedTest
  @CsvSource({
    "SNAPPY, SNAPPY, .snappy.parquet",
    "ZSTD, ZSTD, .zstd.parquet",
    "GZIP, GZIP, .gz.parquet",
    "UNCOMPRESSED, UNCOMPRESSED, .parquet"
  })
  void everyCodecWritesReadableFilesNamedAfterIt(
      DataWriteOptions.Codec codec, CompressionCodecName parquetCodec, String suffix)
      throws Exception {
    WarmUp.writeAndDeleteSample(codec); // what a pipeline does in the background at start
    WarmUp.startInBackground(codec);
    InMemoryObjectStore store = new InMemoryObjectStore();
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < 5_000; i++) {
      rows.add(row(i, "name-" + (i % 97)));
    }
    DataFile file;
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(
            store,
            SCHEMA,
            List.of(),
            new DataWriteOptions(DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, codec))) {
      for (Object[] r : rows) {
        writer.write(r);
      }
      file = writer.finish().get(0);
    }

    assertThat(file.path()).matches("part-00000-[0-9a-f-]{36}" + suffix.replace(".", "\\."));
    try (ParquetFileReader reader =
        ParquetFileReader.open(new StoreInputFile(store, file.path()))) {
      assertThat(reader.getFooter().getBlocks().get(0).getColumns())
          .allSatisfy(c -> assertThat(c.getCodec()).isEqualTo(parquetCodec));
    }
    assertThat(TestRows.asLists(DataFiles.readAll(store, file, SCHEMA)))
        .isEqualTo(TestRows.asLists(rows));
  }
}
