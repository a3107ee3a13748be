package dev.tributary.service.parse;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.table.types.PrimitiveType;
import java.util.List;
import java.util.Objects;

/**
 * What a decoder found in one record beyond the declared columns, for schema evolution
 * (docs/SCHEMA_EVOLUTION.md). Format-agnostic: a JSON, Avro or Protobuf decoder reports the same
 * two things, and the sink side ({@code engine.EvolvingLayout}) decides what becomes a column.
 *
 * @param newFields top-level fields that are not declared columns, each with the type inferred from
 *     its value (reported only when the decoder was asked to, for {@code mode: add-columns}); in
 *     record order
 * @param rescued the fields to keep as {@code _rescued_data}, shaped as in the record (nested
 *     objects for fields inside declared structs): undeclared fields and values that do not fit
 *     their declared column; null when there is none (or rescue is off)
 */
public record DecodedExtras(List<NewField> newFields, ObjectNode rescued) {
  /** Copies the list. */
  public DecodedExtras {
    newFields = List.copyOf(newFields);
  }

  /**
   * A top-level field the declaration lacks.
   *
   * @param name the field name, as in the record
   * @param type the inferred column type: LONG (a whole JSON number in range), DOUBLE (any other
   *     number), BOOLEAN, or STRING (a JSON string; or an object or array, then {@code value} is
   *     its JSON text)
   * @param value the value, of {@code type}'s Java class
   * @param jsonText true when {@code value} is the JSON text of an object or array
   */
  public record NewField(String name, PrimitiveType type, Object value, boolean jsonText) {
    /** Checks the parts. */
    public NewField {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(value, "value");
    }
  }
}
