package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A sink creates its table only in a folder it owns: empty, or already holding the table. */
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
}
