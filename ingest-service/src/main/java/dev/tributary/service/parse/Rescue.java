package dev.tributary.service.parse;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.table.types.PrimitiveType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects, while one record is read, what {@link DecodedExtras} reports: rescued values (kept as
 * JSON, in the record's shape) and, when asked, the top-level fields the declaration lacks with an
 * inferred type. One per record; only used when schema evolution is on, so the plain read path
 * stays as it was.
 */
final class Rescue {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final boolean rescue;
  private final boolean reportNewFields;
  private ObjectNode rescued;
  private List<DecodedExtras.NewField> newFields;

  Rescue(boolean rescue, boolean reportNewFields) {
    this.rescue = rescue;
    this.reportNewFields = reportNewFields;
  }

  /**
   * Whether a value that does not fit its declared column is kept rather than failing the record.
   */
  boolean rescuesMisfits() {
    return rescue;
  }

  /**
   * An undeclared field, the parser on its first token: reported as a new field (top level, when
   * asked), else rescued, else skipped. Consumes the value.
   */
  void undeclared(String structPath, String name, JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return; // nothing is lost, and a null says nothing about the type a new column would have
    }
    if (reportNewFields && structPath.isEmpty()) {
      DecodedExtras.NewField field = infer(name, p, t);
      if (field != null) {
        if (newFields == null) {
          newFields = new ArrayList<>(2);
        }
        newFields.add(field);
        return;
      }
    }
    if (rescue) {
      keep(structPath, name, p);
    } else {
      p.skipChildren();
    }
  }

  /**
   * Keeps the value the parser is on (its first token) under {@code structPath.name}; consumes it.
   */
  void keep(String structPath, String name, JsonParser p) throws IOException {
    JsonNode value = MAPPER.readTree(p);
    ObjectNode at = rescued == null ? (rescued = MAPPER.createObjectNode()) : rescued;
    if (!structPath.isEmpty()) {
      for (String segment : structPath.split("\\.")) {
        JsonNode child = at.get(segment);
        at = child instanceof ObjectNode o ? o : at.putObject(segment);
      }
    }
    at.set(name, value);
  }

  /** What was found, or null when nothing was. */
  DecodedExtras extras() {
    if (rescued == null && newFields == null) {
      return null;
    }
    return new DecodedExtras(newFields == null ? List.of() : newFields, rescued);
  }

  /**
   * The conservative inference of docs/SCHEMA_EVOLUTION.md: whole numbers are long, other numbers
   * double, strings stay strings (a string that looks like a timestamp is not guessed at), objects
   * and arrays become their JSON text. Null for a number no long or finite double holds (then
   * rescued).
   */
  private static DecodedExtras.NewField infer(String name, JsonParser p, JsonToken t)
      throws IOException {
    return switch (t) {
      case VALUE_NUMBER_INT ->
          p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
              ? null
              : new DecodedExtras.NewField(name, PrimitiveType.LONG, p.getLongValue(), false);
      case VALUE_NUMBER_FLOAT -> {
        double d = p.getDoubleValue();
        yield Double.isFinite(d)
            ? new DecodedExtras.NewField(name, PrimitiveType.DOUBLE, d, false)
            : null;
      }
      case VALUE_TRUE, VALUE_FALSE ->
          new DecodedExtras.NewField(name, PrimitiveType.BOOLEAN, t == JsonToken.VALUE_TRUE, false);
      case VALUE_STRING ->
          new DecodedExtras.NewField(name, PrimitiveType.STRING, p.getText(), false);
      case START_OBJECT, START_ARRAY ->
          new DecodedExtras.NewField(
              name, PrimitiveType.STRING, MAPPER.writeValueAsString(MAPPER.readTree(p)), true);
      default -> null;
    };
  }
}
