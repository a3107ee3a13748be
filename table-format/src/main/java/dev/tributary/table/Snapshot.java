package dev.tributary.table;

import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.FileStats;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.RemoveFile;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.log.StatsJson;
import dev.tributary.table.log.TableState;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * An immutable view of a table at one version: its schema, partitioning, properties, live data
 * files and the latest transaction version per application. Obtain it from {@link
 * DeltaTable#snapshot()}; it never changes, later commits give later snapshots.
 */
public final class Snapshot {
  private final String location;
  private final TableState state;
  private final StructType schema;
  private final StructType dataSchema;
  private final ColumnMappingMode columnMapping;
  private final StructType physicalDataSchema;

  Snapshot(String location, TableState state) {
    this.location = location;
    this.state = state;
    try {
      this.schema = SchemaJson.parse(state.metadata().schemaString());
    } catch (IllegalArgumentException e) {
      throw TableErrors.unsupported(
          location,
          "the schema at version " + state.version() + " (" + e.getMessage() + ")",
          "Tributary reads only tables whose columns it can represent.");
    }
    List<StructField> dataFields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (!state.metadata().partitionColumns().contains(f.name())) {
        dataFields.add(f);
      }
    }
    this.dataSchema = new StructType(dataFields);
    try {
      this.columnMapping = ProtocolSupport.columnMapping(state.protocol(), state.metadata());
    } catch (IllegalArgumentException e) {
      throw TableErrors.unsupported(
          location, "the table at version " + state.version() + " (" + e.getMessage() + ")", "");
    }
    this.physicalDataSchema = columnMapping.physicalSchema(dataSchema);
  }

  /**
   * How the columns are found in the data files ({@code delta.columnMapping.mode}); pass it to
   * {@link dev.tributary.table.data.DataFiles#read(dev.tributary.storage.ObjectStore, DataFile,
   * StructType, ColumnMappingMode)} with {@link #schema()}.
   */
  public ColumnMappingMode columnMapping() {
    return columnMapping;
  }

  /** The table version this snapshot reflects. */
  public long version() {
    return state.version();
  }

  /** The full table schema, partition columns included. */
  public StructType schema() {
    return schema;
  }

  /** The columns stored in data files: the schema without the partition columns. */
  public StructType dataSchema() {
    return dataSchema;
  }

  /**
   * The partition columns as data files, partition values and statistics name them: their physical
   * names under column mapping, else the same as {@link #partitionColumns()}.
   */
  public List<String> physicalPartitionColumns() {
    List<String> out = new ArrayList<>();
    for (String c : partitionColumns()) {
      out.add(schema.field(c).map(columnMapping::physicalName).orElse(c));
    }
    return out;
  }

  /** Partition columns, outermost first; empty for an unpartitioned table. */
  public List<String> partitionColumns() {
    return state.metadata().partitionColumns();
  }

  /** Table properties ({@code metaData.configuration}). */
  public Map<String, String> properties() {
    return state.metadata().configuration();
  }

  /** The table's unique id. */
  public String tableId() {
    return state.metadata().id();
  }

  /** The latest version committed by {@code appId}, or empty if it never committed. */
  public OptionalLong latestTransactionVersion(String appId) {
    return state.transactionVersion(appId);
  }

  /** The live data files. Statistics are parsed from the log; numRecords is -1 if absent. */
  public List<DataFile> files() {
    List<DataFile> out = new ArrayList<>(state.files().size());
    for (AddFile a : state.files().values()) {
      out.add(toDataFile(a));
    }
    return out;
  }

  /** Number of live data files. */
  public int fileCount() {
    return state.files().size();
  }

  /** Total size of the live data files in bytes. */
  public long totalBytes() {
    long total = 0;
    for (AddFile a : state.files().values()) {
      total += a.size();
    }
    return total;
  }

  /** Files removed from the table and not yet expired from the log (vacuum candidates). */
  public List<RemoveFile> tombstones() {
    return List.copyOf(state.tombstones().values());
  }

  /** The reconciled log state, for low-level use (protocol, metadata and raw actions). */
  public TableState state() {
    return state;
  }

  /** The table location. */
  public String location() {
    return location;
  }

  DataFile toDataFile(AddFile a) {
    FileStats stats =
        a.stats() == null
            ? new FileStats(-1, Map.of(), Map.of(), Map.of())
            : logicalNames(StatsJson.parse(a.stats(), physicalDataSchema));
    return new DataFile(
        a.path(), a.partitionValues(), a.size(), a.modificationTime(), stats, a.deletionVector());
  }

  /** Statistics keyed by column name: the log keys them by physical name under column mapping. */
  private FileStats logicalNames(FileStats physical) {
    if (columnMapping == ColumnMappingMode.NONE) {
      return physical;
    }
    Map<String, Object> min = new LinkedHashMap<>();
    Map<String, Object> max = new LinkedHashMap<>();
    Map<String, Object> nulls = new LinkedHashMap<>();
    for (int i = 0; i < dataSchema.size(); i++) {
      String name = dataSchema.fields().get(i).name();
      String key = physicalDataSchema.fields().get(i).name();
      copy(physical.minValues(), key, min, name);
      copy(physical.maxValues(), key, max, name);
      copy(physical.nullCount(), key, nulls, name);
    }
    return new FileStats(physical.numRecords(), min, max, nulls);
  }

  private static <V> void copy(Map<String, V> from, String key, Map<String, V> to, String name) {
    if (from.containsKey(key)) {
      to.put(name, from.get(key));
    }
  }

  @Override
  public String toString() {
    return "Snapshot[" + location + " v" + version() + ", " + fileCount() + " files]";
  }
}
