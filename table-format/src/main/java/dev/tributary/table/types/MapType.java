package dev.tributary.table.types;

import java.util.Objects;

/**
 * A map column; values are unmodifiable, insertion-ordered {@link java.util.Map}s from {@code
 * keyType} values (never null) to {@code valueType} values (null only when {@code
 * valueContainsNull}).
 */
public record MapType(DataType keyType, DataType valueType, boolean valueContainsNull)
    implements DataType {
  public MapType {
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(valueType, "valueType");
  }

  @Override
  public String deltaName() {
    return "map";
  }
}
