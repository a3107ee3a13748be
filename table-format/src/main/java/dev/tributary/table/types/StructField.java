package dev.tributary.table.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One named column (or nested field) of a {@link StructType}.
 *
 * <p>{@code typeChanges} is the column's type-widening history (Delta's {@code delta.typeChanges}
 * field metadata), oldest first. It is history, not part of the column's type: {@link #equals} and
 * {@link #hashCode} ignore it, so a widened table column {@code amount long} equals the declared
 * column {@code amount long}.
 */
public record StructField(
    String name, DataType type, boolean nullable, List<TypeChange> typeChanges) {
  public StructField {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    typeChanges = List.copyOf(typeChanges == null ? List.of() : typeChanges);
    if (name.isEmpty()) {
      throw new IllegalArgumentException("field name must not be empty");
    }
  }

  /** A field without type changes. */
  public StructField(String name, DataType type, boolean nullable) {
    this(name, type, nullable, List.of());
  }

  /** A nullable field: what every column parsed from JSON is. */
  public static StructField nullable(String name, DataType type) {
    return new StructField(name, type, true);
  }

  /** This field widened to {@code wider}, the change appended to its history. */
  public StructField widenedTo(DataType wider) {
    List<TypeChange> changes = new ArrayList<>(typeChanges);
    changes.add(new TypeChange(type, wider));
    return new StructField(name, wider, nullable, changes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StructField f
        && name.equals(f.name)
        && type.equals(f.type)
        && nullable == f.nullable;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, type, nullable);
  }
}
