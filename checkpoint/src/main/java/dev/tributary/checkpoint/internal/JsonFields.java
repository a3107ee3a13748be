package dev.tributary.checkpoint.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.checkpoint.CorruptCheckpointException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Typed, checked access to the fields of one file's JSON object: every missing or mistyped field is
 * a {@link CorruptCheckpointException} naming the file and the field.
 */
final class JsonFields {
  private final String location;
  private final String key;
  private final String context;
  private final JsonNode node;

  JsonFields(String location, String key, ObjectNode node) {
    this(location, key, "", node);
  }

  private JsonFields(String location, String key, String context, JsonNode node) {
    this.location = location;
    this.key = key;
    this.context = context;
    this.node = node;
  }

  /** Fields of a nested object, e.g. one element of {@code ranges}. */
  JsonFields nested(String description, JsonNode child) throws CorruptCheckpointException {
    if (!child.isObject()) {
      throw error(description, "should be a JSON object");
    }
    return new JsonFields(location, key, context + description + ".", child);
  }

  long longValue(String field) throws CorruptCheckpointException {
    JsonNode v = required(field);
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw error(field, "should be an integer, found " + v);
    }
    return v.longValue();
  }

  int intValue(String field) throws CorruptCheckpointException {
    JsonNode v = required(field);
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw error(field, "should be a 32-bit integer, found " + v);
    }
    return v.intValue();
  }

  OptionalLong optionalLong(String field) throws CorruptCheckpointException {
    return node.has(field) && !node.get(field).isNull()
        ? OptionalLong.of(longValue(field))
        : OptionalLong.empty();
  }

  Optional<String> optionalText(String field) throws CorruptCheckpointException {
    return node.has(field) && !node.get(field).isNull()
        ? Optional.of(text(field))
        : Optional.empty();
  }

  String text(String field) throws CorruptCheckpointException {
    JsonNode v = required(field);
    if (!v.isTextual()) {
      throw error(field, "should be a string, found " + v);
    }
    return v.textValue();
  }

  Instant instant(String field) throws CorruptCheckpointException {
    String text = text(field);
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw error(field, "should be an ISO-8601 instant, found '" + text + "'");
    }
  }

  Optional<Instant> optionalInstant(String field) throws CorruptCheckpointException {
    return node.has(field) && !node.get(field).isNull()
        ? Optional.of(instant(field))
        : Optional.empty();
  }

  JsonNode object(String field) throws CorruptCheckpointException {
    JsonNode v = required(field);
    if (!v.isObject()) {
      throw error(field, "should be a JSON object, found " + v);
    }
    return v;
  }

  Map<String, String> stringMap(String field) throws CorruptCheckpointException {
    JsonNode v = required(field);
    if (!v.isObject()) {
      throw error(field, "should be a JSON object of strings, found " + v);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : v.properties()) {
      if (!e.getValue().isTextual()) {
        throw error(field + "." + e.getKey(), "should be a string, found " + e.getValue());
      }
      out.put(e.getKey(), e.getValue().textValue());
    }
    return out;
  }

  JsonNode array(String field) throws CorruptCheckpointException {
    JsonNode v = required(field);
    if (!v.isArray()) {
      throw error(field, "should be a JSON array, found " + v);
    }
    return v;
  }

  CorruptCheckpointException invalid(String what, IllegalArgumentException cause) {
    return CheckpointErrors.corrupt(
        location, key, "invalid " + context + what + ": " + cause.getMessage());
  }

  CorruptCheckpointException error(String field, String problem) {
    return CheckpointErrors.corrupt(location, key, "field '" + context + field + "' " + problem);
  }

  private JsonNode required(String field) throws CorruptCheckpointException {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      throw error(field, "is missing");
    }
    return v;
  }
}
