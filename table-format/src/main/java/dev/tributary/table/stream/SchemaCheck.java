package dev.tributary.table.stream;

import dev.tributary.table.TypeWidening;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Judges a schema found in a commit's {@code metaData} against the stream's read schema, as Delta's
 * {@code checkReadIncompatibleSchemaChanges} does: a schema committed after the read schema's
 * version must equal it (a new column there stops the stream, which reads it after a restart); an
 * older schema (a restarted stream going over history) is accepted if the read schema can read its
 * files (Delta's {@code SchemaUtils.isReadCompatible}): each of its columns is in the read schema
 * with the same type, and a column nullable there is nullable in the read schema, or a type the
 * column has widened from since (Delta's type widening: the files' narrower values are converted on
 * read; a widening committed after the read schema stops the stream like any other change). Columns
 * the read schema has in addition are null in the older files. Under column mapping an older
 * schema's columns are matched by physical name: a column renamed or dropped since does not stop a
 * restarted stream (the files are read by physical name), while a rename or drop after the read
 * schema stops it like any other change, naming the new name.
 */
final class SchemaCheck {
  private SchemaCheck() {}

  private static boolean mapped(StructField f) {
    return f.metadata().containsKey(StructField.PHYSICAL_NAME);
  }

  private static Optional<StructField> byPhysicalName(StructType schema, String physical) {
    return schema.fields().stream().filter(f -> f.physicalName().equals(physical)).findFirst();
  }

  /** What differs, or empty if {@code committed} may be read with {@code read}. */
  static Optional<String> problem(StructType read, StructType committed, boolean older) {
    if (committed.equals(read)) {
      return Optional.empty();
    }
    List<String> changes = new ArrayList<>();
    for (StructField c : committed.fields()) {
      Optional<StructField> r = read.field(c.name());
      if (older && mapped(c)) {
        // Under column mapping the files of an older schema are read by physical name: a column
        // renamed since is the same column, and one dropped since is simply not read.
        r = byPhysicalName(read, c.physicalName());
        if (r.isEmpty()) {
          continue;
        }
      } else if (r.isEmpty() && mapped(c) && byPhysicalName(read, c.physicalName()).isPresent()) {
        continue; // a rename, reported below under the old name
      }
      if (r.isEmpty()) {
        changes.add(
            older
                ? "column " + c.name() + " was dropped or renamed since"
                : "column " + c.name() + " (" + c.type().deltaName() + ") was added");
      } else if (older
          && !c.type().equals(r.get().type())
          && TypeWidening.readable(c.type(), r.get().type())) {
        continue; // widened since (typeWidening): the older files' values are converted on read
      } else if (!r.get().type().equals(c.type())) {
        changes.add(
            "column "
                + c.name()
                + " changed type between "
                + c.type().deltaName()
                + " and "
                + r.get().type().deltaName());
      } else if (r.get().nullable() != c.nullable() && (!older || !r.get().nullable())) {
        changes.add("column " + c.name() + " changed nullability");
      }
    }
    for (StructField r : read.fields()) {
      if (committed.field(r.name()).isEmpty() && !older) {
        Optional<StructField> renamed =
            mapped(r) ? byPhysicalName(committed, r.physicalName()) : Optional.empty();
        changes.add(
            renamed.isPresent()
                ? "column " + r.name() + " was renamed to " + renamed.get().name()
                : "column " + r.name() + " was dropped or renamed");
      }
    }
    if (changes.isEmpty() && !older) {
      changes.add(
          "the columns were reordered or their metadata changed, now " + committed.fieldNames());
    }
    return changes.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", changes));
  }
}
