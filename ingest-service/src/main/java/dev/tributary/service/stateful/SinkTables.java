package dev.tributary.service.stateful;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** Creating a sink table on first use, and refusing one that holds another schema. */
final class SinkTables {
  private SinkTables() {}

  static void createOrCheck(String pipelineId, ObjectStore store, DeltaTable table, StructType schema,
      List<String> partitionColumns) throws IOException {
    if (!table.exists()) {
      table.create(schema, partitionColumns, Map.of());
    }
    var snapshot = table.snapshot();
    if (!snapshot.schema().equals(schema) || !snapshot.partitionColumns().equals(partitionColumns)) {
      throw new IllegalStateException("Pipeline " + pipelineId + ": the table at " + store.location()
          + " has columns " + snapshot.schema().fieldNames() + " partitioned by " + snapshot.partitionColumns()
          + " but the pipeline writes " + schema.fieldNames() + " partitioned by " + partitionColumns
          + ". Write to a new table path, or restore the declaration.");
    }
  }
}
