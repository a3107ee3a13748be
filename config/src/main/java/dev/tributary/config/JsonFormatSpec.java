package dev.tributary.config;

import java.util.List;
import java.util.Objects;

/**
 * The {@code format.json} section: record values are JSON objects decoded with a declared schema.
 *
 * @param columns the declared columns in declaration order, at least one
 * @param maxRecordSize records with a larger value go to quarantine instead of being parsed
 *     (default 1MB)
 */
public record JsonFormatSpec(List<ColumnSpec> columns, Size maxRecordSize) implements FormatSpec {

  /** The default of {@code max-record-size}. */
  public static final Size DEFAULT_MAX_RECORD_SIZE = Size.ofMegabytes(1);

  /** Copies the columns and checks there is at least one. */
  public JsonFormatSpec {
    columns = List.copyOf(columns);
    Objects.requireNonNull(maxRecordSize, "maxRecordSize");
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("a JSON schema needs at least one column");
    }
  }

  @Override
  public String keyword() {
    return "json";
  }
}
