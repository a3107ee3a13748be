package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Appends to tables with writer features that ask something of every commit: row tracking (fresh
 * row ids after the high-water mark, the commit's version, the mark moved, a lost race assigned
 * again) and in-commit timestamps (commitInfo first, its timestamp after the previous one's).
 */
class RowTrackingTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  private void upgrade(Set<String> writerFeatures, Map<String, String> properties)
      throws IOException {
    Snapshot s = table.snapshot();
    Metadata m = s.state().metadata();
    Map<String, String> configuration = new LinkedHashMap<>(m.configuration());
    configuration.putAll(properties);
    List<Action> actions = new ArrayList<>();
    actions.add(new CommitInfo(Map.of("timestamp", clock.millis(), "operation", "UPGRADE")));
    actions.add(new Protocol(1, 7, Set.of(), writerFeatures));
    actions.add(
        new Metadata(
            m.id(),
            null,
            null,
            m.format(),
            m.schemaString(),
            m.partitionColumns(),
            configuration,
            m.createdTime()));
    assertThat(new DeltaLog(store).tryCommit(s.version() + 1, actions)).isTrue();
  }

  @Test
  void appendedFilesGetFreshRowIdsAndTheCommitMovesTheHighWaterMark() throws IOException {
    table.create(SCHEMA, List.of("region"), Map.of());
    upgrade(
        Set.of("rowTracking", "domainMetadata", "appendOnly", "invariants"),
        Map.of(
            "delta.enableRowTracking",
            "true",
            "delta.rowTracking.materializedRowIdColumnName",
            "_row-id-col-1",
            "delta.rowTracking.materializedRowCommitVersionColumnName",
            "_row-commit-version-col-1"));
    TestTables.append(table, "p", 0, 0, 10); // version 2
    // two appends read the same snapshot: the second loses the race and is assigned again
    AppendTransaction first = table.newAppend(new TransactionId("a", 0));
    AppendTransaction second = table.newAppend(new TransactionId("b", 0));
    for (long id = 10; id < 15; id++) {
      first.write(TestTables.row(id, "EU"));
      second.write(TestTables.row(id + 5, "US"));
    }
    assertThat(first.commit(Map.of()).tableVersion()).isEqualTo(3);
    assertThat(second.commit(Map.of()).tableVersion()).isEqualTo(4);

    Snapshot snapshot = table.snapshot();
    List<AddFile> files = new ArrayList<>(snapshot.state().files().values());
    files.sort(Comparator.comparingLong(AddFile::baseRowId));
    long expectedBase = 0;
    for (AddFile f : files) {
      assertThat(f.baseRowId()).as(f.path()).isEqualTo(expectedBase);
      assertThat(f.defaultRowCommitVersion()).isBetween(2L, 4L);
      expectedBase += TestTables.rows(store, snapshot).isEmpty() ? 0 : records(snapshot, f);
    }
    assertThat(expectedBase).isEqualTo(20);
    assertThat(RowTracking.highWaterMark(snapshot.state())).isEqualTo(19);
    assertThat(new KernelReader(store).rows()).hasSize(20);

    DeltaTable fresh =
        DeltaTable.open(store, TestTables.fastOptions(clock).withLogCheckpointInterval(1));
    TestTables.append(fresh, "p", 1, 20, 21); // version 5, and a checkpoint of it
    DeltaTable afterCheckpoint = DeltaTable.open(store, TableOptions.defaults());
    assertThat(RowTracking.highWaterMark(afterCheckpoint.snapshot().state())).isEqualTo(20);
    assertThat(afterCheckpoint.snapshot().state().files().values())
        .allSatisfy(f -> assertThat(f.baseRowId()).isNotNull());
  }

  @Test
  void compactionAndMergeRefuseATableThatTracksRowIds() throws IOException {
    table.create(SCHEMA, List.of(), Map.of());
    upgrade(Set.of("rowTracking", "domainMetadata"), Map.of());
    TestTables.append(table, "p", 0, 0, 3);
    TestTables.append(table, "p", 1, 3, 6);
    assertThatThrownBy(() -> table.compact(new CompactionOptions(2, 1 << 20)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("rowTracking")
        .hasMessageContaining("OPTIMIZE");
    assertThatThrownBy(() -> table.newMerge(new TransactionId("m", 0), List.of("id")))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("rowTracking");
  }

  @Test
  void inCommitTimestampsComeFirstAndOnlyGoForward() throws IOException {
    table.create(SCHEMA, List.of(), Map.of());
    upgrade(Set.of("inCommitTimestamp"), Map.of("delta.enableInCommitTimestamps", "true"));
    TestTables.append(table, "p", 0, 0, 1);
    long firstIct = ict(table.snapshot().version());
    clock.advance(Duration.ofHours(-1)); // a clock that went back
    TestTables.append(table, "p", 1, 1, 2);
    long secondIct = ict(table.snapshot().version());
    assertThat(firstIct).isEqualTo(Instant.parse("2025-01-01T00:00:00Z").toEpochMilli());
    assertThat(secondIct).isEqualTo(firstIct + 1);
  }

  private long ict(long version) throws IOException {
    List<Action> commit = new DeltaLog(store).readCommit(version);
    assertThat(commit.get(0)).isInstanceOf(CommitInfo.class);
    return ((Number) ((CommitInfo) commit.get(0)).values().get("inCommitTimestamp")).longValue();
  }

  private long records(Snapshot snapshot, AddFile f) {
    return snapshot.files().stream()
        .filter(d -> d.path().equals(f.path()))
        .findFirst()
        .orElseThrow()
        .stats()
        .numRecords();
  }
}
