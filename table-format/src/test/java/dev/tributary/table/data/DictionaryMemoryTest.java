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
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;

class DictionaryMemoryTest {
  private static final StructType EVENTS =
      StructType.of(
          StructField.nullable("event_id", PrimitiveType.STRING),
          StructField.nullable("kind", PrimitiveType.STRING),
          StructField.nullable("amount", PrimitiveType.LONG));

  private final InMemoryObjectStore store = new InMemoryObjectStore();
  private final DictionaryMemory memory = new DictionaryMemory();

  @Test
  void aColumnOfUniqueValuesIsWrittenPlainInTheNextFilesAndAColumnOfFewValuesKeepsItsDictionary()
      throws Exception {
    DataFile first = writeBatch(rows(0, 5_000, 4));

    // Parquet tried a dictionary for every column; the unique ids fell back to plain pages
    assertThat(dictionaryEncoded(first, "event_id")).isFalse();
    assertThat(dictionaryEncoded(first, "kind")).isTrue();
    assertThat(memory.plainColumns()).containsExactly("event_id");

    DataFile second = writeBatch(rows(5_000, 5_000, 4));
    assertThat(dictionaryEncoded(second, "kind")).isTrue();
    assertThat(memory.plainColumns()).containsExactly("event_id");
    assertThat(TestRows.asLists(DataFiles.readAll(store, second, EVENTS)))
        .isEqualTo(TestRows.asLists(rows(5_000, 5_000, 4)));
  }

  @Test
  void theNextFileOfATableWritesAFallenBackColumnPlainAndTriesItsDictionaryAgainLater()
      throws Exception {
    // "kind" with a value per row: it falls back
    writeBatch(rows(0, 5_000, 5_000));
    assertThat(memory.plainColumns()).containsExactly("event_id", "kind");

    // now "kind" has 3 values, which Parquet would dictionary-encode: the memory keeps it plain
    DataFile fewKinds = writeBatch(rows(5_000, 2_000, 3));
    assertThat(dictionaryEncoded(fewKinds, "kind")).isFalse();
    assertThat(TestRows.asLists(DataFiles.readAll(store, fewKinds, EVENTS)))
        .isEqualTo(TestRows.asLists(rows(5_000, 2_000, 3)));

    // ... until it is tried again: it fell back in file 1, files 2 to RETRY_EVERY are plain
    DataFile last = null;
    for (int file = 3; file <= DictionaryMemory.RETRY_EVERY; file++) {
      last = writeBatch(rows(7_000 + file * 100, 100, 3));
    }
    assertThat(dictionaryEncoded(last, "kind")).isFalse();
    DataFile retried = writeBatch(rows(20_000, 2_000, 3));
    assertThat(dictionaryEncoded(retried, "kind")).isTrue();
    assertThat(memory.plainColumns()).containsExactly("event_id");
  }

  @Test
  void aFreshWriterWithoutMemoryTriesEveryDictionary() throws Exception {
    writeBatch(rows(0, 5_000, 5_000));

    DataFile file;
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, EVENTS, List.of(), DataWriteOptions.defaults())) {
      for (Object[] row : rows(5_000, 2_000, 3)) {
        writer.write(row);
      }
      file = writer.finish().get(0);
    }
    assertThat(dictionaryEncoded(file, "kind")).isTrue();
  }

  /** One batch's writer sharing the test's memory, as a sink's batches do; one file. */
  private DataFile writeBatch(List<Object[]> rows) throws Exception {
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, EVENTS, List.of(), DataWriteOptions.defaults(), memory)) {
      for (Object[] row : rows) {
        writer.write(row);
      }
      List<DataFile> files = writer.finish();
      assertThat(files).hasSize(1);
      return files.get(0);
    }
  }

  private static List<Object[]> rows(int from, int count, int kinds) {
    List<Object[]> rows = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      rows.add(row("event-" + i, "kind-" + i % kinds, (long) i % 7));
    }
    return rows;
  }

  private boolean dictionaryEncoded(DataFile file, String column) throws Exception {
    try (ParquetFileReader reader =
        ParquetFileReader.open(new StoreInputFile(store, file.path()))) {
      ParquetMetadata footer = reader.getFooter();
      ColumnChunkMetaData chunk =
          footer.getBlocks().get(0).getColumns().stream()
              .filter(c -> c.getPath().toDotString().equals(column))
              .findFirst()
              .orElseThrow();
      return chunk.getEncodingStats().hasDictionaryEncodedPages();
    }
  }
}
