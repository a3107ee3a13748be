package dev.tributary.config;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One declared column of a JSON schema. The name is the key as written; a dotted name such as
 * {@code customer.id} reads the nested field {@code id} of the object {@code customer}, and the
 * resulting column keeps the dotted name.
 *
 * @param name the column name as written, which is also its path in the JSON document
 * @param type the column type
 */
public record ColumnSpec(String name, ColumnType type) {

  /** Checks the name has no empty path segment. */
  public ColumnSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (name.isEmpty() || name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
      throw new IllegalArgumentException("column name '" + name + "' has an empty path segment");
    }
  }

  /** Returns the field names leading to the value in the JSON document: {@code [customer, id]}. */
  public List<String> jsonPath() {
    return List.copyOf(Arrays.asList(name.split("\\.")));
  }
}
