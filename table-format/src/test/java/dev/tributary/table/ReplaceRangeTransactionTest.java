package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static dev.tributary.table.TestTables.append;
import static dev.tributary.table.TestTables.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.ReplaceRangeTransaction.Placement;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The range is ids [10, 20); the staged table (in {@code _staging/b} of the table's folder) holds
 * ids 10..19 named {@code new-<id>}.
 */
class ReplaceRangeTransactionTest {
  static final String FOLDER = "_staging/b";
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));
  final ObjectStore stagingStore = ObjectStores.under(store, FOLDER);
  final DeltaTable staging = DeltaTable.open(stagingStore, TestTables.fastOptions(clock));

  /** Places a file by its id statistics, as a backfill places one by its event times. */
  static Placement byId(DataFile f) {
    if (f.stats().numRecords() < 0 || !f.stats().minValues().containsKey("id")) {
      return Placement.STRADDLES;
    }
    long min = (Long) f.stats().minValues().get("id");
    long max = (Long) f.stats().maxValues().get("id");
    if (max < 10 || min >= 20) {
      return Placement.OUTSIDE;
    }
    return min >= 10 && max < 20 ? Placement.INSIDE : Placement.STRADDLES;
  }

  static final ReplaceRangeTransaction.Range RANGE =
      new ReplaceRangeTransaction.Range(
          ReplaceRangeTransactionTest::byId,
          row -> (Long) row[0] >= 10 && (Long) row[0] < 20,
          "id >= 10 AND id < 20");

  private Snapshot stage() throws Exception {
    Snapshot live = table.snapshot();
    staging.create(live.schema(), live.partitionColumns(), live.properties());
    try (AppendTransaction tx = staging.newAppend(new TransactionId("backfill", 0))) {
      for (long id = 10; id < 20; id++) {
        tx.write(new Object[] {id, "new-" + id, null, "EU"});
      }
      tx.commit(Map.of());
    }
    return staging.snapshot();
  }

  private CommitResult replace(Snapshot staged) throws Exception {
    try (ReplaceRangeTransaction tx =
        table.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE)) {
      tx.addTableFiles(staged, FOLDER);
      return tx.commit(Map.of());
    }
  }

  private Map<Long, String> namesById() throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (Object[] r : rows(store, table.snapshot())) {
      assertThat(out.put((Long) r[0], (String) r[1])).as("id %s appears once", r[0]).isNull();
    }
    return out;
  }

  private Set<String> paths() throws Exception {
    return table.snapshot().files().stream().map(DataFile::path).collect(Collectors.toSet());
  }

  /**
   * Staged files become the live table's: vacuum never deletes them while live, nor the staging
   * table's own log and unswapped files, but does delete one the live table removed since (here by
   * a second replace of the range), once the retention has passed.
   */
  @Test
  void vacuumKeepsLiveStagedFilesAndDeletesOnesTheTableRemovedSince() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "live", 0, 0, 30);
    Snapshot staged = stage();
    replace(staged);
    Set<String> stagedPaths =
        staged.files().stream().map(f -> FOLDER + "/" + f.path()).collect(Collectors.toSet());
    assertThat(paths()).containsAll(stagedPaths);
    clock.advance(Duration.ofDays(30));
    assertThat(table.vacuum(Duration.ofDays(7)).files()).doesNotContainAnyElementsOf(stagedPaths);

    // A second replace of the range (another staging table) removes the first one's files.
    ObjectStore secondStore = ObjectStores.under(store, "_staging/c");
    DeltaTable second = DeltaTable.open(secondStore, TestTables.fastOptions(clock));
    second.create(table.snapshot().schema(), List.of(), Map.of());
    try (AppendTransaction tx = second.newAppend(new TransactionId("backfill-2", 0))) {
      for (long id = 10; id < 20; id++) {
        tx.write(new Object[] {id, "newer-" + id, null, "EU"});
      }
      tx.commit(Map.of());
    }
    try (ReplaceRangeTransaction tx =
        table.newReplaceRange(new TransactionId("backfill-2/replace", 1), RANGE)) {
      tx.addTableFiles(second.snapshot(), "_staging/c");
      tx.commit(Map.of());
    }
    assertThat(namesById().get(15L)).isEqualTo("newer-15");
    assertThat(table.vacuumDryRun(Duration.ofDays(7)).files())
        .as("removed a moment ago: within the retention")
        .doesNotContainAnyElementsOf(stagedPaths);
    clock.advance(Duration.ofDays(8));
    VacuumResult done = table.vacuum(Duration.ofDays(7));
    assertThat(done.files()).containsAll(stagedPaths);
    assertThat(done.files())
        .as("the staging tables' logs are never an orphan")
        .noneMatch(k -> k.contains("_delta_log"));
    for (String p : paths()) {
      assertThat(store.stat(p)).as(p).isPresent();
    }
    assertThat(namesById()).hasSize(30);
  }

  @Test
  void removesInsideFilesRewritesStraddlingOnesKeepsOutsideOnesAndAddsTheStagedFiles()
      throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "live", 0, 0, 10); // outside
    append(table, "live", 1, 10, 15); // inside
    append(table, "live", 2, 15, 25); // straddles
    append(table, "live", 3, 30, 40); // outside
    Set<String> outside =
        table.snapshot().files().stream()
            .filter(f -> byId(f) == Placement.OUTSIDE)
            .map(DataFile::path)
            .collect(Collectors.toSet());
    assertThat(outside).hasSize(2);
    Snapshot staged = stage();

    ReplaceRangeTransaction.Metrics metrics;
    try (ReplaceRangeTransaction tx =
        table.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE)) {
      tx.addTableFiles(staged, FOLDER);
      tx.prepare();
      metrics = tx.metrics();
      assertThat(tx.commit(Map.of()).committed()).isTrue();
    }

    assertThat(metrics).isEqualTo(new ReplaceRangeTransaction.Metrics(1, 10, 1, 5, 1, 10));
    Map<Long, String> names = namesById();
    assertThat(names).hasSize(35);
    for (long id = 0; id < 40; id++) {
      if (id >= 25 && id < 30) {
        assertThat(names).doesNotContainKey(id);
      } else {
        assertThat(names.get(id)).isEqualTo(id >= 10 && id < 20 ? "new-" + id : "name-" + id);
      }
    }
    Set<String> after = paths();
    // the outside files are the same files; the staged one is added by its path in the folder
    assertThat(after).hasSize(4).containsAll(outside);
    assertThat(after.stream().filter(p -> p.startsWith(FOLDER + "/"))).hasSize(1);
    // the range's operation, as Delta's replaceWhere records it
    assertThat(table.snapshot().state().transactionVersion("backfill/replace")).hasValue(1);
  }

  @Test
  void aRerunAfterTheCommitFindsItsTxnAndChangesNothing() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "live", 0, 5, 25);
    Snapshot staged = stage();
    assertThat(replace(staged).committed()).isTrue();
    long version = table.snapshot().version();
    Map<Long, String> once = namesById();

    try (ReplaceRangeTransaction tx =
        table.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE)) {
      assertThat(tx.alreadyCommitted()).isTrue();
      tx.addTableFiles(staged, FOLDER);
      assertThat(tx.commit(Map.of()).committed()).isFalse();
    }
    assertThat(table.snapshot().version()).isEqualTo(version);
    assertThat(namesById()).isEqualTo(once);
  }

  @Test
  void aRewrittenFileLeavesOutTheRowsItsDeletionVectorDeleted() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "live", 0, 5, 15);
    DeletionVectorTables.delete(
        store, table, row -> (Long) row[0] == 7L || (Long) row[0] == 12L, false);
    Snapshot staged = stage();

    ReplaceRangeTransaction.Metrics metrics;
    try (ReplaceRangeTransaction tx =
        table.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE)) {
      tx.addTableFiles(staged, FOLDER);
      tx.prepare();
      metrics = tx.metrics();
      tx.commit(Map.of());
    }

    // 5..14 less 7 and 12: 5, 6, 8, 9 kept; 10, 11, 13, 14 removed
    assertThat(metrics.rowsKept()).isEqualTo(4);
    assertThat(metrics.rowsRemoved()).isEqualTo(4);
    Map<Long, String> names = namesById();
    assertThat(names.keySet())
        .containsExactly(5L, 6L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
    assertThat(names.get(12L)).isEqualTo("new-12");
  }

  @Test
  void aConcurrentAppendOutsideTheRangeCommitsAtTheNextVersion() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "live", 0, 5, 25);
    Snapshot staged = stage();
    try (ReplaceRangeTransaction tx =
        table.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE)) {
      tx.addTableFiles(staged, FOLDER);
      tx.prepare();
      long read = tx.readSnapshot().version();
      append(table, "live", 1, 100, 105); // the live pipeline, after the plan
      CommitResult r = tx.commit(Map.of());
      assertThat(r.committed()).isTrue();
      assertThat(r.tableVersion()).isEqualTo(read + 2);
    }
    Map<Long, String> names = namesById();
    assertThat(names).hasSize(25).containsEntry(100L, "name-100").containsEntry(15L, "new-15");
  }

  @Test
  void aConcurrentAppendInsideTheRangeConflictsAndNothingIsCommitted() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "live", 0, 5, 25);
    Snapshot staged = stage();
    try (ReplaceRangeTransaction tx =
        table.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE)) {
      tx.addTableFiles(staged, FOLDER);
      tx.prepare();
      append(table, "live", 1, 18, 22); // may hold rows of the range: the plan is stale
      assertThatThrownBy(() -> tx.commit(Map.of()))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("may hold rows of the range this commit replaces")
          .hasMessageContaining("id >= 10 AND id < 20");
    }
    assertThat(table.snapshot().state().transactionVersion("backfill/replace")).isEmpty();
  }

  @Test
  void aConcurrentCompactionOfAFileItRemovesConflicts() {
    ConflictRules rules =
        new ConflictRules(
            "ours",
            new TransactionId("backfill/replace", 1),
            Set.of("a.parquet"),
            new ConflictRules.AddRule(add -> !add.path().startsWith("out"), "in the range"),
            List.of());
    var outside =
        new dev.tributary.table.log.AddFile(
            "out.parquet", Map.of(), 1, 1, true /* dataChange */, null, Map.of());
    var inside =
        new dev.tributary.table.log.AddFile(
            "in.parquet", Map.of(), 1, 1, true /* dataChange */, null, Map.of());
    var compacted =
        new dev.tributary.table.log.AddFile(
            "in.parquet", Map.of(), 1, 1, false /* dataChange */, null, Map.of());
    assertThat(rules.check("t", 3, List.of(outside))).isEqualTo(ConflictRules.Verdict.NO_CONFLICT);
    // a compaction's add changes no data: only its removes can conflict
    assertThat(rules.check("t", 3, List.of(compacted)))
        .isEqualTo(ConflictRules.Verdict.NO_CONFLICT);
    assertThatThrownBy(() -> rules.check("t", 3, List.of(inside)))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("it added data ('in.parquet') in the range");
    assertThatThrownBy(
            () ->
                rules.check(
                    "t",
                    3,
                    List.of(
                        new dev.tributary.table.log.AddFile(
                                "a.parquet", Map.of(), 1, 1, false /* dataChange */, null, Map.of())
                            .toRemove(1, false /* dataChange */))))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("it removed file 'a.parquet'");
  }

  @Test
  void refusesAppendOnlyTablesAndStagedTablesOfAnotherLayout() throws Exception {
    table.create(SCHEMA, List.of(), Map.of("delta.appendOnly", "true"));
    assertThatThrownBy(() -> table.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("append-only (delta.appendOnly=true)");

    DeltaTable other =
        DeltaTable.open(new InMemoryObjectStore(clock), TestTables.fastOptions(clock));
    other.create(SCHEMA, List.of(), Map.of());
    ObjectStore wrongStore = ObjectStores.under(other.store(), FOLDER);
    DeltaTable wrong = DeltaTable.open(wrongStore, TestTables.fastOptions(clock));
    wrong.create(
        StructType.of(new StructField("id", PrimitiveType.LONG, false)), List.of(), Map.of());
    try (ReplaceRangeTransaction tx =
        other.newReplaceRange(new TransactionId("backfill/replace", 1), RANGE)) {
      assertThatThrownBy(() -> tx.addTableFiles(wrong.snapshot(), FOLDER))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("create the inner table with the outer table's metadata");
    }
  }
}
