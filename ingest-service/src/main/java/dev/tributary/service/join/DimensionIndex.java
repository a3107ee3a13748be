package dev.tributary.service.join;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One version of a dimension table in memory: its rows, reduced to the columns a join adds, in a
 * hash index on the join keys. Several rows may share a key (each is a match); a row whose key
 * holds a null is left out, since a null key never matches (SQL and Spark equi-joins). Immutable
 * once built.
 */
public final class DimensionIndex {
  private final long version;
  private final Map<Object, List<Object[]>> byKey;
  private final long rows;

  private DimensionIndex(long version, Map<Object, List<Object[]>> byKey, long rows) {
    this.version = version;
    this.byKey = byKey;
    this.rows = rows;
  }

  /**
   * Indexes dimension rows.
   *
   * @param version the table version the rows are of
   * @param rows full dimension rows
   * @param keyColumns the positions of the join keys in a dimension row, in {@code on} order
   * @param valueColumns the positions of the columns the join adds, in output order
   */
  public static DimensionIndex build(
      long version, Iterator<Object[]> rows, int[] keyColumns, int[] valueColumns) {
    Map<Object, List<Object[]>> byKey = new HashMap<>();
    long count = 0;
    while (rows.hasNext()) {
      Object[] row = rows.next();
      Object key = key(row, keyColumns);
      if (key == null) {
        continue;
      }
      Object[] values = new Object[valueColumns.length];
      for (int i = 0; i < valueColumns.length; i++) {
        values[i] = row[valueColumns[i]];
      }
      byKey.computeIfAbsent(key, k -> new ArrayList<>(1)).add(values);
      count++;
    }
    return new DimensionIndex(version, byKey, count);
  }

  /** The table version this index holds. */
  public long version() {
    return version;
  }

  /** The number of rows indexed (rows with a null key are not). */
  public long rows() {
    return rows;
  }

  /**
   * The added columns of every dimension row whose keys equal the stream row's keys, in table
   * order; empty when none does or a key of the stream row is null. The arrays are shared: do not
   * modify.
   *
   * @param keyColumns the positions of the join keys in {@code streamRow}, in {@code on} order
   */
  public List<Object[]> matches(Object[] streamRow, int[] keyColumns) {
    Object key = key(streamRow, keyColumns);
    return key == null ? List.of() : byKey.getOrDefault(key, List.of());
  }

  /**
   * The key of a row: the value itself for one key column, a list of them for several; null if any
   * is null.
   */
  private static Object key(Object[] row, int[] keyColumns) {
    if (keyColumns.length == 1) {
      return normalize(row[keyColumns[0]]);
    }
    Object[] parts = new Object[keyColumns.length];
    for (int i = 0; i < keyColumns.length; i++) {
      parts[i] = normalize(row[keyColumns[i]]);
      if (parts[i] == null) {
        return null;
      }
    }
    return Arrays.asList(parts);
  }

  /** Equal numbers compare equal: BigDecimal's equals also compares the scale (1.0 vs 1.00). */
  private static Object normalize(Object value) {
    return value instanceof BigDecimal d ? d.stripTrailingZeros() : value;
  }
}
