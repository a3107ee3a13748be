package dev.tributary.table.data;

import java.util.Map;

/**
 * Per-file column statistics for data skipping, keyed by top-level column name (nested struct
 * fields as nested maps, like Delta's stats JSON). Values are typed as in {@link
 * dev.tributary.table.types.DataType}; a column whose min/max are unknown (all null, or a binary
 * column) is absent from {@code minValues}/{@code maxValues}. Partition columns are never included
 * (they are not stored in the file).
 */
public record FileStats(
    long numRecords,
    Map<String, Object> minValues,
    Map<String, Object> maxValues,
    Map<String, Object> nullCount) {
  public FileStats {
    minValues = Map.copyOf(minValues);
    maxValues = Map.copyOf(maxValues);
    nullCount = Map.copyOf(nullCount);
  }
}
