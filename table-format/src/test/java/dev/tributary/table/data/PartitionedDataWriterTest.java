package dev.tributary.table.data;

import static dev.tributary.table.data.TestRows.asLists;
import static dev.tributary.table.data.TestRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PartitionedDataWriterTest {
  private static final StructType EVENTS =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("region", PrimitiveType.STRING),
          StructField.nullable("payload", PrimitiveType.STRING),
          StructField.nullable("day", PrimitiveType.DATE));

  private final InMemoryObjectStore store = new InMemoryObjectStore();

  @Test
  void routesRowsToEscapedHiveDirectoriesPerPartition() throws Exception {
    LocalDate day = LocalDate.of(2024, 1, 2);
    List<Object[]> rows =
        List.of(
            row(1L, "a/b", "p1", day),
            row(2L, "x=y", "p2", day),
            row(3L, "with space", "p3", day),
            row(4L, null, "p4", day),
            row(5L, "a/b", "p5", null),
            row(6L, "a/b", "p6", day));

    List<DataFile> files =
        writeAll(EVENTS, List.of("region", "day"), rows, DataWriteOptions.defaults());

    Map<String, Map<String, String>> byDirectory = new HashMap<>();
    for (DataFile f : files) {
      byDirectory.put(f.path().substring(0, f.path().lastIndexOf('/') + 1), f.partitionValues());
      assertThat(store.stat(f.path())).isPresent();
    }
    assertThat(byDirectory)
        .containsOnlyKeys(
            "region=a%2Fb/day=2024-01-02/",
            "region=x%3Dy/day=2024-01-02/",
            "region=with space/day=2024-01-02/",
            "region=__HIVE_DEFAULT_PARTITION__/day=2024-01-02/",
            "region=a%2Fb/day=__HIVE_DEFAULT_PARTITION__/");
    assertThat(byDirectory.get("region=a%2Fb/day=2024-01-02/"))
        .containsExactly(Map.entry("region", "a/b"), Map.entry("day", "2024-01-02"));
    Map<String, String> nullRegion = new LinkedHashMap<>();
    nullRegion.put("region", null);
    nullRegion.put("day", "2024-01-02");
    assertThat(byDirectory.get("region=__HIVE_DEFAULT_PARTITION__/day=2024-01-02/"))
        .isEqualTo(nullRegion);

    DataFile ab =
        files.stream()
            .filter(f -> f.path().startsWith("region=a%2Fb/day=2024-01-02/"))
            .findFirst()
            .orElseThrow();
    assertThat(ab.stats().numRecords()).isEqualTo(2);
    assertThat(ab.stats().nullCount()).containsOnlyKeys("id", "payload");
    assertThat(asLists(readAll(files, EVENTS))).containsExactlyInAnyOrderElementsOf(asLists(rows));
  }

  @Test
  void partitionColumnsAreNotStoredInTheParquetFile() throws Exception {
    List<DataFile> files =
        writeAll(
            EVENTS,
            List.of("region"),
            List.<Object[]>of(row(1L, "eu", "x", LocalDate.of(2024, 1, 1))),
            DataWriteOptions.defaults());
    StructType withoutPartition =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("region", PrimitiveType.STRING));
    // Read with no partition values: the region column can only come from the file, and must not.
    DataFile unpartitioned =
        new DataFile(files.get(0).path(), Map.of(), files.get(0).size(), 0, files.get(0).stats());

    assertThat(asLists(DataFiles.readAll(store, unpartitioned, withoutPartition)))
        .containsExactly(Arrays.asList(1L, null));
  }

  @Test
  void rollsFilesAtTheTargetSizeAndKeepsEveryRowExactlyOnce() throws Exception {
    long target = 8 * 1024;
    List<Object[]> rows = new ArrayList<>();
    Random random = new Random(42);
    for (long i = 0; i < 8_000; i++) {
      rows.add(row(i, i % 3 == 0 ? "eu" : "us", Long.toString(random.nextLong(), 36), null));
    }

    List<DataFile> files =
        writeAll(
            EVENTS,
            List.of("region"),
            rows,
            new DataWriteOptions(target, DataWriteOptions.Codec.SNAPPY));

    assertThat(files).hasSizeGreaterThan(10);
    Set<String> paths = new HashSet<>();
    for (DataFile f : files) {
      assertThat(paths.add(f.path())).isTrue();
      assertThat(f.size()).isEqualTo(store.stat(f.path()).orElseThrow().size());
    }
    assertThat(files.stream().mapToLong(f -> f.stats().numRecords()).sum()).isEqualTo(rows.size());
    // Every file but the last of each partition was rolled; rolled files are about target size
    // (the estimate counts buffered, uncompressed pages, so the compressed file is smaller).
    Map<String, List<DataFile>> byPartition = new HashMap<>();
    files.forEach(
        f ->
            byPartition
                .computeIfAbsent(f.partitionValues().get("region"), k -> new ArrayList<>())
                .add(f));
    for (List<DataFile> partitionFiles : byPartition.values()) {
      for (DataFile f : partitionFiles.subList(0, partitionFiles.size() - 1)) {
        assertThat(f.size()).isBetween(target / 4, target * 2);
      }
    }
    List<Object[]> read = new ArrayList<>(readAll(files, EVENTS));
    read.sort(Comparator.comparing(r -> (Long) r[0]));
    assertThat(asLists(read)).isEqualTo(asLists(rows));
    List<String> fileNumbers =
        files.stream().map(f -> f.path().replaceAll(".*/part-(\\d{5})-.*", "$1")).toList();
    assertThat(new HashSet<>(fileNumbers)).hasSize(files.size());
  }

  @Test
  void tooManyOpenPartitionsPublishTheLeastRecentlyUsedFileEarly() throws Exception {
    List<Object[]> rows =
        List.of(
            row(1L, "a", "p", null),
            row(2L, "b", "p", null),
            row(3L, "a", "p", null),
            row(4L, "c", "p", null),
            row(5L, "a", "p", null),
            row(6L, "b", "p", null));
    List<DataFile> files;
    try (PartitionedDataWriter writer =
        new RollingPartitionedWriter(
            store,
            EVENTS,
            List.of("region"),
            DataWriteOptions.defaults(),
            new DictionaryMemory(),
            2)) {
      for (Object[] r : rows) {
        writer.write(r);
      }
      files = writer.finish();
    }

    // Room for 2 open files: "c" evicts "b" (least recently used), the second "b" evicts "c";
    // "a" stays open throughout and ends up in one file.
    assertThat(files)
        .extracting(f -> f.partitionValues().get("region") + ":" + f.stats().numRecords())
        .containsExactly("b:1", "c:1", "a:3", "b:1");
    List<Object[]> read = new ArrayList<>(readAll(files, EVENTS));
    read.sort(Comparator.comparing(r -> (Long) r[0]));
    assertThat(asLists(read)).isEqualTo(asLists(rows));
  }

  @Test
  void abortPublishesNothingThatWasOpen() throws Exception {
    PartitionedDataWriter writer =
        DataFiles.newWriter(store, EVENTS, List.of("region"), DataWriteOptions.defaults());
    writer.write(row(1L, "eu", "x", null));
    writer.write(row(2L, "us", "y", null));
    writer.abort();

    assertThat(store.list("")).isEmpty();
    assertThatThrownBy(() -> writer.write(row(3L, "eu", "z", null)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("This data writer is aborted");
    writer.abort();
    writer.close();
  }

  @Test
  void abortLeavesRolledFilesAsOrphansAndDiscardsOnlyOpenOnes() throws Exception {
    List<ObjectInfo> before;
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(
            store, EVENTS, List.of(), new DataWriteOptions(1024, DataWriteOptions.Codec.SNAPPY))) {
      for (long i = 0; i < 500; i++) {
        writer.write(row(i, "r", "payload-" + i, null));
      }
      before = store.list("");
      assertThat(before).isNotEmpty();
      writer.write(row(-1L, "r", "last", null));
      // close() without finish() aborts
    }
    assertThat(store.list("")).isEqualTo(before);
  }

  @Test
  void closeAfterFinishKeepsEveryFile() throws Exception {
    List<DataFile> files;
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, EVENTS, List.of(), DataWriteOptions.defaults())) {
      writer.write(row(1L, "r", "p", null));
      files = writer.finish();
      assertThatThrownBy(writer::finish)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("This data writer is finished");
    }
    assertThat(store.list("")).extracting(ObjectInfo::key).containsExactly(files.get(0).path());
  }

  @Test
  void finishWithoutRowsWritesNoFile() throws Exception {
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, EVENTS, List.of("region"), DataWriteOptions.defaults())) {
      assertThat(writer.finish()).isEmpty();
    }
    assertThat(store.list("")).isEmpty();
  }

  @Test
  void invalidPartitionColumnsAreRefused() {
    assertThatThrownBy(
            () -> DataFiles.newWriter(store, EVENTS, List.of("nope"), DataWriteOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Partition column 'nope' is not a top-level column of the table schema [id, region, payload, day]");
    assertThatThrownBy(
            () ->
                DataFiles.newWriter(
                    store, EVENTS, List.of("day", "day"), DataWriteOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Partition column 'day' is listed twice");
    assertThatThrownBy(
            () ->
                DataFiles.newWriter(
                    store,
                    EVENTS,
                    List.of("id", "region", "payload", "day"),
                    DataWriteOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Every column of the schema is a partition column");
  }

  @Test
  void aPartitionValueOfTheWrongClassIsRefusedBeforeAnythingIsWritten() throws Exception {
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, EVENTS, List.of("day"), DataWriteOptions.defaults())) {
      assertThatThrownBy(() -> writer.write(row(1L, "r", "p", "2024-01-01")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Field 'day' of type date got a java.lang.String");
      // Nothing was half-written, so the writer is still usable.
      writer.write(row(1L, "r", "p", LocalDate.of(2024, 1, 1)));
      assertThat(writer.finish()).hasSize(1);
    }
  }

  private List<DataFile> writeAll(
      StructType schema, List<String> partitionBy, List<Object[]> rows, DataWriteOptions options)
      throws Exception {
    try (PartitionedDataWriter writer = DataFiles.newWriter(store, schema, partitionBy, options)) {
      for (Object[] r : rows) {
        writer.write(r);
      }
      return writer.finish();
    }
  }

  private List<Object[]> readAll(List<DataFile> files, StructType schema) throws Exception {
    List<Object[]> rows = new ArrayList<>();
    for (DataFile f : files) {
      rows.addAll(DataFiles.readAll(store, f, schema));
    }
    return rows;
  }
}
