package dev.tributary.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the registry-backed formats ({@link AvroFormatSpec}, {@link ProtobufFormatSpec}) check and
 * derive alike: a registry, at least one value column, a max-record-size; the value's columns then
 * the key's.
 */
final class RegistryFormats {
  private RegistryFormats() {}

  /**
   * Checks the parts every registry-backed format has.
   *
   * @param noColumns the message when there is no value column
   */
  static void check(
      RegistrySpec registry,
      List<ColumnSpec> valueColumns,
      List<ColumnSpec> keyColumns,
      ColumnSelection selection,
      Size maxRecordSize,
      String noColumns) {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(maxRecordSize, "maxRecordSize");
    if (selection == ColumnSelection.ALL && !(valueColumns.isEmpty() && keyColumns.isEmpty())) {
      throw new IllegalArgumentException(
          "columns: all takes every field of the writer schema; it declares no columns");
    }
    if (selection == ColumnSelection.DECLARED && valueColumns.isEmpty()) {
      throw new IllegalArgumentException(noColumns);
    }
  }

  /** The value's columns, then the key's. */
  static List<ColumnSpec> valueThenKey(List<ColumnSpec> valueColumns, List<ColumnSpec> keyColumns) {
    List<ColumnSpec> all = new ArrayList<>(valueColumns);
    all.addAll(keyColumns);
    return List.copyOf(all);
  }
}
