package dev.tributary.table.types;

import java.util.Objects;

/** One named column (or nested field) of a {@link StructType}. */
public record StructField(String name, DataType type, boolean nullable) {
  public StructField {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("field name must not be empty");
    }
  }

  /** A nullable field: what every column parsed from JSON is. */
  public static StructField nullable(String name, DataType type) {
    return new StructField(name, type, true);
  }
}
