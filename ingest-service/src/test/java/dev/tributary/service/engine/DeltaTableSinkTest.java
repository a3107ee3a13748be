package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink creates its table only in a folder it owns: empty, or already holding the table; and a
 * batch the table already holds is never committed twice, whether the table held it when the batch
 * began (a replay) or only when it commits (another process committed it meanwhile).
 */
class DeltaTableSinkTest {
  private static final StructType SCHEMA =
      StructType.of(StructField.nullable("id", PrimitiveType.LONG));

  @TempDir Path dir;

  private DeltaTableSink open(ObjectStore store) throws Exception {
    return new DeltaTableSink(
        "orders",
        store,
        DeltaTable.open(store, TableOptions.defaults()),
        SCHEMA,
        List.of(),
        DataWriteOptions.defaults());
  }

  @Test
  void refusesAFolderWithOtherFilesAndNamesThePipelineTheTableAndTheFiles() throws Exception {
    Path folder = dir.resolve("orders");
    Files.createDirectories(folder.resolve("offsets"));
    Files.writeString(folder.resolve("offsets/0"), "v1");
    Files.writeString(folder.resolve("metadata"), "{}");
    try (ObjectStore store = ObjectStores.open(folder.toString(), null)) {
      assertThatThrownBy(() -> open(store))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "Pipeline orders: Cannot create a Delta table at "
                  + store.location()
                  + ": the folder is not"
                  + " empty but holds no Delta table (no _delta_log/00000000000000000000.json); it contains metadata,"
                  + " offsets/0. A table owns every file in its folder (vacuum deletes those the table does not"
                  + " reference), so a table is never created over files someone else wrote. Choose a new or empty"
                  + " location for the table, or move those files away.");
      assertThat(folder.resolve("_delta_log")).doesNotExist();
    }
  }

  @Test
  void reopensItsOwnTableWhateverItHolds() throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("orders").toString(), null)) {
      open(store);
      // Files of a batch that crashed before its commit: the next start must not refuse the table.
      store.put("part-00000-uncommitted.snappy.parquet", new byte[] {1});
      assertThat(open(store).location()).isEqualTo(store.location());
    }
  }

  private static BatchTag tag(long batch) {
    return new BatchTag(
        new TransactionId("orders@c1", batch),
        List.of(new TransactionId("orders:events:0", 100 + batch)));
  }

  private static long commit(DeltaTableSink sink, long batch, long... ids) throws Exception {
    try (TableSink.BatchWriter writer = sink.begin(tag(batch))) {
      for (long id : ids) {
        writer.write(new Object[] {id});
      }
      return writer.commit(Map.of());
    }
  }

  private static List<String> keys(ObjectStore store) throws Exception {
    return store.list("").stream().map(ObjectInfo::key).toList();
  }

  /**
   * The replay after a crash between the sink commit and the checkpoint's commits entry: {@link
   * DeltaTableSink#begin} finds the batch key and the batch produces nothing, not a file, not a row
   * counted as written. (The committer would skip the commit anyway; this is the work saved.)
   */
  @Test
  void aReplayOfACommittedBatchWritesNoFileAndCountsNoRow() throws Exception {
    Path folder = dir.resolve("orders");
    try (ObjectStore store = ObjectStores.open(folder.toString(), null)) {
      DeltaTableSink sink = open(store);
      assertThat(commit(sink, 3, 1, 2)).isEqualTo(1);
      List<String> before = keys(store);
      try (TableSink.BatchWriter replay = sink.begin(tag(3))) {
        assertThat(replay.alreadyCommitted()).isTrue();
        replay.write(new Object[] {1L});
        replay.write(new Object[] {2L});
        assertThat(replay.rows()).isZero();
        assertThat(replay.commit(Map.of())).isEqualTo(-1);
      }
      assertThat(keys(store)).isEqualTo(before);
    }
    assertThat(TableContents.ids(folder)).containsExactly(1L, 2L);
  }

  /**
   * An owner that began batch 3, was paused (a GC, a frozen VM, a lost lease) while the next owner
   * replayed and committed batch 3, and then resumes: its begin saw nothing, and its commit must
   * find the key the other process committed since. That is the committer's check on the state it
   * commits on top of, the one guard that needs no early look.
   */
  @Test
  void aBatchAnotherProcessCommitsAfterThisOnesBeginIsSkippedAtCommit() throws Exception {
    Path folder = dir.resolve("orders");
    try (ObjectStore store = ObjectStores.open(folder.toString(), null);
        ObjectStore otherProcess = ObjectStores.open(folder.toString(), null)) {
      DeltaTableSink paused = open(store);
      try (TableSink.BatchWriter late = paused.begin(tag(3))) {
        assertThat(late.alreadyCommitted()).isFalse();
        late.write(new Object[] {1L});
        late.write(new Object[] {2L});
        assertThat(commit(open(otherProcess), 3, 1, 2)).isEqualTo(1);
        assertThat(late.commit(Map.of())).isEqualTo(-1);
      }
      assertThat(DeltaTable.open(store, TableOptions.defaults()).snapshot().version()).isEqualTo(1);
    }
    assertThat(TableContents.ids(folder)).containsExactly(1L, 2L);
  }
}
