package dev.tributary.table.types;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * An ordered list of uniquely named fields: a table schema, or a nested struct column. A row of a
 * struct type is an {@code Object[]} whose i-th element is the value of the i-th field.
 */
public record StructType(List<StructField> fields) implements DataType {
  public StructType {
    fields = List.copyOf(fields);
    var seen = new HashSet<String>();
    for (StructField f : fields) {
      if (!seen.add(f.name())) {
        throw new IllegalArgumentException("duplicate field name '" + f.name() + "'");
      }
    }
  }

  public static StructType of(StructField... fields) {
    return new StructType(List.of(fields));
  }

  @Override
  public String deltaName() {
    return "struct";
  }

  /** Position of the named field, or -1. */
  public int indexOf(String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  public Optional<StructField> field(String name) {
    int i = indexOf(name);
    return i < 0 ? Optional.empty() : Optional.of(fields.get(i));
  }

  public List<String> fieldNames() {
    List<String> names = new ArrayList<>(fields.size());
    fields.forEach(f -> names.add(f.name()));
    return names;
  }

  public int size() {
    return fields.size();
  }
}
