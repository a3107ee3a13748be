package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Tables with column mapping by name, built as Spark builds them: the data files, partition values
 * and statistics use the physical names ({@code col-<n>}), the schema maps them to the logical
 * names. Readers return rows by logical name; renames and drops in the source table are schema
 * changes of the stream. Delta Kernel judges the rows.
 */
class ColumnMappingTableTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  /** The logical schema, each column with a physical name {@code col-<i>} and id {@code i}. */
  static StructType mapped(StructType schema) {
    List<StructField> fields = new ArrayList<>();
    int id = 1;
    for (StructField f : schema.fields()) {
      fields.add(
          f.withMetadata(StructField.COLUMN_ID, id)
              .withMetadata(StructField.PHYSICAL_NAME, "col-" + id));
      id++;
    }
    return new StructType(fields);
  }

  /**
   * Versions 0 create and 1..2 appends (ids 0..19) written under the physical names, 3 the column
   * mapping metadata.
   */
  private StructType mappedTable() throws IOException {
    StructType logical = mapped(TestTables.SCHEMA);
    StructType physical = ColumnMappingMode.NAME.physicalSchema(logical);
    table.create(physical, List.of("col-4"), Map.of());
    TestTables.append(table, "p", 0, 0, 10);
    TestTables.append(table, "p", 1, 10, 20);
    commit(
        new Protocol(3, 7, Set.of("columnMapping"), Set.of("columnMapping")),
        metadata(logical, List.of("region")));
    return logical;
  }

  private Metadata metadata(StructType schema, List<String> partitionBy) throws IOException {
    Metadata m = table.snapshot().state().metadata();
    Map<String, String> configuration = new LinkedHashMap<>(m.configuration());
    configuration.put(ColumnMappingMode.PROPERTY, "name");
    configuration.put("delta.columnMapping.maxColumnId", "4");
    return new Metadata(
        m.id(),
        null,
        null,
        m.format(),
        SchemaJson.toJson(schema),
        partitionBy,
        configuration,
        m.createdTime());
  }

  private void commit(Action... actions) throws IOException {
    long version = table.snapshot().version() + 1;
    List<Action> all = new ArrayList<>();
    all.add(new CommitInfo(Map.of("timestamp", clock.millis(), "operation", "SET TBLPROPERTIES")));
    all.addAll(List.of(actions));
    assertThat(new DeltaLog(store).tryCommit(version, all)).isTrue();
  }

  @Test
  void filesAreReadByPhysicalNameAndRowsHaveTheLogicalSchema() throws IOException {
    StructType logical = mappedTable();
    Snapshot snapshot = table.snapshot();
    assertThat(snapshot.columnMapping()).isEqualTo(ColumnMappingMode.NAME);
    assertThat(snapshot.schema().fieldNames()).containsExactly("id", "name", "ts", "region");
    assertThat(snapshot.schema().fields().get(1).physicalName()).isEqualTo("col-2");
    assertThat(snapshot.schema()).isEqualTo(TestTables.SCHEMA);

    List<Object[]> rows = new ArrayList<>();
    for (DataFile f : snapshot.files()) {
      assertThat(f.partitionValues()).containsKey("col-4");
      assertThat(f.stats().minValues()).as("statistics by logical name").containsKey("id");
      try (CloseableIterator<Object[]> it =
          dev.tributary.table.data.DataFiles.read(
              store, f, snapshot.schema(), snapshot.columnMapping())) {
        it.forEachRemaining(rows::add);
      }
    }
    rows.sort((a, b) -> Long.compare((Long) a[0], (Long) b[0]));
    assertThat(rows).hasSize(20);
    for (Object[] row : rows) {
      long id = (Long) row[0];
      assertThat(row)
          .as("row %d", id)
          .containsExactly(TestTables.row(id, id % 3 == 0 ? "EU" : id % 3 == 1 ? "US" : null));
    }
    KernelReader kernel = new KernelReader(store);
    assertThat(kernel.columnNames()).containsExactly("id", "name", "ts", "region");
    assertThat(kernel.rows()).hasSize(20);
    assertThat(SchemaJson.parse(SchemaJson.toJson(logical)).fields().get(3).metadata())
        .as("the mapping survives a round trip through the log")
        .containsEntry(StructField.PHYSICAL_NAME, "col-4")
        .containsEntry(StructField.COLUMN_ID, 4);
  }

  @Test
  void aRenameStopsARunningStreamAndARestartReadsTheHistoryUnderTheNewName() throws IOException {
    StructType logical = mappedTable();
    DeltaSourcePlanner running = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourceRange before =
        running.plan(running.start(new StartingPoint.Latest()), SourceLimits.unlimited());
    List<StructField> renamed = new ArrayList<>(logical.fields());
    renamed.set(1, renamed.get(1).withName("label"));
    commit(metadata(new StructType(renamed), List.of("region")));

    assertThatThrownBy(() -> running.plan(before.to(), SourceLimits.unlimited()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("changed at version 4")
        .hasMessageContaining("column name was renamed to label");

    DeltaSourcePlanner restarted = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    assertThat(restarted.readSchema().fieldNames()).containsExactly("id", "label", "ts", "region");
    List<Object[]> rows = readAll(restarted, restarted.start(new StartingPoint.AtVersion(1)));
    assertThat(rows).hasSize(20);
    assertThat(rows).allSatisfy(r -> assertThat(r[1]).isEqualTo("name-" + r[0]));
  }

  @Test
  void aDroppedColumnIsNoLongerReadAndOlderHistoryStillIs() throws IOException {
    StructType logical = mappedTable();
    List<StructField> fewer = new ArrayList<>(logical.fields());
    fewer.remove(2); // ts
    commit(metadata(new StructType(fewer), List.of("region")));

    DeltaSourcePlanner restarted = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    List<Object[]> rows = readAll(restarted, restarted.start(new StartingPoint.AtVersion(1)));
    assertThat(rows).hasSize(20).allSatisfy(r -> assertThat(r).hasSize(3));
    assertThat(rows.stream().map(r -> (Long) r[0]).sorted().toList())
        .isEqualTo(LongStream.range(0, 20).boxed().toList());
    assertThat(new KernelReader(store).columnNames()).containsExactly("id", "name", "region");
  }

  @Test
  void appendsWritePhysicalNamesAndIdsAndNewColumnsGetBoth() throws IOException {
    mappedTable();
    var before = table.snapshot().state().files().keySet();
    TestTables.append(table, "q", 0, 20, 25);
    Snapshot snapshot = table.snapshot();
    AddFile appended =
        snapshot.state().files().values().stream()
            .filter(a -> !before.contains(a.path()))
            .findFirst()
            .orElseThrow();
    assertThat(appended.stats()).contains("\"col-1\"").doesNotContain("\"id\"");
    assertThat(appended.partitionValues()).containsOnlyKeys("col-4");
    List<Object[]> physical =
        DataFiles.readAll(
            store,
            new DataFile(
                appended.path(),
                Map.of(),
                appended.size(),
                appended.modificationTime(),
                new dev.tributary.table.data.FileStats(-1, Map.of(), Map.of(), Map.of())),
            StructType.of(
                StructField.nullable("col-1", dev.tributary.table.types.PrimitiveType.LONG)));
    assertThat(physical).extracting(r -> r[0]).isNotEmpty().allMatch(id -> (Long) id >= 20);

    table.addColumns(
        List.of(StructField.nullable("extra", dev.tributary.table.types.PrimitiveType.LONG)));
    Snapshot wider = table.snapshot();
    StructField extra = wider.schema().field("extra").orElseThrow();
    assertThat(extra.columnId()).isEqualTo(5);
    assertThat(extra.physicalName()).startsWith("col-").isNotEqualTo("col-5");
    assertThat(wider.properties()).containsEntry(ColumnMappingMode.MAX_COLUMN_ID, "5");
    try (AppendTransaction tx = table.newAppend(new TransactionId("q", 1))) {
      tx.write(
          new Object[] {25L, "name-25", Instant.ofEpochSecond(1_700_000_025L, 123_000), "US", 7L});
      tx.commit(Map.of());
    }

    KernelReader kernel = new KernelReader(store);
    assertThat(kernel.columnNames()).containsExactly("id", "name", "ts", "region", "extra");
    List<Object[]> rows = kernel.rows();
    assertThat(rows).hasSize(26);
    for (Object[] row : rows) {
      long id = (Long) row[0];
      Object[] expected = TestTables.row(id, id % 3 == 0 ? "EU" : id % 3 == 1 ? "US" : null);
      if (id == 25) {
        expected[3] = "US";
      }
      assertThat(java.util.Arrays.copyOf(row, 4)).as("row %d", id).containsExactly(expected);
      assertThat(row[4]).isEqualTo(id == 25 ? 7L : null);
    }
  }

  private List<Object[]> readAll(
      DeltaSourcePlanner planner, dev.tributary.table.stream.SourcePosition from)
      throws IOException {
    List<Object[]> rows = new ArrayList<>();
    SourceRange range = planner.plan(from, SourceLimits.unlimited());
    for (SourceFile f : range.files()) {
      try (CloseableIterator<SourceRow> it = planner.read(f)) {
        it.forEachRemaining(r -> rows.add(r.values()));
      }
    }
    return rows;
  }
}
