package dev.tributary.table.types;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One named column (or nested field) of a {@link StructType}.
 *
 * <p>{@code typeChanges} is the column's type-widening history (Delta's {@code delta.typeChanges}
 * field metadata), oldest first. {@code metadata} is the rest of the column's field metadata as the
 * log holds it (JSON values as Java strings, numbers, booleans, lists and maps), kept so that a
 * schema Tributary commits again loses nothing another writer put there: column mapping ({@code
 * delta.columnMapping.id}, {@code delta.columnMapping.physicalName}), identity columns, generation
 * expressions, invariants, comments. Both are history and annotations, not part of the column's
 * type: {@link #equals} and {@link #hashCode} ignore them, so a widened table column {@code amount
 * long} equals the declared column {@code amount long}, and a column-mapped table column equals the
 * declared column of its (logical) name.
 */
public record StructField(
    String name,
    DataType type,
    boolean nullable,
    List<TypeChange> typeChanges,
    Map<String, Object> metadata) {
  /** Field metadata key of a column's physical name under column mapping. */
  public static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";

  /** Field metadata key of a column's id under column mapping (the Parquet field id). */
  public static final String COLUMN_ID = "delta.columnMapping.id";

  public StructField {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    typeChanges = List.copyOf(typeChanges == null ? List.of() : typeChanges);
    metadata =
        metadata == null || metadata.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    if (name.isEmpty()) {
      throw new IllegalArgumentException("field name must not be empty");
    }
  }

  /** A field without type changes or other metadata. */
  public StructField(String name, DataType type, boolean nullable) {
    this(name, type, nullable, List.of(), Map.of());
  }

  /** A field with type changes and no other metadata. */
  public StructField(String name, DataType type, boolean nullable, List<TypeChange> typeChanges) {
    this(name, type, nullable, typeChanges, Map.of());
  }

  /** A nullable field: what every column parsed from JSON is. */
  public static StructField nullable(String name, DataType type) {
    return new StructField(name, type, true);
  }

  /** This field widened to {@code wider}, the change appended to its history. */
  public StructField widenedTo(DataType wider) {
    List<TypeChange> changes = new ArrayList<>(typeChanges);
    changes.add(new TypeChange(type, wider));
    return new StructField(name, wider, nullable, changes, metadata);
  }

  /** This field with another type (its metadata kept), e.g. a struct with renamed children. */
  public StructField withType(DataType newType) {
    return new StructField(name, newType, nullable, typeChanges, metadata);
  }

  /** This field under another name (its metadata kept). */
  public StructField withName(String newName) {
    return new StructField(newName, type, nullable, typeChanges, metadata);
  }

  /** This field with one more metadata entry (replacing one of the same key). */
  public StructField withMetadata(String key, Object value) {
    Map<String, Object> more = new LinkedHashMap<>(metadata);
    more.put(key, value);
    return new StructField(name, type, nullable, typeChanges, more);
  }

  /**
   * The name of the column in data files, partition values and statistics: the column mapping
   * physical name when the field has one, else its name.
   */
  public String physicalName() {
    return metadata.get(PHYSICAL_NAME) instanceof String physical ? physical : name;
  }

  /** The column mapping id (the Parquet field id of the column), or null. */
  public Integer columnId() {
    return metadata.get(COLUMN_ID) instanceof Number id ? id.intValue() : null;
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
