package dev.tributary.service.parse;

import dev.tributary.table.types.StructType;
import java.util.List;
import java.util.Objects;

/**
 * The columns one record brings under {@code columns: all}: the fields of its writer schema (with
 * {@code envelope: debezium}, of its {@code after}/{@code before} record), typed as the writer
 * schema says, and the field names of its record key. A decoder of every writer field puts it in
 * the last slot of its row, after the columns every record has ({@link RecordDecoder#schema()});
 * the routed table of the row aligns it with its own columns by name.
 *
 * @param schema the writer's fields as columns, in writer order
 * @param values the values, aligned with {@code schema}
 * @param key the record key's top-level field names (each table's upsert key when {@code key} is
 *     not declared); empty when the key was not decoded
 * @param origin the writer schema, for messages: {@code writer schema id 7}
 */
public record WriterRow(StructType schema, Object[] values, List<String> key, String origin) {
  /** Checks the parts and copies the key. */
  public WriterRow {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(values, "values");
    key = List.copyOf(key);
    Objects.requireNonNull(origin, "origin");
  }

  /** The writer row at the end of {@code row} (a row of a decoder of every writer field). */
  public static WriterRow of(Object[] row) {
    return (WriterRow) row[row.length - 1];
  }
}
