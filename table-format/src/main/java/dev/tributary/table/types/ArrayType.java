package dev.tributary.table.types;

import java.util.Objects;

/**
 * An array column; values are unmodifiable {@link java.util.List}s of {@code elementType} values,
 * which may hold nulls when {@code containsNull}.
 */
public record ArrayType(DataType elementType, boolean containsNull) implements DataType {
  public ArrayType {
    Objects.requireNonNull(elementType, "elementType");
  }

  @Override
  public String deltaName() {
    return "array";
  }
}
