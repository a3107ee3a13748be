package dev.tributary.config;

import java.util.Locale;

/**
 * Where a registry format's columns come from: {@code schema} (declared) or {@code columns: all}
 * (every field of each record's writer schema, docs/PIPELINE_REFERENCE.md "Every field of the
 * writer schema").
 */
public enum ColumnSelection {
  /** The columns declared under {@code schema} (and {@code key}): one schema for every record. */
  DECLARED,
  /**
   * {@code columns: all}: every top-level field of the record's writer schema (with {@code
   * envelope: debezium}, of its {@code after}/{@code before} record), per writer schema; only with
   * a routed Delta sink, whose tables each take the columns of their records.
   */
  ALL;

  /** The name as written in files ({@code all}); {@code DECLARED} has none. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }
}
