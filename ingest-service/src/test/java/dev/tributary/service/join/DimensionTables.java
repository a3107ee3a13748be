package dev.tributary.service.join;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TableTransaction;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A customers dimension table on local disk, written with our Delta writer, for the join tests:
 * {@code customer_id string, segment string, region string, tier long}.
 */
public final class DimensionTables {
  public static final StructType CUSTOMERS =
      StructType.of(
          StructField.nullable("customer_id", PrimitiveType.STRING),
          StructField.nullable("segment", PrimitiveType.STRING),
          StructField.nullable("region", PrimitiveType.STRING),
          StructField.nullable("tier", PrimitiveType.LONG));

  private final Path path;
  private long writes;

  private DimensionTables(Path path) {
    this.path = path;
  }

  /**
   * Creates the table at {@code path} with {@code rows} (version 1; version 0 is the empty table).
   */
  public static DimensionTables create(Path path, List<Object[]> rows) throws IOException {
    DimensionTables tables = new DimensionTables(path);
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable.open(store, TableOptions.defaults()).create(CUSTOMERS, List.of(), Map.of());
    }
    tables.append(rows);
    return tables;
  }

  public Path path() {
    return path;
  }

  /** Appends rows in one commit; returns the new version. */
  public long append(List<Object[]> rows) throws IOException {
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      return commit(table.newAppend(new TransactionId("dimension-writer", writes++)), rows);
    }
  }

  /** Replaces every row in one commit; returns the new version. */
  public long replace(List<Object[]> rows) throws IOException {
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      return commit(table.newOverwrite(new TransactionId("dimension-writer", writes++)), rows);
    }
  }

  private static long commit(TableTransaction tx, List<Object[]> rows) throws IOException {
    try (tx) {
      for (Object[] row : rows) {
        tx.write(row);
      }
      return tx.commit(Map.of()).tableVersion();
    }
  }

  public static Object[] customer(String id, String segment, String region, long tier) {
    return new Object[] {id, segment, region, tier};
  }
}
