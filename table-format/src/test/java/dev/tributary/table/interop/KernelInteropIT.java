package dev.tributary.table.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.MergeSpec;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.OverwriteTransaction;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import io.delta.kernel.types.LongType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every kind of table we write, read back by Delta Kernel 4.4.0 (DefaultEngine, through a FileIO
 * over our ObjectStore) on local disk and on the S3 test server: all rows and the txn versions must
 * match what we wrote.
 */
class KernelInteropIT {
  static final StructType ADDRESS =
      StructType.of(
          StructField.nullable("city", PrimitiveType.STRING),
          StructField.nullable("zip", PrimitiveType.INTEGER));
  static final StructType ALL_TYPES =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("s", PrimitiveType.STRING),
          StructField.nullable("i", PrimitiveType.INTEGER),
          StructField.nullable("d", PrimitiveType.DOUBLE),
          StructField.nullable("b", PrimitiveType.BOOLEAN),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("day", PrimitiveType.DATE),
          StructField.nullable("bin", PrimitiveType.BINARY),
          StructField.nullable("dec", new DecimalType(12, 3)),
          StructField.nullable("addr", ADDRESS),
          StructField.nullable("region", PrimitiveType.STRING));

  @TempDir Path dir;

  private ObjectStore store(String kind) throws IOException {
    if (kind.equals("local")) {
      return ObjectStores.open(dir.resolve("table").toString(), null);
    }
    S3TestServer server = S3TestServer.shared();
    return ObjectStores.open("s3://" + server.createBucket() + "/tables/t1", server.settings());
  }

  static Object[] row(long id) {
    boolean nulls = id % 7 == 3;
    String region = id % 4 == 0 ? null : id % 4 == 1 ? "EU" : "US west";
    return new Object[] {
      id,
      nulls ? null : "str-" + id + (id % 5 == 0 ? " ünï" : ""),
      nulls ? null : (int) (id * 3 - 50),
      nulls ? null : id / 7.0,
      nulls ? null : id % 2 == 0,
      nulls ? null : Instant.parse("2024-03-01T10:00:00Z").plusNanos(id * 1_001_000L),
      nulls ? null : LocalDate.of(2024, 1, 1).plusDays(id),
      nulls ? null : new byte[] {(byte) id, 0, (byte) (id >> 8)},
      nulls ? null : new BigDecimal(id * 1001).movePointLeft(3),
      nulls ? null : new Object[] {"city-" + id, id % 3 == 0 ? null : (int) id},
      region
    };
  }

  private static void append(
      DeltaTable table, String app, long batch, long from, long to, List<Object[]> written)
      throws IOException {
    try (AppendTransaction tx = table.newAppend(new TransactionId(app, batch))) {
      for (long id = from; id < to; id++) {
        tx.write(row(id));
        written.add(row(id));
      }
      tx.commit(Map.of());
    }
  }

  private static List<String> normalized(List<Object[]> rows) {
    List<Object[]> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparingLong(r -> (Long) r[0]));
    return sorted.stream().map(r -> Arrays.deepToString(deep(r))).toList();
  }

  /** Lists and maps holding structs as arrays, so deepToString prints their contents. */
  private static Object[] deep(Object[] row) {
    Object[] out = new Object[row.length];
    for (int i = 0; i < row.length; i++) {
      out[i] = deepValue(row[i]);
    }
    return out;
  }

  private static Object deepValue(Object v) {
    if (v instanceof Object[] struct) {
      return deep(struct);
    }
    if (v instanceof List<?> list) {
      return list.stream().map(KernelInteropIT::deepValue).toArray();
    }
    if (v instanceof Map<?, ?> map) {
      List<Object> entries = new ArrayList<>();
      map.forEach((k, x) -> entries.add(new Object[] {deepValue(k), deepValue(x)}));
      return entries.toArray();
    }
    return v;
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "s3"})
  void unpartitionedTableWithEveryType(String kind) throws Exception {
    try (ObjectStore store = store(kind)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(ALL_TYPES, List.of(), Map.of());
      List<Object[]> written = new ArrayList<>();
      append(table, "pipe-a", 0, 0, 50, written);
      append(table, "pipe-b", 7, 50, 60, written);

      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.snapshot.getVersion()).isEqualTo(2);
      assertThat(normalized(kernel.rows())).isEqualTo(normalized(written));
      assertThat(kernel.transactionVersion("pipe-a")).contains(0L);
      assertThat(kernel.transactionVersion("pipe-b")).contains(7L);
      assertThat(kernel.transactionVersion("nobody")).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "s3"})
  void partitionedTableWithNullPartitionCompactionCheckpointsAndVacuum(String kind)
      throws Exception {
    try (ObjectStore store = store(kind)) {
      DeltaTable table =
          DeltaTable.open(store, TableOptions.defaults().withLogCheckpointInterval(4));
      table.create(ALL_TYPES, List.of("region"), Map.of());
      List<Object[]> written = new ArrayList<>();
      for (int b = 0; b < 9; b++) {
        append(table, "pipe", b, b * 10L, b * 10L + 10, written);
      }
      assertThat(store.stat(LogFiles.checkpoint(8))).isPresent();
      KernelReader beforeCompaction = new KernelReader(store);
      assertThat(normalized(beforeCompaction.rows())).isEqualTo(normalized(written));
      assertThat(beforeCompaction.transactionVersion("pipe")).contains(8L);

      assertThat(table.compact(new CompactionOptions(2, 64L * 1024 * 1024)).filesRemoved())
          .isEqualTo(27);
      append(table, "pipe", 9, 90, 95, written); // version 11
      append(table, "pipe", 10, 95, 100, written); // version 12: checkpoint after compaction
      assertThat(store.stat(LogFiles.checkpoint(12))).isPresent();
      table.vacuum(Duration.ZERO);

      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.snapshot.getVersion()).isEqualTo(12);
      assertThat(kernel.snapshot.getPartitionColumnNames()).containsExactly("region");
      assertThat(normalized(kernel.rows())).isEqualTo(normalized(written));
      assertThat(kernel.transactionVersion("pipe")).contains(10L);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "s3"})
  void upsertsWithDeletionVectorsAreReadByKernelBeforeAndAfterCompaction(String kind)
      throws Exception {
    try (ObjectStore store = store(kind)) {
      DeltaTable table =
          DeltaTable.open(store, TableOptions.defaults().withLogCheckpointInterval(4));
      table.create(ALL_TYPES, List.of("region"), Map.of());
      List<Object[]> loaded = new ArrayList<>();
      append(table, "load", 0, 0, 40, loaded);
      Map<Long, Object[]> expected = new TreeMap<>();
      loaded.forEach(r -> expected.put((Long) r[0], r));
      MergeSpec spec =
          new MergeSpec(List.of("id"), Optional.empty(), MergeSpec.Strategy.DELETION_VECTORS);
      // batches 0-5 mark rows of the loaded files (several times each: vectors are united),
      // batches 6 and 7 change keys again, in the merged files, and bring deleted keys back
      for (int batch = 0; batch < 8; batch++) {
        try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", batch), spec)) {
          for (long id = batch % 6; id < 40; id += 9) {
            if (id % 4 == 0 && batch < 6) {
              tx.delete(row(id));
              expected.remove(id);
            } else {
              Object[] changed = row(id + 1000L * (batch + 1));
              changed[0] = id; // the key stays, every other column changes
              tx.write(changed);
              expected.put(id, changed);
            }
          }
          tx.commit(Map.of());
        }
      }
      assertThat(store.stat(LogFiles.checkpoint(4))).as("a checkpoint holds vectors").isPresent();
      assertThat(table.snapshot().files()).anyMatch(f -> f.deletionVector() != null);
      KernelReader kernel = new KernelReader(store);
      assertThat(table.snapshot().state().protocol().readerFeatures()).contains("deletionVectors");
      assertThat(normalized(kernel.rows()))
          .isEqualTo(normalized(new ArrayList<>(expected.values())));
      assertThat(kernel.transactionVersion("pipe")).contains(7L);

      table.compact(new CompactionOptions(2, 64L * 1024 * 1024));
      assertThat(table.snapshot().files()).noneMatch(f -> f.deletionVector() != null);
      table.vacuum(Duration.ZERO);
      assertThat(normalized(new KernelReader(store).rows()))
          .isEqualTo(normalized(new ArrayList<>(expected.values())));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local"})
  void timestampPartitionValuesMeanTheSameInstantsToKernel(String kind) throws Exception {
    // Partition values carry their zone (…Z): a zone-less one would be read in the reader's zone.
    try (ObjectStore store = store(kind)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(ALL_TYPES, List.of("ts"), Map.of());
      List<Object[]> written = new ArrayList<>();
      append(table, "pipe", 0, 0, 12, written);
      assertThat(table.snapshot().files())
          .extracting(f -> f.partitionValues().get("ts"))
          .contains("2024-03-01T10:00:00.000000Z", "2024-03-01T10:00:00.001001Z", null);

      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.snapshot.getPartitionColumnNames()).containsExactly("ts");
      assertThat(normalized(kernel.rows())).isEqualTo(normalized(written));
    }
  }

  @Test
  void byteShortFloatTimestampNtzArraysAndMapsWrittenByUsAreReadByKernel() throws Exception {
    StructType schema =
        StructType.of(
            new StructField("id", PrimitiveType.LONG, false),
            StructField.nullable("b", PrimitiveType.BYTE),
            StructField.nullable("sh", PrimitiveType.SHORT),
            StructField.nullable("f", PrimitiveType.FLOAT),
            StructField.nullable("t", PrimitiveType.TIMESTAMP_NTZ),
            StructField.nullable("tags", new ArrayType(PrimitiveType.STRING, true)),
            StructField.nullable("pts", new ArrayType(ADDRESS, true)),
            StructField.nullable(
                "m",
                new MapType(PrimitiveType.STRING, new ArrayType(PrimitiveType.LONG, true), true)),
            StructField.nullable("pb", PrimitiveType.BYTE));
    List<Object[]> written = new ArrayList<>();
    for (long id = 0; id < 12; id++) {
      boolean nulls = id % 5 == 4;
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("k" + id, id % 2 == 0 ? Arrays.asList(id, null) : null);
      written.add(
          new Object[] {
            id,
            nulls ? null : (byte) (id * 20 - 120),
            nulls ? null : (short) (id * 5000 - 30000),
            nulls ? null : id / 3f,
            nulls ? null : LocalDateTime.parse("1969-12-31T23:00:00.000001").plusHours(id * 7),
            nulls ? null : id % 3 == 0 ? List.of() : Arrays.asList("t" + id, null),
            nulls ? null : Arrays.asList(new Object[] {"c" + id, (int) id}, null),
            nulls ? null : id % 3 == 0 ? Map.of() : m,
            id % 4 == 0 ? null : (byte) (id % 2)
          });
    }
    try (ObjectStore store = store("local")) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(schema, List.of("pb"), Map.of());
      try (AppendTransaction tx = table.newAppend(new TransactionId("pipe", 0))) {
        for (Object[] r : written) {
          tx.write(r);
        }
        tx.commit(Map.of());
      }
      assertThat(table.snapshot().state().protocol().supports("timestampNtz")).isTrue();

      KernelReader kernel = new KernelReader(store);
      assertThat(normalized(kernel.rows())).isEqualTo(normalized(written));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local"})
  void overwrittenTable(String kind) throws Exception {
    try (ObjectStore store = store(kind)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(ALL_TYPES, List.of("region"), Map.of());
      append(table, "pipe", 0, 0, 20, new ArrayList<>());
      List<Object[]> written = new ArrayList<>();
      try (OverwriteTransaction tx = table.newOverwrite(new TransactionId("pipe", 1))) {
        for (long id = 100; id < 110; id++) {
          tx.write(row(id));
          written.add(row(id));
        }
        tx.commit(Map.of());
      }

      KernelReader kernel = new KernelReader(store);
      assertThat(normalized(kernel.rows())).isEqualTo(normalized(written));
      assertThat(kernel.transactionVersion("pipe")).contains(1L);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local"})
  void addedColumnsReadAsNullInOlderFiles(String kind) throws Exception {
    try (ObjectStore store = store(kind)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(ALL_TYPES, List.of(), Map.of());
      append(table, "pipe", 0, 0, 5, new ArrayList<>());
      table.addColumns(List.of(StructField.nullable("note", PrimitiveType.STRING)));
      try (AppendTransaction tx = table.newAppend(new TransactionId("pipe", 1))) {
        Object[] r = Arrays.copyOf(row(5), ALL_TYPES.size() + 1);
        r[ALL_TYPES.size()] = "new";
        tx.write(r);
        tx.commit(Map.of());
      }

      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.snapshot.getSchema().fieldNames()).endsWith("region", "note");
      List<Object[]> rows = new ArrayList<>(kernel.rows());
      rows.sort(Comparator.comparingLong(r -> (Long) r[0]));
      assertThat(rows)
          .extracting(r -> r[ALL_TYPES.size()])
          .containsExactly(null, null, null, null, null, "new");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local"})
  void columnsAddedInTheCommitOfTheirFirstRowsReadAsNullInOlderFiles(String kind) throws Exception {
    try (ObjectStore store = store(kind)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(ALL_TYPES, List.of(), Map.of());
      append(table, "pipe", 0, 0, 3, new ArrayList<>());
      long before = table.snapshot().version();
      try (AppendTransaction tx = table.newAppend(new TransactionId("pipe", 1))) {
        tx.addColumns(
            List.of(
                StructField.nullable("tier", PrimitiveType.STRING),
                StructField.nullable("score", PrimitiveType.LONG)));
        Object[] r = Arrays.copyOf(row(3), ALL_TYPES.size() + 2);
        r[ALL_TYPES.size()] = "gold";
        r[ALL_TYPES.size() + 1] = 7L;
        tx.write(r);
        tx.commit(Map.of());
      }
      assertThat(table.snapshot().version()).isEqualTo(before + 1);

      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.snapshot.getSchema().fieldNames()).endsWith("tier", "score");
      List<Object[]> rows = new ArrayList<>(kernel.rows());
      rows.sort(Comparator.comparingLong(r -> (Long) r[0]));
      assertThat(rows)
          .extracting(r -> r[ALL_TYPES.size()])
          .containsExactly(null, null, null, "gold");
      assertThat(rows)
          .extracting(r -> r[ALL_TYPES.size() + 1])
          .containsExactly(null, null, null, 7L);
      assertThat(kernel.transactionVersion("pipe")).contains(1L);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local"})
  void widenedColumnsReadAsTheWideTypeInOlderFiles(String kind) throws Exception {
    try (ObjectStore store = store(kind)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(ALL_TYPES, List.of(), Map.of());
      append(table, "pipe", 0, 0, 3, new ArrayList<>());
      table.widenColumns(Map.of("i", PrimitiveType.LONG, "dec", new DecimalType(16, 5)));
      StructType wide = table.snapshot().schema();
      try (AppendTransaction tx = table.newAppend(new TransactionId("pipe", 1))) {
        Object[] r = row(3);
        r[2] = Integer.MAX_VALUE + 7L;
        r[8] = new BigDecimal("12345678901.12345");
        tx.write(r);
        tx.commit(Map.of());
      }
      table.compact(new CompactionOptions(10, 1024 * 1024)); // not due: the old files stay narrow

      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.snapshot.getSchema().get("i").getDataType()).isEqualTo(LongType.LONG);
      List<Object[]> rows = new ArrayList<>(kernel.rows());
      rows.sort(Comparator.comparingLong(r -> (Long) r[0]));
      assertThat(rows)
          .extracting(r -> r[2])
          .containsExactly(-50L, -47L, -44L, Integer.MAX_VALUE + 7L);
      assertThat(rows)
          .extracting(r -> r[8])
          .containsExactly(
              new BigDecimal("0.00000"),
              new BigDecimal("1.00100"),
              new BigDecimal("2.00200"),
              new BigDecimal("12345678901.12345"));
      assertThat(wide.field("i").orElseThrow().typeChanges()).hasSize(1);

      table.compact(new CompactionOptions(2, 1024 * 1024));
      assertThat(normalized(new KernelReader(store).rows())).isEqualTo(normalized(rows));
    }
  }
}
