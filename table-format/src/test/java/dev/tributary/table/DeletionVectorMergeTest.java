package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static dev.tributary.table.TestTables.append;
import static dev.tributary.table.TestTables.rows;
import static dev.tributary.table.UpsertMergeTest.LATER;
import static dev.tributary.table.UpsertMergeTest.delete;
import static dev.tributary.table.UpsertMergeTest.namesById;
import static dev.tributary.table.UpsertMergeTest.row;
import static dev.tributary.table.UpsertMergeTest.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import dev.tributary.table.dv.DeletionVectors;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.RemoveFile;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Merges with {@code merge-strategy: deletion-vectors}: rows marked in deletion vectors (united
 * with a file's existing vector), deletes that only mark, the protocol turned on when first used,
 * conflicts that make the merge plan again, and compaction and vacuum cleaning up after them.
 */
class DeletionVectorMergeTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));
  final MergeSpec dv =
      new MergeSpec(List.of("id"), Optional.of("ts"), MergeSpec.Strategy.DELETION_VECTORS);

  private MergeMetrics merge(long batch, MergeTransaction.Change... changes) throws Exception {
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", batch), dv)) {
      for (MergeTransaction.Change c : changes) {
        tx.apply(c);
      }
      assertThat(tx.commit(Map.of()).committed()).isTrue();
      return tx.metrics();
    }
  }

  private List<Action> lastCommit() throws Exception {
    return new DeltaLog(store).readCommit(table.snapshot().version());
  }

  /** The live files that carry a deletion vector, by path. */
  private Map<String, DeletionVectorDescriptor> vectors() throws Exception {
    return table.snapshot().state().files().values().stream()
        .filter(a -> a.deletionVector() != null)
        .collect(Collectors.toMap(AddFile::path, AddFile::deletionVector));
  }

  private Set<String> vectorFiles() throws Exception {
    Set<String> out = new TreeSet<>();
    for (ObjectInfo o : store.list("")) {
      if (o.key().contains("deletion_vector_")) {
        out.add(o.key());
      }
    }
    return out;
  }

  @Test
  void replacedRowsAreMarkedInAVectorAndTheNewVersionsAppendedNothingCopied() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 10);
    String loaded = table.snapshot().state().files().keySet().iterator().next();
    MergeMetrics m = merge(0, upsert(row(3, "three", LATER)), upsert(row(42, "new", LATER)));

    assertThat(m.copied()).as("nothing is copied").isZero();
    assertThat(m.updated()).isEqualTo(1);
    assertThat(m.inserted()).isEqualTo(1);
    assertThat(m.vectorsAdded()).isEqualTo(1);
    assertThat(m.filesRemoved()).as("no file leaves the table").isZero();
    assertThat(namesById(table))
        .hasSize(11)
        .containsEntry(3L, "three")
        .containsEntry(42L, "new")
        .containsEntry(4L, "name-4");

    // the first use turned the feature on, in the merge's own commit
    Protocol protocol = table.snapshot().state().protocol();
    assertThat(protocol.minReaderVersion()).isEqualTo(3);
    assertThat(protocol.minWriterVersion()).isEqualTo(7);
    assertThat(protocol.supports(ProtocolSupport.DELETION_VECTORS)).isTrue();
    assertThat(table.snapshot().properties())
        .containsEntry(ProtocolSupport.ENABLE_DELETION_VECTORS, "true");

    List<Action> commit = lastCommit();
    RemoveFile remove =
        commit.stream()
            .filter(RemoveFile.class::isInstance)
            .map(RemoveFile.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(remove.path()).isEqualTo(loaded);
    assertThat(remove.deletionVector()).as("the logical file as it was: no vector").isNull();
    assertThat(remove.dataChange()).isTrue();
    AddFile readded =
        commit.stream()
            .filter(a -> a instanceof AddFile add && add.path().equals(loaded))
            .map(AddFile.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(readded.dataChange()).isTrue();
    assertThat(readded.stats()).contains("\"numRecords\":10").contains("\"tightBounds\":false");
    DeletionVectorDescriptor descriptor = readded.deletionVector();
    assertThat(descriptor.storageType()).isEqualTo(DeletionVectorDescriptor.StorageType.RELATIVE);
    assertThat(descriptor.offset()).as("the first bitmap follows the version byte").isEqualTo(1);
    assertThat(descriptor.cardinality()).isEqualTo(1);
    assertThat(DeletionVectors.load(store, descriptor).toArray())
        .as("row 3 of the loaded file (ids 0..9 in order)")
        .containsExactly(3L);
    assertThat(vectorFiles()).containsExactly(descriptor.relativePath());
  }

  @Test
  void aFileMarkedAgainGetsTheUnionOfItsOldAndNewRowsInANewVectorFile() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 10);
    String loaded = table.snapshot().state().files().keySet().iterator().next();
    merge(0, upsert(row(2, "two", LATER)));
    DeletionVectorDescriptor first = vectors().get(loaded);
    MergeMetrics second = merge(1, upsert(row(5, "five", LATER)), delete(row(7, null, LATER)));
    assertThat(second.vectorsUpdated()).isEqualTo(1);
    assertThat(second.deleted()).isEqualTo(1);
    DeletionVectorDescriptor united = vectors().get(loaded);
    assertThat(united.cardinality()).isEqualTo(3);
    assertThat(DeletionVectors.load(store, united).toArray()).containsExactly(2L, 5L, 7L);
    assertThat(united.relativePath()).isNotEqualTo(first.relativePath());
    RemoveFile remove =
        lastCommit().stream()
            .filter(a -> a instanceof RemoveFile r && r.path().equals(loaded))
            .map(RemoveFile.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(remove.deletionVector())
        .as("removes the logical file with its old vector")
        .isEqualTo(first);
    assertThat(namesById(table))
        .hasSize(9)
        .containsEntry(2L, "two")
        .containsEntry(5L, "five")
        .doesNotContainKey(7L);
    // the key index re-read the re-added file: a later change of key 5 finds its new row
    merge(2, upsert(row(5, "five-again", LATER + 1)));
    assertThat(namesById(table)).hasSize(9).containsEntry(5L, "five-again");
  }

  /**
   * The key index follows the vectors a merge writes without reading the marked files' keys again:
   * each batch reads only the keys of the files it added. Over random batches of updates, deletes
   * and re-inserts of deleted keys (with a second load of some keys, duplicates the index keeps as
   * extra rows), the table stays equal to the last value per key.
   */
  @Test
  void theIndexDropsTheMarkedRowsInsteadOfReadingTheFilesAgain() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 200);
    Map<Long, String> expected = new TreeMap<>();
    for (long id = 0; id < 200; id++) {
      expected.put(id, "name-" + id);
    }
    Random random = new Random(7);
    long ts = LATER;
    long indexedBefore = -1;
    for (int batch = 0; batch < 12; batch++) {
      List<MergeTransaction.Change> changes = new ArrayList<>();
      Set<Long> touched = new TreeSet<>();
      while (touched.size() < 15) {
        long id = random.nextInt(230);
        if (!touched.add(id)) {
          continue;
        }
        ts++;
        if (expected.containsKey(id) && random.nextInt(4) == 0) {
          changes.add(delete(row(id, null, ts)));
          expected.remove(id);
        } else {
          changes.add(upsert(row(id, "v" + batch + "-" + id, ts)));
          expected.put(id, "v" + batch + "-" + id);
        }
      }
      MergeMetrics m = merge(batch, changes.toArray(new MergeTransaction.Change[0]));
      if (batch == 0) {
        assertThat(m.indexedRows()).as("the first merge reads every key once").isEqualTo(200);
      } else {
        assertThat(m.indexedRows())
            .as("batch %d reads only the keys of the previous batch's new file", batch)
            .isEqualTo(indexedBefore);
      }
      indexedBefore = m.inserted() + m.updated();
      assertThat(namesById(table)).as("after batch %d", batch).isEqualTo(expected);
    }
  }

  /**
   * Keys held by two rows (appended twice before any merge): a merge marks both copies, and the
   * next merges find only the new version, though the index keeps the marked rows' entries (dead)
   * and the key's side list of extra rows.
   */
  @Test
  void aKeyHeldByTwoRowsIsReplacedWholeAndItsMarkedRowsAreNeverFoundAgain() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 10);
    append(table, "again", 0, 3, 5); // ids 3 and 4 held by two rows each
    merge(0, upsert(row(3, "three", LATER)));
    assertThat(idsOf(table)).as("both copies of 3 replaced").containsOnlyOnce(3L);
    assertThat(idsOf(table).stream().filter(id -> id == 4L).count()).isEqualTo(2);
    MergeMetrics second = merge(1, upsert(row(3, "three again", LATER + 1)));
    assertThat(second.updated()).isEqualTo(1);
    assertThat(idsOf(table)).containsOnlyOnce(3L);
    merge(2, delete(row(3, null, LATER + 2)), upsert(row(4, "four", LATER + 2)));
    assertThat(idsOf(table)).doesNotContain(3L).containsOnlyOnce(4L).hasSize(9);
    MergeMetrics back = merge(3, upsert(row(3, "back", LATER + 3)));
    assertThat(back.inserted()).as("a deleted key comes back as an insert").isEqualTo(1);
    assertThat(namesById(table)).containsEntry(3L, "back").containsEntry(4L, "four").hasSize(10);
  }

  private static List<Long> idsOf(DeltaTable table) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (Object[] r : rows(table.store(), table.snapshot())) {
      ids.add((Long) r[0]);
    }
    return ids;
  }

  @Test
  void deletesOnlyMarkAndAFileWithNoRowLeftIsRemoved() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 3);
    append(table, "load", 1, 3, 6);
    int files = table.snapshot().fileCount();
    MergeMetrics partly = merge(0, delete(row(4, null, LATER)));
    assertThat(partly.filesAdded()).as("a delete writes no data file").isZero();
    assertThat(table.snapshot().fileCount()).isEqualTo(files);
    MergeMetrics whole =
        merge(
            1,
            delete(row(0, null, LATER)),
            delete(row(1, null, LATER)),
            delete(row(2, null, LATER)));
    assertThat(whole.filesRemoved()).as("every row of the first file is gone").isEqualTo(1);
    assertThat(whole.vectorsAdded()).isZero();
    assertThat(table.snapshot().fileCount()).isEqualTo(files - 1);
    assertThat(namesById(table)).containsOnlyKeys(3L, 5L);
  }

  @Test
  void aFileWithoutStatsGetsItsRowCountFromTheFooterForTheVector() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 10);
    AddFile loaded = table.snapshot().state().files().values().iterator().next();
    // as another writer may leave it: the same file without stats
    AddFile bare =
        new AddFile(
            loaded.path(),
            loaded.partitionValues(),
            loaded.size(),
            loaded.modificationTime(),
            false,
            null,
            Map.of());
    table.commit(
        table.snapshot().state(),
        null,
        List.of(loaded.toRemove(0, false), bare),
        "WRITE",
        Map.of(),
        false);
    merge(0, delete(row(4, null, LATER)));
    AddFile marked = table.snapshot().state().files().get(loaded.path());
    assertThat(marked.stats()).isEqualTo("{\"numRecords\":10,\"tightBounds\":false}");
    assertThat(marked.deletionVector().cardinality()).isEqualTo(1);
    assertThat(namesById(table)).hasSize(9).doesNotContainKey(4L);
  }

  @Test
  void aCopyOnWriteMergeAfterwardsRewritesAMarkedFileWithoutItsMarkedRows() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 10);
    String loaded = table.snapshot().state().files().keySet().iterator().next();
    merge(0, upsert(row(3, "three", LATER)), delete(row(5, null, LATER)));
    try (MergeTransaction tx =
        table.newMerge(new TransactionId("pipe", 1), dv.with(MergeSpec.Strategy.COPY_ON_WRITE))) {
      tx.write(row(6, "six", LATER));
      tx.commit(Map.of());
      assertThat(tx.metrics().copied()).as("the file's live rows but 6").isEqualTo(7);
    }
    assertThat(table.snapshot().state().files()).doesNotContainKey(loaded);
    RemoveFile removed =
        lastCommit().stream()
            .filter(a -> a instanceof RemoveFile r && r.path().equals(loaded))
            .map(RemoveFile.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(removed.deletionVector()).as("removed with its vector").isNotNull();
    assertThat(namesById(table))
        .hasSize(9)
        .containsEntry(3L, "three")
        .containsEntry(6L, "six")
        .doesNotContainKey(5L);
  }

  @Test
  void aTableCreatedForDeletionVectorsHasTheFeatureFromItsFirstVersion() throws Exception {
    table.create(SCHEMA, List.of(), Map.of(ProtocolSupport.ENABLE_DELETION_VECTORS, "true"));
    Protocol protocol = table.snapshot().state().protocol();
    assertThat(protocol.readerFeatures()).containsExactly("deletionVectors");
    assertThat(protocol.writerFeatures())
        .containsExactlyInAnyOrder("deletionVectors", "appendOnly", "invariants");
    append(table, "load", 0, 0, 5);
    merge(0, upsert(row(1, "one", LATER)));
    assertThat(lastCommit())
        .as("nothing to turn on: the merge commits no protocol or metadata")
        .noneMatch(a -> a instanceof Protocol || a instanceof Metadata);
  }

  @Test
  void aTableThatDisablesDeletionVectorsIsRefusedByName() throws Exception {
    table.create(SCHEMA, List.of(), Map.of(ProtocolSupport.ENABLE_DELETION_VECTORS, "false"));
    assertThatThrownBy(() -> table.newMerge(new TransactionId("pipe", 0), dv))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("the table disables them (delta.enableDeletionVectors=false)")
        .hasMessageContaining("merge-strategy: copy-on-write");
  }

  @Test
  void aConcurrentMarkOrCompactionOfATouchedFileMakesTheMergeConflictAndItPlansAgain()
      throws Exception {
    table.create(SCHEMA, List.of(), Map.of(ProtocolSupport.ENABLE_DELETION_VECTORS, "true"));
    for (int batch = 0; batch < 3; batch++) {
      append(table, "load", batch, batch * 10L, batch * 10L + 10);
    }
    MergeTransaction planned = table.newMerge(new TransactionId("pipe", 0), dv);
    planned.write(row(15, "mine", LATER));
    planned.prepare();
    // another handle marks a row of the same file first
    DeltaTable other = DeltaTable.open(store, TestTables.fastOptions(clock));
    try (MergeTransaction tx = other.newMerge(new TransactionId("other", 0), dv)) {
      tx.write(row(16, "theirs", LATER));
      assertThat(tx.commit(Map.of()).committed()).isTrue();
    }
    assertThatThrownBy(() -> planned.commit(Map.of()))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("which this commit also removes");
    try (MergeTransaction again = table.newMerge(new TransactionId("pipe", 0), dv)) {
      again.write(row(15, "mine", LATER));
      assertThat(again.commit(Map.of()).committed()).isTrue();
    }
    assertThat(namesById(table))
        .hasSize(30)
        .containsEntry(15L, "mine")
        .containsEntry(16L, "theirs");

    MergeTransaction beforeCompaction = table.newMerge(new TransactionId("pipe", 1), dv);
    beforeCompaction.write(row(25, "mine", LATER));
    beforeCompaction.prepare();
    table.compact(new CompactionOptions(2, 1 << 20));
    assertThatThrownBy(() -> beforeCompaction.commit(Map.of()))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("which this commit also removes");
    try (MergeTransaction again = table.newMerge(new TransactionId("pipe", 1), dv)) {
      again.write(row(25, "mine", LATER));
      assertThat(again.commit(Map.of()).committed()).isTrue();
    }
    assertThat(namesById(table)).hasSize(30).containsEntry(25L, "mine").containsEntry(15L, "mine");
  }

  @Test
  void compactionAppliesTheVectorsAndVacuumDeletesTheVectorFilesNoLongerReferenced()
      throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 10);
    merge(0, upsert(row(1, "one", LATER)));
    Set<String> firstVector = vectorFiles();
    merge(1, upsert(row(2, "two", LATER)));
    clock.advance(Duration.ofHours(2));
    // the first vector file is only a tombstone's now; the second is live
    VacuumResult beforeCompaction = table.vacuumDryRun(Duration.ofHours(1));
    assertThat(beforeCompaction.files()).containsAll(firstVector);
    Set<String> live =
        vectors().values().stream()
            .map(DeletionVectorDescriptor::relativePath)
            .collect(Collectors.toSet());
    assertThat(live).hasSize(1);
    assertThat(beforeCompaction.files()).doesNotContainAnyElementsOf(live);
    Map<Long, String> before = namesById(table);

    CompactionResult compacted = table.compact(new CompactionOptions(2, 1 << 20));
    assertThat(compacted.filesRemoved()).isEqualTo(3); // the marked file and the two appended
    assertThat(vectors()).as("compaction leaves no vector").isEmpty();
    assertThat(namesById(table)).isEqualTo(before);
    long physical = 0;
    for (var f : table.snapshot().files()) {
      physical += f.stats().numRecords();
    }
    assertThat(physical).as("the marked rows are gone from the files").isEqualTo(10);

    clock.advance(Duration.ofHours(2));
    VacuumResult vacuumed = table.vacuum(Duration.ofHours(1));
    assertThat(vacuumed.files()).containsAll(firstVector);
    assertThat(vectorFiles()).as("no vector file is referenced any more: all deleted").isEmpty();
    assertThat(namesById(table)).isEqualTo(before);
  }

  @Test
  void aLoneFileWithAVectorIsPurgedByCompaction() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 10);
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 0), dv)) {
      tx.apply(delete(row(4, null, LATER)));
      tx.commit(Map.of());
    }
    assertThat(table.snapshot().fileCount()).isEqualTo(1);
    CompactionResult result = table.compact(new CompactionOptions(5, 1 << 20));
    assertThat(result.filesRemoved()).isEqualTo(1);
    assertThat(vectors()).isEmpty();
    assertThat(rows(store, table.snapshot())).hasSize(9);
  }

  @Test
  void theCommitRecordsAMergeWithTheVectorMetrics() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "load", 0, 0, 4);
    merge(0, upsert(row(1, "x", LATER)), delete(row(2, null, LATER)), upsert(row(7, "new", LATER)));
    CommitInfo info = (CommitInfo) lastCommit().get(0);
    assertThat(info.values()).containsEntry("operation", "MERGE");
    @SuppressWarnings("unchecked")
    Map<String, Object> metrics = (Map<String, Object>) info.values().get("operationMetrics");
    assertThat(metrics)
        .containsEntry("numTargetRowsUpdated", "1")
        .containsEntry("numTargetRowsDeleted", "1")
        .containsEntry("numTargetRowsInserted", "1")
        .containsEntry("numTargetRowsCopied", "0")
        .containsEntry("numTargetFilesRemoved", "0")
        .containsEntry("numTargetFilesAdded", "1")
        .containsEntry("numTargetDeletionVectorsAdded", "1");
    List<String> kinds = new ArrayList<>();
    lastCommit().forEach(a -> kinds.add(a.kind()));
    assertThat(kinds).startsWith("commitInfo", "txn", "protocol", "metaData", "remove", "add");
  }
}
