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
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableException;
import dev.tributary.table.log.LogFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting points, and the rows read with partition values and provenance. */
class StartingPointsAndReadingTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;
  Path root;
  ObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root = dir.resolve("table");
    store = ObjectStores.open(root.toString(), null);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  /** Version 0 and five appends of ten rows, version v's commit file dated T0 + v minutes. */
  private DeltaTable fiveAppends(List<String> partitionBy) throws IOException {
    DeltaTable table = SourceTables.create(store, partitionBy, 100);
    for (int b = 0; b < 5; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    for (long v = 0; v <= 5; v++) {
      Files.setLastModifiedTime(
          root.resolve(LogFiles.commit(v)), FileTime.from(T0.plusSeconds(60 * v)));
    }
    return table;
  }

  private List<Long> readFrom(DeltaSourcePlanner planner, StartingPoint start) throws IOException {
    return ids(planner, files(drain(planner, planner.start(start), SourceLimits.defaults())));
  }

  @Test
  void aVersionReadsThatCommitAndLaterOnesWithoutTheSnapshot() throws IOException {
    DeltaSourcePlanner planner =
        DeltaSourcePlanner.open(fiveAppends(List.of()), ChangeOptions.strict());

    assertThat(readFrom(planner, new StartingPoint.AtVersion(3))).isEqualTo(range(20, 50));
    assertThat(readFrom(planner, new StartingPoint.AtVersion(0))).isEqualTo(range(0, 50));
    assertThat(readFrom(planner, new StartingPoint.Latest())).isEmpty();
    assertThat(sorted(readFrom(planner, new StartingPoint.Earliest()))).isEqualTo(range(0, 50));
    assertThatThrownBy(() -> planner.start(new StartingPoint.AtVersion(6)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("latest version is 5");
  }

  @Test
  void aVersionNoLongerInTheLogIsRefused() throws IOException {
    DeltaTable table = SourceTables.create(store, List.of(), 2);
    for (int b = 0; b < 4; b++) {
      append(table, b, b * 10L, b * 10L + 10);
    }
    store.delete(LogFiles.commit(0));
    store.delete(LogFiles.commit(1));
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());

    assertThatThrownBy(() -> planner.start(new StartingPoint.AtVersion(1)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("Commit 1")
        .hasMessageContaining("earliest commit left is 2");
    assertThat(readFrom(planner, new StartingPoint.AtVersion(2))).isEqualTo(range(10, 40));
  }

  @Test
  void aTimestampStartsAtTheFirstCommitAtOrAfterIt() throws IOException {
    DeltaSourcePlanner planner =
        DeltaSourcePlanner.open(fiveAppends(List.of()), ChangeOptions.strict());

    assertThat(readFrom(planner, new StartingPoint.AtTimestamp(T0.plusSeconds(120))))
        .as("exactly at commit 2")
        .isEqualTo(range(10, 50));
    assertThat(readFrom(planner, new StartingPoint.AtTimestamp(T0.plusSeconds(121))))
        .as("just after commit 2")
        .isEqualTo(range(20, 50));
    assertThat(readFrom(planner, new StartingPoint.AtTimestamp(T0.minusSeconds(3600))))
        .as("before the first commit")
        .isEqualTo(range(0, 50));
    assertThatThrownBy(() -> planner.start(new StartingPoint.AtTimestamp(T0.plusSeconds(301))))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("after the latest commit (version 5");
  }

  @Test
  void commitTimestampsAreMadeIncreasingAsDeltaDoes() throws IOException {
    DeltaSourcePlanner planner =
        DeltaSourcePlanner.open(fiveAppends(List.of()), ChangeOptions.strict());
    // Commit 3 dated before commit 2 counts as 1 ms after commit 2.
    Files.setLastModifiedTime(root.resolve(LogFiles.commit(3)), FileTime.from(T0));

    assertThat(readFrom(planner, new StartingPoint.AtTimestamp(T0.plusSeconds(120).plusMillis(1))))
        .isEqualTo(range(20, 50));
  }

  @Test
  void rowsCarryPartitionValuesAndTheirProvenance() throws IOException {
    DeltaTable table = fiveAppends(List.of("region"));
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourcePosition start = planner.start(new StartingPoint.AtVersion(4));

    List<SourceFile> files = files(drain(planner, start, SourceLimits.defaults()));
    List<SourceRow> rows = SourceTables.rows(planner, files);

    assertThat(rows)
        .hasSize(20)
        .allSatisfy(
            r -> {
              long id = (Long) r.values()[0];
              assertThat(r.values()).containsExactly(id, "name-" + id, SourceTables.region(id));
            });
    SourceRow first = rows.get(0);
    assertThat(first.rowIndex()).isZero();
    assertThat(first.provenance())
        .isEqualTo("row 0 of file '" + files.get(0).path() + "' (version 4, file 0)");
    assertThat(files.get(0).path()).startsWith("region=");
    assertThat(rows.get(1).rowIndex()).isEqualTo(1);
  }

  @Test
  void snapshotFilesAreReadInModificationTimeThenPathOrderWithPartitionValues() throws IOException {
    DeltaTable table = fiveAppends(List.of("region"));
    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());

    List<SourceFile> files =
        planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.defaults()).files();

    assertThat(files).hasSize(15).allMatch(SourceFile::initialSnapshot);
    assertThat(files)
        .extracting(SourceFile::index)
        .containsExactlyElementsOf(LongStream.range(0, 15).boxed().toList());
    for (int i = 1; i < files.size(); i++) {
      var a = files.get(i - 1).add();
      var b = files.get(i).add();
      assertThat(
              a.modificationTime() < b.modificationTime()
                  || (a.modificationTime() == b.modificationTime()
                      && a.path().compareTo(b.path()) < 0))
          .isTrue();
    }
    assertThat(SourceTables.rows(planner, files))
        .hasSize(50)
        .allSatisfy(
            r -> assertThat(r.values()[2]).isEqualTo(SourceTables.region((Long) r.values()[0])));
  }
}
