package dev.tributary.table.types;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One entry of a column's {@code delta.typeChanges} field metadata (Delta PROTOCOL.md, "Type
 * Widening"): the column's type was changed from {@code fromType} to {@code toType}, so data files
 * written before the change store the narrower type and readers convert it on read.
 *
 * @param fromType the type before the change
 * @param toType the type after it
 * @param tableVersion the version that made the change, which Delta 3.x's {@code
 *     typeWidening-preview} writes and Delta 4 no longer does: kept as read, so that rewriting the
 *     schema (an added column) leaves the history as the table's other writers left it
 * @param fieldPath where inside the column the change happened when the column is an array or a
 *     map: {@code element}, {@code key} or {@code value}, dot-joined for nesting ({@code
 *     element.value}); empty for the column's own type (a struct's fields carry their own changes)
 */
public record TypeChange(
    DataType fromType, DataType toType, OptionalLong tableVersion, Optional<String> fieldPath) {
  public TypeChange {
    Objects.requireNonNull(fromType, "fromType");
    Objects.requireNonNull(toType, "toType");
    Objects.requireNonNull(tableVersion, "tableVersion");
    Objects.requireNonNull(fieldPath, "fieldPath");
  }

  /** A change of the column's own type, with the preview's table version if it wrote one. */
  public TypeChange(DataType fromType, DataType toType, OptionalLong tableVersion) {
    this(fromType, toType, tableVersion, Optional.empty());
  }

  /** A change as Delta 4 records it, without a table version. */
  public TypeChange(DataType fromType, DataType toType) {
    this(fromType, toType, OptionalLong.empty(), Optional.empty());
  }
}
