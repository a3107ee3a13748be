package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static dev.tributary.table.TestTables.append;
import static dev.tributary.table.TestTables.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Merges of {@code write: upsert}: deletes, ordering by a sequence column, the key index's cost,
 * and conflicts with a concurrent compaction. The sequence column is {@code ts}.
 */
class UpsertMergeTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  /** Sequence values after and before those of {@link TestTables#append}'s rows. */
  static final long LATER = 2_000_000_000L;

  static final long EARLIER = 1_000_000_000L;

  final MergeSpec byIdAndTs = new MergeSpec(List.of("id"), Optional.of("ts"));

  static Object[] row(long id, String name, long ts) {
    return new Object[] {id, name, Instant.ofEpochSecond(ts), null};
  }

  private Map<Long, String> namesById() throws Exception {
    return namesById(table);
  }

  static Map<Long, String> namesById(DeltaTable table) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (Object[] r : rows(table.store(), table.snapshot())) {
      assertThat(out.put((Long) r[0], (String) r[1])).as("id %s appears once", r[0]).isNull();
    }
    return out;
  }

  private MergeMetrics merge(long batch, MergeTransaction.Change... changes) throws Exception {
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", batch), byIdAndTs)) {
      for (MergeTransaction.Change c : changes) {
        tx.apply(c);
      }
      assertThat(tx.commit(Map.of()).committed()).isTrue();
      return tx.metrics();
    }
  }

  static MergeTransaction.Change upsert(Object[] row) {
    return new MergeTransaction.Change(
        MergeTransaction.Kind.UPSERT, row, MergeTransaction.Order.BY_SEQUENCE);
  }

  static MergeTransaction.Change delete(Object[] row) {
    return new MergeTransaction.Change(
        MergeTransaction.Kind.DELETE, row, MergeTransaction.Order.BY_SEQUENCE);
  }

  @Test
  void deletesRemoveTheirKeyAndADeleteOfAnAbsentKeyDoesNothing() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    merge(0, upsert(row(1, "a", 10)), upsert(row(2, "b", 10)), upsert(row(3, "c", 10)));
    MergeMetrics m = merge(1, delete(row(2, null, 11)), delete(row(99, null, 11)));
    assertThat(namesById()).containsExactly(Map.entry(1L, "a"), Map.entry(3L, "c"));
    assertThat(m.deleted()).isEqualTo(1);
    assertThat(m.inserted()).isZero();
    assertThat(m.copied()).as("the other rows of the rewritten file").isEqualTo(2);
  }

  @Test
  void aChangeOlderThanTheTablesRowIsIgnoredAndCountedATieApplies() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    merge(0, upsert(row(1, "v10", 10)), upsert(row(2, "v10", 10)), upsert(row(3, "v10", 10)));
    MergeMetrics m =
        merge(1, upsert(row(1, "v9", 9)), upsert(row(2, "v10-again", 10)), delete(row(3, null, 5)));
    assertThat(m.ignoredOlder()).isEqualTo(2);
    assertThat(m.updated()).isEqualTo(1);
    assertThat(namesById())
        .containsExactly(Map.entry(1L, "v10"), Map.entry(2L, "v10-again"), Map.entry(3L, "v10"));
    // a change without a sequence value, or ordered ALWAYS, applies whatever the table holds
    MergeMetrics always =
        merge(
            2,
            new MergeTransaction.Change(
                MergeTransaction.Kind.UPSERT, row(1, "forced", 1), MergeTransaction.Order.ALWAYS),
            upsert(new Object[] {3L, "no-sequence", null, null}));
    assertThat(always.ignoredOlder()).isZero();
    assertThat(namesById()).containsEntry(1L, "forced").containsEntry(3L, "no-sequence");
  }

  @Test
  void onlyTheFilesHoldingChangedKeysAreRewrittenAndTheKeysOfOldFilesAreReadOnce()
      throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    for (int batch = 0; batch < 10; batch++) {
      append(table, "load", batch, batch * 100L, batch * 100L + 100);
    }
    MergeMetrics first =
        merge(0, upsert(row(150, "changed", LATER)), upsert(row(5000, "new", LATER)));
    assertThat(first.filesRemoved()).as("random keys: only the file holding 150").isEqualTo(1);
    assertThat(first.copied()).isEqualTo(99);
    assertThat(first.indexedRows()).as("the first merge reads every key once").isEqualTo(1000);
    MergeMetrics second = merge(1, upsert(row(950, "changed", LATER)));
    assertThat(second.indexedRows())
        .as("then only the files committed since: the 99 copied rows and 2 new rows")
        .isEqualTo(101);
    assertThat(second.filesRemoved()).isEqualTo(1);
    Map<Long, String> names = namesById();
    assertThat(names).hasSize(1001).containsEntry(150L, "changed").containsEntry(950L, "changed");
    assertThat(names).containsEntry(5000L, "new").containsEntry(151L, "name-151");
  }

  @Test
  void aKeyHeldByTwoRowsLosesBoth() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 5);
    append(table, "load", 1, 3, 8); // 3 and 4 twice
    MergeMetrics m =
        merge(
            0,
            upsert(new Object[] {3L, "three", null, null}),
            delete(new Object[] {4L, null, null, null}));
    assertThat(m.updated()).isEqualTo(2);
    assertThat(m.deleted()).isEqualTo(2);
    assertThat(namesById()).hasSize(7).containsEntry(3L, "three").doesNotContainKey(4L);
  }

  @Test
  void aCompactionThatRemovedAFileTheMergeRewritesMakesItConflictAndItPlansAgain()
      throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    for (int batch = 0; batch < 6; batch++) {
      append(table, "load", batch, batch * 10L, batch * 10L + 10);
    }
    MergeTransaction planned = table.newMerge(new TransactionId("pipe", 0), byIdAndTs);
    planned.write(row(15, "changed", LATER));
    table.compact(new CompactionOptions(2, 1 << 20));
    assertThatThrownBy(() -> planned.commit(Map.of()))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("which this commit also removes (concurrent compaction");
    assertThat(namesById()).containsEntry(15L, "name-15");
    // planned again on the compacted table, the same change commits
    try (MergeTransaction again = table.newMerge(new TransactionId("pipe", 0), byIdAndTs)) {
      again.write(row(15, "changed", LATER));
      assertThat(again.commit(Map.of()).committed()).isTrue();
    }
    assertThat(namesById()).hasSize(60).containsEntry(15L, "changed");
  }

  @Test
  void aConcurrentRewriteOfFilesTheMergeDoesNotTouchDoesNotConflict() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    for (int batch = 0; batch < 6; batch++) {
      append(table, "load", batch, batch * 10L, batch * 10L + 10);
    }
    MergeTransaction planned = table.newMerge(new TransactionId("pipe", 0), byIdAndTs);
    planned.write(row(5, "changed", LATER));
    // another writer rewrites the file of keys 50-59 first
    DeltaTable other = DeltaTable.open(store, TestTables.fastOptions(clock));
    try (MergeTransaction tx = other.newMerge(new TransactionId("other", 0), byIdAndTs)) {
      tx.write(row(55, "other", LATER));
      tx.commit(Map.of());
    }
    CommitResult result = planned.commit(Map.of());
    assertThat(result.committed()).isTrue();
    assertThat(result.attempts()).as("retried at the next version, no conflict").isEqualTo(2);
    assertThat(namesById())
        .hasSize(60)
        .containsEntry(5L, "changed")
        .containsEntry(55L, "other")
        .containsEntry(6L, "name-6");
  }

  @Test
  void theCommitRecordsMergeWithSparksParameterAndMetricNames() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 4);
    merge(0, upsert(row(1, "x", LATER)), delete(row(2, null, LATER)), upsert(row(7, "new", LATER)));
    List<?> actions = new DeltaLog(store).readCommit(table.snapshot().version());
    CommitInfo info = (CommitInfo) actions.get(0);
    assertThat(info.values()).containsEntry("operation", "MERGE");
    @SuppressWarnings("unchecked")
    Map<String, Object> metrics = (Map<String, Object>) info.values().get("operationMetrics");
    assertThat(metrics)
        .containsEntry("numSourceRows", "3")
        .containsEntry("numTargetRowsInserted", "1")
        .containsEntry("numTargetRowsUpdated", "1")
        .containsEntry("numTargetRowsDeleted", "1")
        .containsEntry("numTargetRowsCopied", "2")
        .containsEntry("numTargetFilesRemoved", "1")
        .containsEntry("numTargetFilesAdded", "1");
    @SuppressWarnings("unchecked")
    Map<String, Object> parameters = (Map<String, Object>) info.values().get("operationParameters");
    assertThat(parameters).containsEntry("predicate", "[\"target.id <=> source.id\"]");
  }

  @Test
  void aPartitionColumnCanBeTheKeyAndARowCanMoveBetweenPartitions() throws Exception {
    table.create(SCHEMA, List.of("region"), Map.of());
    MergeSpec byRegion = MergeSpec.byKey(List.of("region"));
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 0), byRegion)) {
      tx.write(new Object[] {1L, "eu", null, "EU"});
      tx.write(new Object[] {2L, "us", null, "US"});
      tx.commit(Map.of());
    }
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 1), byRegion)) {
      tx.write(new Object[] {3L, "eu-2", null, "EU"});
      assertThat(tx.commit(Map.of()).filesRemoved()).isEqualTo(1);
    }
    assertThat(namesById()).containsExactly(Map.entry(2L, "us"), Map.entry(3L, "eu-2"));
    try (MergeTransaction tx =
        table.newMerge(new TransactionId("pipe", 2), MergeSpec.byKey(List.of("id")))) {
      tx.write(new Object[] {2L, "moved", null, "EU"});
      tx.commit(Map.of());
    }
    assertThat(rows(store, table.snapshot()))
        .anySatisfy(r -> assertThat(r).containsExactly(2L, "moved", null, "EU"));
  }

  @Test
  void aNewHandleOnTheSameTableReadsTheKeysAgainAndAgrees() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 50);
    merge(0, upsert(row(10, "ten", LATER)));
    DeltaTable other = DeltaTable.open(store, TestTables.fastOptions(clock));
    try (MergeTransaction tx = other.newMerge(new TransactionId("pipe", 1), byIdAndTs)) {
      tx.write(row(10, "older", EARLIER));
      tx.write(row(11, "eleven", LATER));
      tx.commit(Map.of());
      assertThat(tx.metrics().ignoredOlder()).isEqualTo(1);
      assertThat(tx.metrics().indexedRows()).isEqualTo(50);
    }
    assertThat(namesById()).hasSize(50).containsEntry(10L, "ten").containsEntry(11L, "eleven");
  }

  @Test
  void anUnknownSequenceColumnIsRefused() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    assertThatThrownBy(
            () ->
                table.newMerge(
                    new TransactionId("p", 0),
                    new MergeSpec(List.of("id"), Optional.of("version"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sequence column 'version' is not a column of table");
  }
}
