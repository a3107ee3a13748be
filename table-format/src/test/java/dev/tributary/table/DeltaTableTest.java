package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static dev.tributary.table.TestTables.append;
import static dev.tributary.table.TestTables.ids;
import static dev.tributary.table.TestTables.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectWriter;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.FileStats;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.ActionCodec;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class DeltaTableTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  @Test
  void createsAppendsAndReadsBack() throws Exception {
    assertThat(table.exists()).isFalse();
    Snapshot created = table.create(SCHEMA, List.of("region"), Map.of("delta.appendOnly", "false"));
    assertThat(created.version()).isZero();
    assertThat(table.exists()).isTrue();

    CommitResult first = append(table, "pipe", 0, 0, 30);
    CommitResult second = append(table, "pipe", 1, 30, 60);

    assertThat(first.committed()).isTrue();
    assertThat(first.tableVersion()).isEqualTo(1);
    assertThat(second.tableVersion()).isEqualTo(2);
    Snapshot snapshot = table.snapshot();
    assertThat(snapshot.latestTransactionVersion("pipe")).hasValue(1);
    assertThat(table.latestTransactionVersion("other")).isEmpty();
    assertThat(snapshot.fileCount()).isEqualTo(6); // 3 partitions (EU, US, null) x 2 commits
    List<Object[]> rows = rows(store, snapshot);
    assertThat(ids(rows)).isEqualTo(LongStream.range(0, 60).boxed().toList());
    assertThat(rows.get(2)).containsExactly(TestTables.row(2, null));
    assertThat(snapshot.files()).allSatisfy(f -> assertThat(f.stats().numRecords()).isEqualTo(10));
  }

  @Test
  void addedColumnsReadAsNullInTheFilesWrittenBefore() throws Exception {
    table.create(SCHEMA, List.of(), Map.of("delta.appendOnly", "false"));
    append(table, "pipe", 0, 0, 3);
    StructField note = StructField.nullable("note", PrimitiveType.STRING);

    Snapshot wider = table.addColumns(List.of(note));

    assertThat(wider.schema().fieldNames()).containsExactly("id", "name", "ts", "region", "note");
    assertThat(wider.properties()).containsEntry("delta.appendOnly", "false");
    assertThat(wider.latestTransactionVersion("pipe")).hasValue(0);
    assertThat(rows(store, wider)).hasSize(3).allSatisfy(r -> assertThat(r[4]).isNull());
    // again: nothing to add, no commit
    assertThat(table.addColumns(List.of(note)).version()).isEqualTo(wider.version());
    assertThatThrownBy(
            () -> table.addColumns(List.of(StructField.nullable("note", PrimitiveType.LONG))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already has a column of that name");
  }

  @Test
  void anAppendCanAddColumnsInTheCommitOfItsFirstRows() throws Exception {
    table.create(SCHEMA, List.of(), Map.of("delta.appendOnly", "false"));
    append(table, "pipe", 0, 0, 3);
    long before = table.snapshot().version();
    StructField note = StructField.nullable("note", PrimitiveType.STRING);

    try (AppendTransaction tx = table.newAppend(new TransactionId("pipe", 1))) {
      tx.addColumns(List.of(note));
      tx.addColumns(List.of(note)); // idempotent within the transaction
      tx.write(new Object[] {10L, "n", Instant.parse("2025-01-01T00:00:00Z"), "EU", "hello"});
      assertThat(tx.commit(Map.of()).tableVersion()).isEqualTo(before + 1);
    }

    Snapshot after = table.snapshot();
    // one commit: the metaData action and the rows that carry the column
    assertThat(after.version()).isEqualTo(before + 1);
    List<Action> commit = new DeltaLog(store).readCommit(after.version());
    assertThat(commit).filteredOn(a -> a instanceof Metadata).hasSize(1);
    assertThat(commit).filteredOn(a -> a instanceof AddFile).hasSize(1);
    assertThat(after.schema().fieldNames()).containsExactly("id", "name", "ts", "region", "note");
    assertThat(after.properties()).containsEntry("delta.appendOnly", "false");
    List<Object[]> rows = rows(store, after);
    assertThat(rows).hasSize(4);
    assertThat(rows).extracting(r -> r[4]).containsExactlyInAnyOrder(null, null, null, "hello");
    assertThatThrownBy(
            () -> {
              try (AppendTransaction tx = table.newAppend(new TransactionId("pipe", 2))) {
                tx.addColumns(List.of(StructField.nullable("note", PrimitiveType.LONG)));
              }
            })
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already has a column of that name");
  }

  @Test
  void replayedTransactionIsSkippedWithoutWritingData() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "pipe", 5, 0, 10);
    int objectsBefore = store.list("").size();

    try (AppendTransaction again = table.newAppend(new TransactionId("pipe", 5))) {
      assertThat(again.alreadyCommitted()).isTrue();
      again.write(TestTables.row(99, "EU"));
      CommitResult result = again.commit(Map.of());
      assertThat(result.outcome()).isEqualTo(CommitResult.Outcome.SKIPPED_ALREADY_COMMITTED);
      assertThat(result.tableVersion()).isEqualTo(1);
    }
    assertThat(append(table, "pipe", 4, 0, 10).committed()).isFalse();
    assertThat(store.list("")).hasSize(objectsBefore);
    assertThat(table.snapshot().version()).isEqualTo(1);
  }

  @Test
  void emptyBatchStillRecordsItsTransaction() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    CommitResult result = append(table, "pipe", 0, 0, 0);
    assertThat(result.committed()).isTrue();
    assertThat(result.filesAdded()).isZero();
    assertThat(table.latestTransactionVersion("pipe")).hasValue(0);
  }

  @Test
  void createIsIdempotentButRefusesAnotherSchema() throws Exception {
    table.create(SCHEMA, List.of("region"), Map.of());
    DeltaTable other = DeltaTable.open(store, TableOptions.defaults());
    assertThat(other.create(SCHEMA, List.of("region"), Map.of()).version()).isZero();

    StructType different = StructType.of(StructField.nullable("x", PrimitiveType.LONG));
    assertThatThrownBy(() -> other.create(different, List.of(), Map.of()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(store.location())
        .hasMessageContaining("already exists (version 0) with schema [id, name, ts, region]")
        .hasMessageContaining("Write to a new table location");
  }

  @Test
  void createRefusesAFolderThatHoldsFilesButNoTable() throws Exception {
    for (String key :
        List.of("_checkpoint/offsets/0", "a.parquet", "b/c.json", "d", "e", "f", "g")) {
      store.put(key, new byte[1]);
    }

    assertThatThrownBy(() -> table.create(SCHEMA, List.of(), Map.of()))
        .isInstanceOf(TableException.class)
        .hasMessage(
            "Cannot create a Delta table at "
                + store.location()
                + ": the folder is not empty but holds"
                + " no Delta table (no _delta_log/00000000000000000000.json); it contains _checkpoint/offsets/0,"
                + " a.parquet, b/c.json, d, e and more. A table owns every file in its folder (vacuum deletes those"
                + " the table does not reference), so a table is never created over files someone else wrote."
                + " Choose a new or empty location for the table, or move those files away.");
    assertThat(table.exists()).isFalse();
    assertThat(store.stat(LogFiles.LOG_DIR + "00000000000000000000.json")).isEmpty();
  }

  @Test
  void createNamesEveryFileOfANearlyEmptyFolder() throws Exception {
    store.put("notes.txt", new byte[1]);

    assertThatThrownBy(() -> table.create(SCHEMA, List.of(), Map.of()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("; it contains notes.txt. A table owns every file");
  }

  @Test
  void aTableWithDataIsNotRefusedAfterARestart() throws Exception {
    table.create(SCHEMA, List.of("region"), Map.of());
    // A crash right after the first commit and the data files of a batch never committed.
    store.put("region=EU/part-00000-orphan.parquet", new byte[1]);
    append(table, "pipe", 0, 0, 10);

    DeltaTable restarted = DeltaTable.open(store, TestTables.fastOptions(clock));
    assertThat(restarted.create(SCHEMA, List.of("region"), Map.of()).version()).isEqualTo(1);
  }

  @Test
  void createAcceptsATableAnotherWriterCreatedAndFilledWhileItLooked() throws Exception {
    DeltaTable other = DeltaTable.open(store, TestTables.fastOptions(clock));
    ObjectStore racing =
        new RacingStore(
            store,
            () -> {
              other.create(SCHEMA, List.of(), Map.of());
              append(other, "other", 0, 0, 10);
            });
    DeltaTable late = DeltaTable.open(racing, TestTables.fastOptions(clock));

    assertThat(late.create(SCHEMA, List.of(), Map.of()).version()).isEqualTo(1);
  }

  /** A store that runs {@code race} (once) just before its first bounded listing. */
  private static final class RacingStore implements ObjectStore {
    interface Race {
      void run() throws Exception;
    }

    private final ObjectStore delegate;
    private Race race;

    RacingStore(ObjectStore delegate, Race race) {
      this.delegate = delegate;
      this.race = race;
    }

    @Override
    public List<ObjectInfo> sample(String prefix, int limit) throws IOException {
      if (race != null) {
        try {
          race.run();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        race = null;
      }
      return delegate.sample(prefix, limit);
    }

    @Override
    public String location() {
      return delegate.location();
    }

    @Override
    public byte[] read(String key) throws IOException {
      return delegate.read(key);
    }

    @Override
    public byte[] readRange(String key, long offset, int length) throws IOException {
      return delegate.readRange(key, offset, length);
    }

    @Override
    public InputStream open(String key) throws IOException {
      return delegate.open(key);
    }

    @Override
    public Optional<ObjectInfo> stat(String key) throws IOException {
      return delegate.stat(key);
    }

    @Override
    public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
      return delegate.list(prefix, startAfter);
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
      delegate.put(key, data);
    }

    @Override
    public boolean putIfAbsent(String key, byte[] data) throws IOException {
      return delegate.putIfAbsent(key, data);
    }

    @Override
    public ObjectWriter create(String key) throws IOException {
      return delegate.create(key);
    }

    @Override
    public void delete(String key) throws IOException {
      delegate.delete(key);
    }

    @Override
    public void close() {}
  }

  @Test
  void writesTheMinimalCommitKernelAccepts() throws Exception {
    table.create(SCHEMA, List.of("region"), Map.of());
    append(table, "pipe", 0, 0, 1);

    String v0 = new String(store.read(LogFiles.commit(0)), StandardCharsets.UTF_8);
    String v1 = new String(store.read(LogFiles.commit(1)), StandardCharsets.UTF_8);
    assertThat(v0)
        .contains("{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}")
        .contains("\"format\":{\"provider\":\"parquet\",\"options\":{}}")
        .contains("\"partitionColumns\":[\"region\"]")
        .contains("\"configuration\":{}");
    assertThat(v1)
        .contains("{\"txn\":{\"appId\":\"pipe\",\"version\":0,\"lastUpdated\":")
        .contains("\"partitionValues\":{\"region\":\"EU\"}")
        .contains("\"dataChange\":true")
        .contains("\\\"numRecords\\\":1");
    List<?> actions = ActionCodec.decodeCommit("t", "v1", store.read(LogFiles.commit(1)));
    assertThat(actions.get(0))
        .isInstanceOfSatisfying(CommitInfo.class, ci -> assertThat(ci.txnId()).isPresent());
  }

  @Test
  void overwriteReplacesEverything() throws Exception {
    table.create(SCHEMA, List.of("region"), Map.of());
    append(table, "pipe", 0, 0, 30);
    try (OverwriteTransaction tx = table.newOverwrite(new TransactionId("pipe", 1))) {
      tx.write(TestTables.row(100, "EU"));
      CommitResult r = tx.commit(Map.of());
      assertThat(r.filesRemoved()).isEqualTo(3);
      assertThat(r.filesAdded()).isEqualTo(1);
    }
    assertThat(ids(rows(store, table.snapshot()))).containsExactly(100L);
  }

  @Test
  void overwriteOfAppendOnlyTableIsRefused() throws Exception {
    table.create(SCHEMA, List.of(), Map.of("delta.appendOnly", "true"));
    assertThatThrownBy(() -> table.newOverwrite(new TransactionId("p", 0)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("it is append-only (delta.appendOnly=true)");
  }

  @Test
  void corruptLogLineIsReportedWithFileAndLine() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    store.put(
        LogFiles.commit(1),
        "{\"txn\":{\"appId\":\"a\",\"version\":1}}\n{\"add\":{\"pa"
            .getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> DeltaTable.open(store, TableOptions.defaults()).snapshot())
        .isInstanceOf(TableException.class)
        .hasMessageStartingWith(
            "Cannot read Delta table at "
                + store.location()
                + ": "
                + "_delta_log/00000000000000000001.json line 2 is not a valid action");
  }

  @Test
  void aCommitTheListingMissedWhileAnotherWriterCreatedItIsReadNotReportedMissing()
      throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "p", 0, 0, 1);
    append(table, "p", 1, 1, 2);
    // a directory listing is no snapshot: version 1, created while the listing ran, is not in it
    // although version 2 is (seen on local disk with several instances committing to one table)
    ObjectStore listingMissesOne = new ListingWithout(store, LogFiles.commit(1));

    assertThat(DeltaTable.open(listingMissesOne, TableOptions.defaults()).snapshot().version())
        .isEqualTo(2);
    assertThat(DeltaTable.open(listingMissesOne, TableOptions.defaults()).snapshot().files())
        .hasSize(2);
  }

  /** A store whose listings leave one key out, as a listing that raced with that key's creation. */
  private record ListingWithout(ObjectStore store, String hidden) implements ObjectStore {
    @Override
    public String location() {
      return store.location();
    }

    @Override
    public byte[] read(String key) throws IOException {
      return store.read(key);
    }

    @Override
    public byte[] readRange(String key, long offset, int length) throws IOException {
      return store.readRange(key, offset, length);
    }

    @Override
    public InputStream open(String key) throws IOException {
      return store.open(key);
    }

    @Override
    public Optional<ObjectInfo> stat(String key) throws IOException {
      return store.stat(key);
    }

    @Override
    public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
      return store.list(prefix, startAfter).stream().filter(o -> !o.key().equals(hidden)).toList();
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
      store.put(key, data);
    }

    @Override
    public boolean putIfAbsent(String key, byte[] data) throws IOException {
      return store.putIfAbsent(key, data);
    }

    @Override
    public ObjectWriter create(String key) throws IOException {
      return store.create(key);
    }

    @Override
    public void delete(String key) throws IOException {
      store.delete(key);
    }

    @Override
    public void close() {}
  }

  @Test
  void gapInTheLogIsReported() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "p", 0, 0, 1);
    append(table, "p", 1, 1, 2);
    store.delete(LogFiles.commit(1));

    assertThatThrownBy(() -> DeltaTable.open(store, TableOptions.defaults()).snapshot())
        .isInstanceOf(TableException.class)
        .hasMessageContaining(
            "commit _delta_log/00000000000000000001.json is missing but later"
                + " commits exist (up to version 2)");
  }

  @Test
  void missingTableIsReported() {
    assertThatThrownBy(table::snapshot)
        .isInstanceOf(TableException.class)
        .hasMessage(
            "No Delta table at "
                + store.location()
                + ": there is no"
                + " _delta_log/00000000000000000000.json. Create the table first (DeltaTable.create)"
                + " or check the path.");
  }

  @Test
  void protocolAboveWhatWeReadIsRefused() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    store.put(
        LogFiles.commit(1),
        ActionCodec.encodeCommit(
            List.of(new Protocol(3, 7, Set.of("catalogManaged"), Set.of("catalogManaged")))));

    assertThatThrownBy(() -> DeltaTable.open(store, TableOptions.defaults()).snapshot())
        .isInstanceOf(TableException.class)
        .hasMessageContaining(
            "(version 1): it requires reader version 3 with features [catalogManaged]");
  }

  @Test
  void unknownWriterFeatureIsRefusedForWriting() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    store.put(
        LogFiles.commit(1),
        ActionCodec.encodeCommit(
            List.of(new Protocol(1, 7, Set.of(), Set.of("appendOnly", "icebergCompatV2")))));
    DeltaTable fresh = DeltaTable.open(store, TableOptions.defaults());
    assertThat(fresh.snapshot().version()).isEqualTo(1); // still readable

    assertThatThrownBy(() -> append(fresh, "p", 0, 0, 1))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(
            "Cannot write to Delta table at "
                + store.location()
                + " (version 1): it requires writer version 7 with features [icebergCompatV2]");
  }

  @Test
  void snapshotIsUpdatedIncrementallyFromOtherWriters() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    DeltaTable other = DeltaTable.open(store, TestTables.fastOptions(clock));
    assertThat(table.snapshot().version()).isZero();
    append(other, "b", 0, 0, 5);
    append(other, "b", 1, 5, 10);
    assertThat(table.snapshot().version()).isEqualTo(2);
    assertThat(table.latestTransactionVersion("b")).hasValue(1);
  }

  @Test
  void addFilesRejectsWrongPartitioning() throws Exception {
    table.create(SCHEMA, List.of("region"), Map.of());
    AppendTransaction tx = table.newAppend(new TransactionId("p", 0));
    var file =
        new DataFile("x.parquet", Map.of(), 1, 1, new FileStats(1, Map.of(), Map.of(), Map.of()));
    assertThatThrownBy(() -> tx.addFiles(List.of(file)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("data file 'x.parquet' has partition values for [] but table")
        .hasMessageContaining("is partitioned by [region]");
  }

  @Test
  void logReplayHoldsEveryAddAndTxn() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "p", 0, 0, 3);
    var state = new DeltaLog(store).load().orElseThrow();
    assertThat(state.files().values()).extracting(AddFile::dataChange).containsOnly(true);
    assertThat(state.transactions()).containsOnlyKeys("p");
    assertThat(state.transactions().get("p")).extracting(SetTransaction::version).isEqualTo(0L);
  }
}
