package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.RemoveFile;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class CompactionVacuumTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  @Test
  void compactionRewritesSmallFilesPerPartitionWithoutChangingRows() throws Exception {
    table.create(SCHEMA, List.of("region"), Map.of());
    for (int b = 0; b < 6; b++) {
      TestTables.append(table, "p", b, b * 10L, b * 10L + 10);
    }
    List<Object[]> before = TestTables.rows(store, table.snapshot());
    assertThat(table.snapshot().fileCount()).isEqualTo(18);

    CompactionResult result = table.compact(new CompactionOptions(3, 1024 * 1024));

    assertThat(result.compacted()).isTrue();
    assertThat(result.partitions()).isEqualTo(3);
    assertThat(result.filesRemoved()).isEqualTo(18);
    assertThat(result.filesAdded()).isEqualTo(3);
    Snapshot after = table.snapshot();
    assertThat(after.fileCount()).isEqualTo(3);
    assertThat(after.latestTransactionVersion("p")).hasValue(5);
    List<Object[]> rows = TestTables.rows(store, after);
    assertThat(rows)
        .usingRecursiveFieldByFieldElementComparator()
        .containsExactlyElementsOf(before);
    List<Action> commit = new DeltaLog(store).readCommit(result.tableVersion());
    assertThat(commit)
        .filteredOn(a -> a instanceof AddFile)
        .hasSize(3)
        .allSatisfy(a -> assertThat(((AddFile) a).dataChange()).isFalse());
    assertThat(commit)
        .filteredOn(a -> a instanceof RemoveFile)
        .hasSize(18)
        .allSatisfy(a -> assertThat(((RemoveFile) a).dataChange()).isFalse());
    assertThat(table.compact(new CompactionOptions(3, 1024 * 1024)).compacted()).isFalse();
  }

  @Test
  void filesOfOneTimestampPartitionWrittenInTheOlderZoneLessFormatAreReadAndCompactedTogether()
      throws Exception {
    table.create(SCHEMA, List.of("ts"), Map.of());
    Instant ts = Instant.parse("2026-01-01T00:00:00Z");
    for (long id = 0; id < 2; id++) {
      try (AppendTransaction tx = table.newAppend(new TransactionId("p", id))) {
        tx.write(new Object[] {id, "new", ts, "EU"});
        tx.commit(Map.of());
      }
    }
    // The same partition as an older version of the writer logged it: UTC, no zone.
    DataFile current = table.snapshot().files().get(0);
    assertThat(current.partitionValues()).containsEntry("ts", "2026-01-01T00:00:00.000000Z");
    assertThat(current.path()).startsWith("ts=2026-01-01T00%3A00%3A00.000000Z/");
    try (AppendTransaction tx = table.newAppend(new TransactionId("p", 2))) {
      String oldPath = "ts=2026-01-01 00%3A00%3A00/part-00000-old.zstd.parquet";
      store.put(oldPath, store.read(current.path()));
      tx.addFiles(
          List.of(
              new DataFile(
                  oldPath,
                  Map.of("ts", "2026-01-01 00:00:00"),
                  current.size(),
                  current.modificationTime(),
                  current.stats())));
      tx.commit(Map.of());
    }
    assertThat(TestTables.rows(store, table.snapshot()))
        .extracting(r -> r[2])
        .containsOnly(ts)
        .hasSize(3);

    CompactionResult result = table.compact(new CompactionOptions(3, 1024 * 1024));

    assertThat(result.filesRemoved()).isEqualTo(3);
    assertThat(result.filesAdded()).isEqualTo(1);
    assertThat(table.snapshot().files())
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.partitionValues()).containsEntry("ts", "2026-01-01T00:00:00.000000Z"));
    assertThat(TestTables.rows(store, table.snapshot()))
        .extracting(r -> r[2])
        .containsOnly(ts)
        .hasSize(3);
  }

  @Test
  void concurrentCompactionOfTheSameFilesConflictsAndReplans() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    for (int b = 0; b < 4; b++) {
      TestTables.append(table, "p", b, b * 10L, b * 10L + 10);
    }
    Snapshot read = table.snapshot();
    DeltaTable other = DeltaTable.open(store, TestTables.fastOptions(clock));
    assertThat(other.compact(new CompactionOptions(2, 1024 * 1024)).compacted()).isTrue();

    // A compaction that planned on the old snapshot: its removes clash with the winner's.
    List<Action> stale =
        read.state().files().values().stream()
            .map(f -> (Action) f.toRemove(clock.millis(), false))
            .toList();
    assertThatThrownBy(() -> table.commit(read.state(), null, stale, "OPTIMIZE", Map.of(), false))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("conflicts with concurrent commit 5: it removed file '")
        .hasMessageContaining("which this commit also removes");
    assertThat(table.counters().conflicts()).isEqualTo(1);
    // compact() itself re-plans from a fresh snapshot: nothing is left to do.
    assertThat(table.compact(new CompactionOptions(2, 1024 * 1024)).compacted()).isFalse();
  }

  @Test
  void blindAppendConcurrentWithCompactionLosesNothing() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    for (int b = 0; b < 4; b++) {
      TestTables.append(table, "p", b, b * 10L, b * 10L + 10);
    }
    // The append reads version 4 and commits after the compaction took version 5.
    AppendTransaction late =
        DeltaTable.open(store, TestTables.fastOptions(clock)).newAppend(new TransactionId("q", 0));
    late.write(TestTables.row(1000, "EU"));
    table.compact(new CompactionOptions(2, 1024 * 1024));
    CommitResult r = late.commit(Map.of());

    assertThat(r.tableVersion()).isEqualTo(6);
    assertThat(TestTables.ids(TestTables.rows(store, table.snapshot())))
        .containsExactlyElementsOf(
            LongStream.concat(LongStream.range(0, 40), LongStream.of(1000)).boxed().toList());
  }

  @Test
  void vacuumDeletesOnlyExpiredUnreferencedFiles() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    for (int b = 0; b < 3; b++) {
      TestTables.append(table, "p", b, b * 10L, b * 10L + 10);
    }
    List<String> compactedAway = table.snapshot().files().stream().map(DataFile::path).toList();
    store.put("orphan-old.parquet", new byte[] {1, 2, 3});
    clock.advance(Duration.ofHours(2));
    table.compact(new CompactionOptions(2, 1024 * 1024));
    store.put("orphan-young.parquet", new byte[] {4});
    store.put("_hidden/x.parquet", new byte[] {5});
    clock.advance(Duration.ofMinutes(30));
    List<String> live = table.snapshot().files().stream().map(DataFile::path).toList();

    // Tombstones are 30 minutes old, orphan-old 2.5 hours: only the orphan has expired.
    VacuumResult dry = table.vacuumDryRun(Duration.ofHours(1));
    assertThat(dry.deleted()).isFalse();
    assertThat(dry.files()).containsExactly("orphan-old.parquet");
    assertThat(store.stat("orphan-old.parquet")).isPresent();

    VacuumResult all = table.vacuumDryRun(Duration.ofMinutes(10));
    assertThat(all.files())
        .containsExactlyInAnyOrderElementsOf(
            concat(compactedAway, List.of("orphan-old.parquet", "orphan-young.parquet")));

    VacuumResult done = table.vacuum(Duration.ofMinutes(10));
    assertThat(done.deleted()).isTrue();
    assertThat(done.bytes()).isPositive();
    for (String f : done.files()) {
      assertThat(store.stat(f)).as(f).isEmpty();
    }
    for (String f : live) {
      assertThat(store.stat(f)).as(f).isPresent();
    }
    assertThat(store.stat("_hidden/x.parquet")).isPresent();
    assertThat(store.list("_delta_log/")).hasSize(5); // versions 0..4, untouched
    assertThat(TestTables.rows(store, table.snapshot())).hasSize(30);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return Stream.concat(a.stream(), b.stream()).toList();
  }
}
