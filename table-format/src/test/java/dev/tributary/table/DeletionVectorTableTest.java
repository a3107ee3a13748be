package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Tables whose files carry deletion vectors (written as Spark's DELETE writes them, by {@link
 * DeletionVectorTables}): every reader skips the deleted rows, and every writer keeps them deleted.
 * Delta Kernel reads each table too, as the independent judge.
 */
class DeletionVectorTableTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table =
      DeltaTable.open(store, TestTables.fastOptions(clock).withLogCheckpointInterval(6));

  /** Versions 0 create, 1..3 appends of ids 0..29 (a file per region each), 4 and 5 DELETEs. */
  private void tableWithTwoDeletes() throws IOException {
    table.create(SCHEMA, List.of("region"), Map.of());
    for (int b = 0; b < 3; b++) {
      TestTables.append(table, "p", b, b * 10L, b * 10L + 10);
    }
    DeletionVectorTables.delete(store, table, r -> (Long) r[0] % 4 == 0, false);
    // the second DELETE gives files that have a vector a new one (old rows and new), inline
    DeletionVectorTables.delete(store, table, r -> (Long) r[0] % 5 == 0, true);
  }

  private static List<Long> idsWithout(LongPredicate deleted) {
    return LongStream.range(0, 30).filter(deleted.negate()).boxed().toList();
  }

  private static final LongPredicate DELETED = id -> id % 4 == 0 || id % 5 == 0;

  @Test
  void rowsADeletionVectorNamesAreNeverRead() throws IOException {
    tableWithTwoDeletes();
    Snapshot snapshot = table.snapshot();
    assertThat(snapshot.version()).isEqualTo(5);
    assertThat(snapshot.state().protocol().readerFeatures()).contains("deletionVectors");
    assertThat(snapshot.files()).filteredOn(f -> f.deletionVector() != null).hasSizeGreaterThan(5);
    assertThat(snapshot.files())
        .filteredOn(
            f ->
                f.deletionVector() != null
                    && f.deletionVector().storageType()
                        == DeletionVectorDescriptor.StorageType.INLINE)
        .isNotEmpty();

    assertThat(TestTables.ids(TestTables.rows(store, snapshot))).isEqualTo(idsWithout(DELETED));
    DeltaTable fresh = DeltaTable.open(store, TableOptions.defaults());
    assertThat(TestTables.ids(TestTables.rows(store, fresh.snapshot())))
        .as("replayed from the log by a new handle")
        .isEqualTo(idsWithout(DELETED));
    assertThat(kernelIds()).isEqualTo(idsWithout(DELETED));
    long live = snapshot.files().stream().mapToLong(DataFile::liveRows).sum();
    assertThat(live).isEqualTo(idsWithout(DELETED).size());
  }

  @Test
  void aCheckpointKeepsTheDeletionVectors() throws IOException {
    tableWithTwoDeletes();
    long withVectors =
        table.snapshot().files().stream().filter(f -> f.deletionVector() != null).count();
    TestTables.append(table, "p", 3, 30, 31); // version 6: a checkpoint
    assertThat(store.stat(LogFiles.checkpoint(6))).isPresent();
    DeltaTable fresh = DeltaTable.open(store, TableOptions.defaults());
    List<Long> expected = new ArrayList<>(idsWithout(DELETED));
    expected.add(30L);
    assertThat(TestTables.ids(TestTables.rows(store, fresh.snapshot()))).isEqualTo(expected);
    assertThat(fresh.snapshot().files().stream().filter(f -> f.deletionVector() != null))
        .hasSize((int) withVectors);
    assertThat(kernelIds()).as("Kernel reads our checkpoint").isEqualTo(expected);
  }

  @Test
  void compactionRewritesOnlyTheLiveRowsAndDropsTheVectors() throws IOException {
    tableWithTwoDeletes();
    CompactionResult result = table.compact(new CompactionOptions(2, 1024 * 1024));
    assertThat(result.compacted()).isTrue();
    Snapshot after = table.snapshot();
    assertThat(after.files()).allSatisfy(f -> assertThat(f.deletionVector()).isNull());
    assertThat(TestTables.ids(TestTables.rows(store, after))).isEqualTo(idsWithout(DELETED));
    assertThat(kernelIds()).isEqualTo(idsWithout(DELETED));
  }

  @Test
  void vacuumKeepsAVectorFileWhileALiveFileNeedsIt() throws IOException {
    table.create(SCHEMA, List.of("region"), Map.of());
    for (int b = 0; b < 2; b++) {
      TestTables.append(table, "p", b, b * 10L, b * 10L + 10);
    }
    DeletionVectorTables.delete(store, table, r -> (Long) r[0] % 4 == 0, false);
    String vectorFile =
        table.snapshot().files().stream()
            .map(DataFile::deletionVector)
            .filter(dv -> dv != null)
            .findFirst()
            .orElseThrow()
            .relativePath();
    assertThat(vectorFile).startsWith("dv/deletion_vector_");
    clock.advance(Duration.ofDays(30));
    assertThat(table.vacuumDryRun(Duration.ZERO).files()).doesNotContain(vectorFile);

    table.compact(new CompactionOptions(2, 1024 * 1024));
    assertThat(table.vacuumDryRun(Duration.ofDays(1)).files())
        .as("removed just now: kept for the retention")
        .doesNotContain(vectorFile);
    clock.advance(Duration.ofDays(2));
    assertThat(table.vacuum(Duration.ofDays(1)).files()).contains(vectorFile);
    assertThat(TestTables.ids(TestTables.rows(store, table.snapshot())))
        .isEqualTo(LongStream.range(0, 20).filter(id -> id % 4 != 0).boxed().toList());
  }

  @Test
  void mergeAndOverwriteKeepDeletedRowsDeleted() throws IOException {
    tableWithTwoDeletes();
    try (MergeTransaction tx = table.newMerge(new TransactionId("m", 0), List.of("id"))) {
      tx.write(TestTables.row(1, "US")); // a live row, replaced
      tx.write(TestTables.row(99, "EU")); // a new row
      tx.commit(Map.of());
    }
    List<Long> expected = new ArrayList<>(idsWithout(DELETED));
    expected.add(99L);
    assertThat(TestTables.ids(TestTables.rows(store, table.snapshot()))).isEqualTo(expected);
    assertThat(kernelIds()).isEqualTo(expected);

    try (OverwriteTransaction tx = table.newOverwrite(new TransactionId("o", 0))) {
      tx.write(TestTables.row(7, "US"));
      tx.commit(Map.of());
    }
    assertThat(TestTables.ids(TestTables.rows(store, table.snapshot()))).containsExactly(7L);
    assertThat(table.snapshot().tombstones())
        .filteredOn(r -> r.deletionVector() != null)
        .as("the overwrite removed the logical files, vectors and all")
        .isNotEmpty();
  }

  @Test
  void theStreamReadsTheLiveRowsWithTheirIndexInTheFile() throws IOException {
    tableWithTwoDeletes();
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourceRange range =
        planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.unlimited());
    assertThat(range.files()).anySatisfy(f -> assertThat(f.add().deletionVector()).isNotNull());
    List<Long> ids = new ArrayList<>();
    for (SourceFile f : range.files()) {
      List<Object[]> all = allRowsOf(f.add());
      try (CloseableIterator<SourceRow> rows = planner.read(f)) {
        while (rows.hasNext()) {
          SourceRow row = rows.next();
          assertThat(row.values()).as(row.provenance()).isEqualTo(all.get((int) row.rowIndex()));
          ids.add((Long) row.values()[0]);
        }
      }
    }
    ids.sort(null);
    assertThat(ids).isEqualTo(idsWithout(DELETED));
  }

  @Test
  void aDeleteByVectorsStopsAStreamAsAnyRewriteDoesUnlessChangeCommitsAreSkipped()
      throws IOException {
    tableWithTwoDeletes();
    DeltaSourcePlanner strict = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourceRange appends =
        strict.plan(strict.start(new StartingPoint.AtVersion(1)), SourceLimits.unlimited());
    assertThat(appends.to().version()).as("the range ends before the DELETE").isEqualTo(4);
    assertThatThrownBy(() -> strict.plan(appends.to(), SourceLimits.unlimited()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("Commit 4 (DELETE)");

    DeltaSourcePlanner skipping = DeltaSourcePlanner.open(table, new ChangeOptions(false, true));
    SourceRange all =
        skipping.plan(skipping.start(new StartingPoint.AtVersion(1)), SourceLimits.unlimited());
    assertThat(all.to().version()).isEqualTo(6);
    assertThat(all.files()).allSatisfy(f -> assertThat(f.version()).isBetween(1L, 3L));
  }

  /** Every row of the data file, deleted ones included, in file order. */
  private List<Object[]> allRowsOf(AddFile add) throws IOException {
    DataFile whole =
        new DataFile(
            add.path(),
            add.partitionValues(),
            add.size(),
            add.modificationTime(),
            new dev.tributary.table.data.FileStats(-1, Map.of(), Map.of(), Map.of()));
    return DataFiles.readAll(store, whole, SCHEMA);
  }

  private List<Long> kernelIds() throws IOException {
    KernelReader kernel = new KernelReader(store);
    int id = kernel.columnNames().indexOf("id");
    return kernel.rows().stream().map(r -> (Long) r[id]).sorted().toList();
  }
}
