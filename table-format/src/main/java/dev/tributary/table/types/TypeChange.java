package dev.tributary.table.types;

import java.util.Objects;

/**
 * One entry of a column's {@code delta.typeChanges} field metadata (Delta PROTOCOL.md, "Type
 * Widening"): the column's type was changed from {@code fromType} to {@code toType}, so data files
 * written before the change store the narrower type and readers convert it on read.
 */
public record TypeChange(DataType fromType, DataType toType) {
  public TypeChange {
    Objects.requireNonNull(fromType, "fromType");
    Objects.requireNonNull(toType, "toType");
  }
}
