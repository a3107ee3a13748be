package dev.tributary.table.stream;

import static dev.tributary.table.stream.SourceTables.append;
import static dev.tributary.table.stream.SourceTables.drain;
import static dev.tributary.table.stream.SourceTables.files;
import static dev.tributary.table.stream.SourceTables.ids;
import static dev.tributary.table.stream.SourceTables.range;
import static dev.tributary.table.stream.SourceTables.sorted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableException;
import dev.tributary.table.log.LogFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The planner over tables our writer made, on local disk. */
class DeltaSourcePlannerTest {
  @TempDir Path dir;
  ObjectStore store;

  @BeforeEach
  void open() throws IOException {
    store = ObjectStores.open(dir.resolve("table").toString(), null);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  @Test
  void earliestReadsTheSnapshotThenEveryLaterCommitExactlyOnceAcrossCheckpointsAndLogCleanup()
      throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 5);
    for (int b = 0; b < 12; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    assertThat(store.stat(LogFiles.checkpoint(10))).isPresent();
    for (long v = 0; v < 10; v++) {
      store.delete(LogFiles.commit(v)); // log cleanup: the checkpoint at 10 is the start now
    }
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.Earliest());
    assertThat(start).isEqualTo(SourcePosition.snapshotStart(planner.tableId(), 12));

    SourceLimits twoFiles = SourceLimits.of(2L, null);
    SourceRange first = planner.plan(start, twoFiles);
    assertThat(first.files()).hasSize(2).allMatch(SourceFile::initialSnapshot);
    for (int b = 12; b < 15; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    List<SourceRange> rest = drain(planner, first.to(), twoFiles);
    List<SourceRange> all = new ArrayList<>(List.of(first));
    all.addAll(rest);

    assertThat(all).allSatisfy(r -> assertThat(r.files()).hasSizeLessThanOrEqualTo(2));
    List<Long> read = ids(planner, files(all));
    assertThat(read).doesNotHaveDuplicates();
    assertThat(sorted(read)).isEqualTo(range(0, 150));
    assertThat(all.get(all.size() - 1).to())
        .isEqualTo(SourcePosition.commitStart(planner.tableId(), 16));
    assertThat(files(all).stream().filter(f -> !f.initialSnapshot()).map(SourceFile::version))
        .containsExactly(13L, 14L, 15L);
  }

  @Test
  void compactionCommitsAreSkippedSoTheRowsReadAreTheTablesRowsOnce() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of("region"), 100);
    for (int b = 0; b < 4; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourceRange snapshot =
        planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.defaults());
    for (int b = 4; b < 8; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    long compaction = table.compact(new CompactionOptions(2, 1 << 20)).tableVersion();
    append(table, 8, 80, 90);
    table.compact(new CompactionOptions(2, 1 << 20));

    List<SourceRange> ranges = drain(planner, snapshot.to(), SourceLimits.of(3L, null));
    List<SourceFile> all = new ArrayList<>(snapshot.files());
    all.addAll(files(ranges));

    assertThat(all).noneMatch(f -> f.version() == compaction);
    List<Long> read = ids(planner, all);
    assertThat(read).doesNotHaveDuplicates();
    assertThat(sorted(read)).isEqualTo(SourceTables.tableIds(table)).isEqualTo(range(0, 90));
  }

  @Test
  void aRangeOverOnlyCompactionsHasNoFilesButMovesPastThem() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 100);
    append(table, 0, 0, 5);
    append(table, 1, 5, 10);
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition caughtUp = planner.start(new StartingPoint.Latest());
    long compaction = table.compact(new CompactionOptions(2, 1 << 20)).tableVersion();

    SourceRange range = planner.plan(caughtUp, SourceLimits.defaults());

    assertThat(range.files()).isEmpty();
    assertThat(range.isEmpty()).isFalse();
    assertThat(range.to()).isEqualTo(SourcePosition.commitStart(planner.tableId(), compaction + 1));
    assertThat(planner.plan(range.to(), SourceLimits.defaults()).isEmpty()).isTrue();
  }

  @Test
  void maxFilesIsExactAndALargeCommitSpansSeveralRanges() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of("region"), 100);
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.Latest());
    long big = append(table, 0, 0, 30); // three files: EU, US, null
    append(table, 1, 30, 33);

    List<SourceRange> ranges = drain(planner, start, SourceLimits.of(2L, null));

    assertThat(ranges).extracting(r -> r.files().size()).containsExactly(2, 2, 2);
    assertThat(ranges.get(0).to()).isEqualTo(new SourcePosition(planner.tableId(), big, 2, false));
    assertThat(sorted(ids(planner, files(ranges)))).isEqualTo(range(0, 33));
  }

  @Test
  void maxBytesIsSoftButAlwaysAdmitsOneFile() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 100);
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.Latest());
    for (int b = 0; b < 5; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    long fileSize =
        planner.plan(start, SourceLimits.defaults()).files().stream()
            .mapToLong(SourceFile::size)
            .max()
            .orElseThrow();

    assertThat(drain(planner, start, SourceLimits.of(null, 1L)))
        .as("a byte limit below one file still reads one file per range")
        .extracting(r -> r.files().size())
        .containsExactly(1, 1, 1, 1, 1);
    List<SourceRange> soft = drain(planner, start, SourceLimits.of(null, fileSize + 1));
    assertThat(soft)
        .extracting(r -> r.files().size())
        .as("the file that crosses the limit is the last one")
        .containsExactly(2, 2, 1);
    assertThat(drain(planner, start, SourceLimits.of(1000L, Long.MAX_VALUE)))
        .extracting(r -> r.files().size())
        .containsExactly(5);
  }

  @Test
  void availableNowStopsAtTheVersionGiven() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 100);
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.Latest());
    long bound = append(table, 0, 0, 10);
    append(table, 1, 10, 20);

    SourceRange range = planner.plan(start, SourceLimits.unlimited(), bound);

    assertThat(range.files()).extracting(SourceFile::version).containsExactly(bound);
    assertThat(range.to()).isEqualTo(SourcePosition.commitStart(planner.tableId(), bound + 1));
    assertThat(planner.plan(range.to(), SourceLimits.unlimited(), bound).isEmpty()).isTrue();
  }

  @Test
  void replayGivesTheSameFilesAsThePlanEvenAfterLaterCommitsAndFromANewPlanner()
      throws IOException {
    DeltaTable table = SourceTables.create(store, List.of("region"), 3);
    for (int b = 0; b < 4; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.Earliest());
    for (int b = 4; b < 7; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    List<SourceRange> ranges = drain(planner, start, SourceLimits.of(4L, null));
    assertThat(ranges).hasSizeGreaterThan(3);
    for (int b = 7; b < 9; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    table.compact(new CompactionOptions(2, 1 << 20));

    DeltaSourcePlanner restarted =
        DeltaSourcePlanner.open(DeltaTable.open(store, table.options()), ChangeOptions.strict());
    for (SourceRange r : ranges) {
      SourceRange again =
          restarted.replay(
              SourcePosition.fromJson(r.from().toJson()), SourcePosition.fromJson(r.to().toJson()));
      assertThat(again).isEqualTo(r);
    }
  }

  @Test
  void replayOfARangeTheHistoryNoLongerHoldsFailsClearly() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 100);
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.Latest());
    long v = append(table, 0, 0, 10);
    SourcePosition to = planner.plan(start, SourceLimits.defaults()).to();

    assertThatThrownBy(
            () -> planner.replay(start, new SourcePosition(planner.tableId(), v, 5, false)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("cannot be read again");
    store.delete(LogFiles.commit(v));
    assertThatThrownBy(
            () ->
                DeltaSourcePlanner.open(
                        DeltaTable.open(store, table.options()), ChangeOptions.strict())
                    .replay(start, to))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("Commit " + v)
        .hasMessageContaining("no longer in the log");
  }

  @Test
  void aPositionOfAnotherTableIsRefused() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 100);
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());

    assertThatThrownBy(
            () -> planner.plan(SourcePosition.commitStart("other-id", 1), SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("other-id")
        .hasMessageContaining(planner.tableId())
        .hasMessageContaining("new checkpoint");
  }

  @Test
  void lagCountsVersionsFilesAndBytesBehindTheLatestVersion() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 100);
    append(table, 0, 0, 10);
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.Earliest());
    append(table, 1, 10, 20);
    append(table, 2, 20, 30);
    List<SourceFile> everything = planner.plan(start, SourceLimits.unlimited()).files();
    long bytes = everything.stream().mapToLong(SourceFile::size).sum();

    assertThat(planner.lag(start)).isEqualTo(new SourceLag(3, 3, 3, bytes));
    SourceRange one = planner.plan(start, SourceLimits.of(1L, null));
    assertThat(planner.lag(one.to()))
        .isEqualTo(new SourceLag(3, 2, 2, bytes - everything.get(0).size()));
    SourcePosition end = drain(planner, start, SourceLimits.defaults()).get(0).to();
    assertThat(planner.lag(end)).isEqualTo(new SourceLag(3, 0, 0, 0));
  }

  @Test
  void aStreamWhoseVersionsLogCleanupRemovedFailsSayingSo() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 5);
    for (int b = 0; b < 3; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition inSnapshot =
        planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.of(1L, null)).to();
    SourcePosition inCommits = SourcePosition.commitStart(planner.tableId(), 4);
    for (int b = 3; b < 10; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    for (long v = 0; v < 10; v++) {
      store.delete(LogFiles.commit(v)); // the checkpoints at 5 and 10 remain
    }
    store.delete(LogFiles.checkpoint(5));

    DeltaSourcePlanner restarted =
        DeltaSourcePlanner.open(DeltaTable.open(store, table.options()), ChangeOptions.strict());
    assertThat(inSnapshot.initialSnapshot()).isTrue();
    assertThatThrownBy(() -> restarted.plan(inSnapshot, SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("Cannot read version 3")
        .hasMessageContaining("log cleanup");
    assertThatThrownBy(() -> restarted.plan(inCommits, SourceLimits.defaults()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("Commit 4")
        .hasMessageContaining("no longer in the log")
        .hasMessageContaining("earliest commit left is 10");
    assertThat(
            restarted
                .plan(restarted.start(new StartingPoint.Earliest()), SourceLimits.unlimited())
                .files())
        .as("a new stream from earliest still reads the snapshot")
        .hasSize(10);
  }
}
