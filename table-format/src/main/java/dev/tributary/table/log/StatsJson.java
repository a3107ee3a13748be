package dev.tributary.table.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.table.data.FileStats;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code add.stats} JSON string: {@code {"numRecords":3,"minValues":{...},"maxValues":{...},
 * "nullCount":{...}}}, nested structs as nested objects. Values by type: numbers as JSON numbers
 * (decimals exactly), strings as strings, dates {@code yyyy-MM-dd}, timestamps ISO-8601 UTC with
 * microseconds ({@code 2024-05-01T12:00:00.123456Z}); timestamp_ntz bounds are read ({@code
 * 2024-05-01T12:00:00.123456}) but not written. NaN and infinite doubles and binary values have no
 * JSON form and are left out, which readers take as "unknown", never as a bound.
 */
public final class StatsJson {
  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private StatsJson() {}

  /** The stats string of a file whose rows have {@code schema} (partition columns are skipped). */
  public static String toJson(FileStats stats, StructType schema) {
    ObjectNode root = ActionCodec.MAPPER.createObjectNode();
    root.put("numRecords", stats.numRecords());
    root.set("minValues", values(stats.minValues(), schema));
    root.set("maxValues", values(stats.maxValues(), schema));
    root.set("nullCount", counts(stats.nullCount(), schema));
    return root.toString();
  }

  @SuppressWarnings("unchecked")
  private static ObjectNode values(Map<String, Object> values, StructType schema) {
    ObjectNode node = ActionCodec.MAPPER.createObjectNode();
    for (StructField f : schema.fields()) {
      Object v = values.get(f.name());
      if (v == null) {
        continue;
      }
      if (f.type() instanceof StructType nested) {
        if (v instanceof Map<?, ?> m) {
          node.set(f.name(), values((Map<String, Object>) m, nested));
        }
        continue;
      }
      if (v instanceof Instant i) {
        node.put(f.name(), MICROS.format(i));
      } else if (v instanceof LocalDate d) {
        node.put(f.name(), d.toString());
      } else if (v instanceof BigDecimal d) {
        node.put(f.name(), d);
      } else if (v instanceof Double d) {
        if (Double.isFinite(d)) {
          node.put(f.name(), d);
        }
      } else if (v instanceof Float d) {
        if (Float.isFinite(d)) {
          node.put(f.name(), d);
        }
      } else if (v instanceof Long l) {
        node.put(f.name(), l);
      } else if (v instanceof Integer i) {
        node.put(f.name(), i);
      } else if (v instanceof Short i) {
        node.put(f.name(), i);
      } else if (v instanceof Byte i) {
        node.put(f.name(), i.shortValue());
      } else if (v instanceof Boolean b) {
        node.put(f.name(), b);
      } else if (v instanceof String str) {
        node.put(f.name(), str);
      }
      // binary and anything else without a JSON form: no bound
    }
    return node;
  }

  @SuppressWarnings("unchecked")
  private static ObjectNode counts(Map<String, Object> counts, StructType schema) {
    ObjectNode node = ActionCodec.MAPPER.createObjectNode();
    for (StructField f : schema.fields()) {
      Object v = counts.get(f.name());
      if (v instanceof Map<?, ?> m && f.type() instanceof StructType nested) {
        node.set(f.name(), counts((Map<String, Object>) m, nested));
      } else if (v instanceof Number n) {
        node.put(f.name(), n.longValue());
      }
    }
    return node;
  }

  /**
   * The stats of a data file once a deletion vector hides some of its rows: the same numbers with
   * {@code numRecords} counting every row of the data file, deleted ones included (PROTOCOL.md
   * requires it of a file with a deletion vector: {@code numRecords} is set when the stats lack
   * it), and {@code "tightBounds":false}, since a minimum or maximum may now belong to a deleted
   * row only. Null stats become {@code {"numRecords":n,"tightBounds":false}}.
   *
   * @throws IllegalArgumentException if the string is not a JSON object
   */
  public static String withWideBounds(String json, long numRecords) {
    ObjectNode object = json == null ? ActionCodec.MAPPER.createObjectNode() : object(json);
    if (!object.has("numRecords")) {
      object.put("numRecords", numRecords);
    }
    object.put("tightBounds", false);
    return object.toString();
  }

  /**
   * The {@code numRecords} of a stats string, or -1 if the string is null or lacks it (readers then
   * count the file's rows themselves).
   *
   * @throws IllegalArgumentException if the string is not a JSON object
   */
  public static long numRecords(String json) {
    if (json == null) {
      return -1;
    }
    JsonNode n = object(json).get("numRecords");
    return n != null && n.canConvertToLong() ? n.asLong() : -1;
  }

  private static ObjectNode object(String json) {
    JsonNode root;
    try {
      root = ActionCodec.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("stats are not JSON: " + e.getOriginalMessage());
    }
    if (!(root instanceof ObjectNode object)) {
      throw new IllegalArgumentException("stats are not a JSON object: " + json);
    }
    return object;
  }

  /**
   * Parses a stats string back into typed values; fields not in {@code schema} are ignored.
   *
   * @throws IllegalArgumentException if the string is not JSON or a value does not fit its type
   */
  public static FileStats parse(String json, StructType schema) {
    JsonNode root;
    try {
      root = ActionCodec.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("stats are not JSON: " + e.getOriginalMessage());
    }
    return new FileStats(
        root.path("numRecords").asLong(),
        parseValues(root.get("minValues"), schema),
        parseValues(root.get("maxValues"), schema),
        parseCounts(root.get("nullCount"), schema));
  }

  private static Map<String, Object> parseValues(JsonNode node, StructType schema) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (node == null || !node.isObject()) {
      return out;
    }
    for (StructField f : schema.fields()) {
      JsonNode v = node.get(f.name());
      if (v == null || v.isNull()) {
        continue;
      }
      Object value =
          f.type() instanceof StructType nested ? parseValues(v, nested) : value(v, f.type());
      if (value != null) {
        out.put(f.name(), value);
      }
    }
    return out;
  }

  private static Object value(JsonNode v, DataType type) {
    if (type instanceof DecimalType d) {
      try {
        return v.decimalValue().setScale(d.scale(), RoundingMode.UNNECESSARY);
      } catch (ArithmeticException e) {
        return null; // more digits than the column holds: no usable bound
      }
    }
    if (!(type instanceof PrimitiveType primitive)) {
      return null; // arrays and maps have no bounds
    }
    return switch (primitive) {
      case STRING -> v.asText();
      case BYTE -> v.canConvertToInt() ? (byte) v.asInt() : null;
      case SHORT -> v.canConvertToInt() ? (short) v.asInt() : null;
      case INTEGER -> v.asInt();
      case LONG -> v.asLong();
      case FLOAT -> v.isNumber() ? v.floatValue() : null;
      case DOUBLE -> v.asDouble();
      case BOOLEAN -> v.asBoolean();
      case TIMESTAMP -> Instant.parse(v.asText());
      case TIMESTAMP_NTZ -> localDateTime(v.asText());
      case DATE -> LocalDate.parse(v.asText());
      case BINARY -> null;
    };
  }

  /**
   * A timestamp_ntz bound as Spark writes it ({@code 2024-05-01T12:00:00.123456}, some writers add
   * a {@code Z}), or null (no bound) for any other form.
   */
  private static LocalDateTime localDateTime(String text) {
    String local = text.endsWith("Z") ? text.substring(0, text.length() - 1) : text;
    try {
      return LocalDateTime.parse(local);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Map<String, Object> parseCounts(JsonNode node, StructType schema) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (node == null || !node.isObject()) {
      return out;
    }
    for (StructField f : schema.fields()) {
      JsonNode v = node.get(f.name());
      if (v == null || v.isNull()) {
        continue;
      }
      if (f.type() instanceof StructType nested && v.isObject()) {
        out.put(f.name(), parseCounts(v, nested));
      } else if (v.canConvertToLong()) {
        out.put(f.name(), v.asLong());
      }
    }
    return out;
  }
}
