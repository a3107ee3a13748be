package dev.tributary.table.stream;

import static dev.tributary.table.stream.SourceTables.append;
import static dev.tributary.table.stream.SourceTables.commitByHand;
import static dev.tributary.table.stream.SourceTables.drain;
import static dev.tributary.table.stream.SourceTables.files;
import static dev.tributary.table.stream.SourceTables.ids;
import static dev.tributary.table.stream.SourceTables.range;
import static dev.tributary.table.stream.SourceTables.sorted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.OverwriteTransaction;
import dev.tributary.table.TableException;
import dev.tributary.table.TransactionId;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which commits a stream reads, skips or stops at. */
class CommitRulesTest {
  @TempDir Path dir;
  ObjectStore store;
  DeltaTable table;

  @BeforeEach
  void open() throws IOException {
    store = ObjectStores.open(dir.resolve("table").toString(), null);
    table = SourceTables.create(store, List.of("region"), 100);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private DeltaSourcePlanner planner(boolean ignoreDeletes, boolean skipChangeCommits)
      throws IOException {
    return DeltaSourcePlanner.open(
        DeltaTable.open(store, table.options()),
        new ChangeOptions(ignoreDeletes, skipChangeCommits));
  }

  /** Commits that only removes the file of partition {@code region}, dataChange=true: a DELETE. */
  private long deletePartition(String region) throws IOException {
    List<Action> removes = new ArrayList<>();
    for (AddFile a : table.snapshot().state().files().values()) {
      if (region.equals(a.partitionValues().get("region"))) {
        removes.add(a.toRemove(System.currentTimeMillis(), true));
      }
    }
    assertThat(removes).isNotEmpty();
    return commitByHand(table, "DELETE", removes);
  }

  private long overwrite(long batch, long from, long to) throws IOException {
    try (OverwriteTransaction tx = table.newOverwrite(new TransactionId("writer", batch))) {
      for (long id = from; id < to; id++) {
        tx.write(new Object[] {id, "over-" + id, SourceTables.region(id)});
      }
      return tx.commit(Map.of()).tableVersion();
    }
  }

  @Test
  void aDeleteStopsTheStreamNamingTableVersionAndOperation() throws IOException {
    append(table, 0, 0, 10);
    DeltaSourcePlanner planner = planner(false, false);
    SourcePosition start = planner.start(new StartingPoint.Latest());
    append(table, 1, 10, 20);
    long delete = deletePartition("EU");

    assertThatThrownBy(() -> drain(planner, start, SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(table.location())
        .hasMessageContaining("Commit " + delete + " (DELETE)")
        .hasMessageContaining("ignore-deletes: true");
    SourceRange before = planner.plan(start, SourceLimits.defaults());
    assertThat(sorted(ids(planner, before.files())))
        .as("the commits before it are read")
        .isEqualTo(range(10, 20));
    assertThat(before.to()).isEqualTo(SourcePosition.commitStart(planner.tableId(), delete));
    assertThatThrownBy(() -> planner.plan(before.to(), SourceLimits.defaults()))
        .hasMessageContaining("Commit " + delete + " (DELETE)");
  }

  @Test
  void ignoreDeletesSkipsACommitThatOnlyDeletesAndSkipChangeCommitsToo() throws IOException {
    DeltaSourcePlanner strict = planner(false, false);
    SourcePosition start = strict.start(new StartingPoint.Latest());
    append(table, 0, 0, 12);
    deletePartition("US");
    append(table, 1, 12, 15);

    for (DeltaSourcePlanner lenient : List.of(planner(true, false), planner(false, true))) {
      List<Long> read = ids(lenient, files(drain(lenient, start, SourceLimits.defaults())));
      assertThat(sorted(read)).isEqualTo(range(0, 15));
    }
  }

  @Test
  void anOverwriteStopsEvenWithIgnoreDeletesAndSkipChangeCommitsSkipsItsAddsToo()
      throws IOException {
    DeltaSourcePlanner strict = planner(false, false);
    SourcePosition start = strict.start(new StartingPoint.Latest());
    append(table, 0, 0, 10);
    long over = overwrite(1, 100, 105);
    append(table, 2, 10, 13);

    assertThatThrownBy(() -> drain(strict, start, SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("Commit " + over + " (WRITE)")
        .hasMessageContaining("rewrote data")
        .hasMessageContaining("skip-change-commits: true");
    DeltaSourcePlanner ignoreDeletes = planner(true, false);
    assertThatThrownBy(() -> drain(ignoreDeletes, start, SourceLimits.defaults()))
        .as("ignore-deletes covers only commits that add nothing")
        .hasMessageContaining("Commit " + over + " (WRITE)");
    DeltaSourcePlanner skip = planner(false, true);
    assertThat(sorted(ids(skip, files(drain(skip, start, SourceLimits.defaults())))))
        .as("the overwrite's rows (100..104) are skipped with it")
        .isEqualTo(range(0, 13));
  }

  @Test
  void aMergeStopsTheStreamNamingIt() throws IOException {
    DeltaSourcePlanner planner = planner(false, false);
    SourcePosition start = planner.start(new StartingPoint.Latest());
    append(table, 0, 0, 10);
    long merge;
    try (MergeTransaction tx = table.newMerge(new TransactionId("writer", 1), List.of("id"))) {
      tx.write(new Object[] {3L, "changed", SourceTables.region(3)});
      merge = tx.commit(Map.of()).tableVersion();
    }

    assertThatThrownBy(() -> drain(planner, start, SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("Commit " + merge + " (MERGE)");
  }

  @Test
  void anAddedColumnStopsTheStreamSayingWhatChangedAndARestartReadsOnWithTheNewSchema()
      throws IOException {
    DeltaSourcePlanner planner = planner(false, false);
    SourcePosition start = planner.start(new StartingPoint.Earliest());
    append(table, 0, 0, 10);
    List<StructField> fields = new ArrayList<>(SourceTables.SCHEMA.fields());
    fields.add(StructField.nullable("note", PrimitiveType.STRING));
    StructType wider = new StructType(fields);
    long change = commitByHand(table, "ADD COLUMNS", List.of(withSchema(wider, List.of("region"))));

    assertThatThrownBy(() -> drain(planner, start, SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("changed at version " + change)
        .hasMessageContaining("column note (string) was added");

    DeltaSourcePlanner restarted = planner(false, false);
    assertThat(restarted.readSchema()).isEqualTo(wider);
    List<SourceRow> rows =
        SourceTables.rows(restarted, files(drain(restarted, start, SourceLimits.defaults())));
    assertThat(rows)
        .hasSize(10)
        .allSatisfy(
            r -> {
              assertThat(r.values()).hasSize(4);
              assertThat(r.values()[3]).isNull();
            });
  }

  @Test
  void aWideningStopsTheStreamAndARestartReadsTheOlderFilesAsTheWideType() throws IOException {
    ObjectStore intStore = ObjectStores.open(dir.resolve("ints").toString(), null);
    try (intStore) {
      DeltaTable ints = DeltaTable.open(intStore, table.options());
      ints.create(
          StructType.of(
              new StructField("id", PrimitiveType.LONG, false),
              StructField.nullable("amount", PrimitiveType.INTEGER)),
          List.of(),
          Map.of());
      DeltaSourcePlanner planner = DeltaSourcePlanner.open(ints, new ChangeOptions(false, false));
      SourcePosition start = planner.start(new StartingPoint.Earliest());
      try (var tx = ints.newAppend(new TransactionId("w", 0))) {
        tx.write(new Object[] {1L, 7});
        tx.commit(Map.of());
      }
      long widening = ints.widenColumns(Map.of("amount", PrimitiveType.LONG)).version();
      try (var tx = ints.newAppend(new TransactionId("w", 1))) {
        tx.write(new Object[] {2L, 5_000_000_000L});
        tx.commit(Map.of());
      }

      assertThatThrownBy(() -> drain(planner, start, SourceLimits.defaults()))
          .isInstanceOf(TableException.class)
          .hasMessageContaining("changed at version " + widening)
          .hasMessageContaining("column amount changed type");

      DeltaSourcePlanner restarted =
          DeltaSourcePlanner.open(
              DeltaTable.open(intStore, table.options()), new ChangeOptions(false, false));
      List<SourceRow> rows =
          SourceTables.rows(restarted, files(drain(restarted, start, SourceLimits.defaults())));
      assertThat(rows).extracting(r -> r.values()[1]).containsExactlyInAnyOrder(7L, 5_000_000_000L);
    }
  }

  @Test
  void aDroppedColumnOrAPartitioningChangeStops() throws IOException {
    DeltaSourcePlanner planner = planner(false, false);
    SourcePosition start = planner.start(new StartingPoint.Latest());
    StructType narrower =
        StructType.of(SourceTables.SCHEMA.fields().get(0), SourceTables.SCHEMA.fields().get(2));
    long drop =
        commitByHand(table, "DROP COLUMN", List.of(withSchema(narrower, List.of("region"))));
    assertThatThrownBy(() -> planner.plan(start, SourceLimits.defaults()))
        .hasMessageContaining("changed at version " + drop)
        .hasMessageContaining("column name was dropped");

    DeltaSourcePlanner other = planner(false, false);
    SourcePosition after = other.start(new StartingPoint.Latest());
    long repartition = commitByHand(table, "REPLACE", List.of(withSchema(narrower, List.of())));
    assertThatThrownBy(() -> other.plan(after, SourceLimits.defaults()))
        .hasMessageContaining("partition columns")
        .hasMessageContaining("version " + repartition)
        .hasMessageContaining("[region] to []");
  }

  @Test
  void aPropertyChangeIsNoSchemaChange() throws IOException {
    DeltaSourcePlanner planner = planner(false, false);
    SourcePosition start = planner.start(new StartingPoint.Latest());
    Metadata m = table.snapshot().state().metadata();
    commitByHand(
        table,
        "SET TBLPROPERTIES",
        List.of(
            new Metadata(
                m.id(),
                m.name(),
                m.description(),
                m.format(),
                m.schemaString(),
                m.partitionColumns(),
                Map.of("owner", "me"),
                m.createdTime())));
    append(table, 0, 0, 5);

    assertThat(sorted(ids(planner, files(drain(planner, start, SourceLimits.defaults())))))
        .isEqualTo(range(0, 5));
  }

  @Test
  void readerFeaturesWeCannotReadAreRefused() throws IOException {
    DeltaSourcePlanner planner = planner(false, false);
    SourcePosition start = planner.start(new StartingPoint.Latest());
    commitByHand(
        table,
        "UPGRADE PROTOCOL",
        List.of(new Protocol(3, 7, Set.of("catalogManaged"), Set.of("catalogManaged"))));

    assertThatThrownBy(() -> planner.plan(start, SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("catalogManaged");
  }

  private Metadata withSchema(StructType schema, List<String> partitionBy) throws IOException {
    Metadata m = table.snapshot().state().metadata();
    return new Metadata(
        m.id(),
        m.name(),
        m.description(),
        m.format(),
        SchemaJson.toJson(schema),
        partitionBy,
        m.configuration(),
        m.createdTime());
  }
}
