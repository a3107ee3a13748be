package dev.tributary.table.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.TypeChange;
import dev.tributary.table.types.VariantType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Delta's JSON schema serialization ({@code metaData.schemaString}):
 *
 * <pre>{"type":"struct","fields":[
 *   {"name":"id","type":"long","nullable":false,"metadata":{}},
 *   {"name":"amount","type":"decimal(10,2)","nullable":true,"metadata":{}},
 *   {"name":"address","type":{"type":"struct","fields":[...]},"nullable":true,"metadata":{}}]}
 * </pre>
 *
 * <p>Primitive types are their Delta name; a nested struct, an array ({@code
 * {"type":"array","elementType":...,"containsNull":true}}) and a map ({@code
 * {"type":"map","keyType":...,"valueType":...,"valueContainsNull":true}}) are objects. Types our
 * model lacks (variant, interval, the collated strings...) are refused on parse. Field metadata is
 * kept verbatim ({@link StructField#metadata()}, {@link StructField#typeChanges()}), so a schema
 * parsed and written again keeps column mapping, identity and generation annotations.
 */
public final class SchemaJson {
  /** The field metadata key holding a column's type-widening history. */
  public static final String TYPE_CHANGES = "delta.typeChanges";

  private static final Pattern DECIMAL =
      Pattern.compile("decimal\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)");

  private SchemaJson() {}

  /** The {@code schemaString} of a schema. */
  public static String toJson(StructType schema) {
    return struct(schema).toString();
  }

  private static ObjectNode struct(StructType schema) {
    ObjectNode node = ActionCodec.MAPPER.createObjectNode();
    node.put("type", "struct");
    ArrayNode fields = node.putArray("fields");
    for (StructField f : schema.fields()) {
      ObjectNode field = fields.addObject();
      field.put("name", f.name());
      field.set("type", type(f.type()));
      field.put("nullable", f.nullable());
      ObjectNode metadata = field.putObject("metadata");
      for (var e : f.metadata().entrySet()) {
        metadata.set(e.getKey(), ActionCodec.MAPPER.valueToTree(e.getValue()));
      }
      if (!f.typeChanges().isEmpty()) {
        // Delta 4's shape: fromType and toType; tableVersion only where the preview wrote it
        ArrayNode changes = metadata.putArray(TYPE_CHANGES);
        for (TypeChange c : f.typeChanges()) {
          ObjectNode change = changes.addObject();
          c.tableVersion().ifPresent(v -> change.put("tableVersion", v));
          change.put("fromType", c.fromType().deltaName()).put("toType", c.toType().deltaName());
          c.fieldPath().ifPresent(p -> change.put("fieldPath", p));
        }
      }
    }
    return node;
  }

  /** A type as the schema JSON holds it: a name, or an object for struct, array and map. */
  private static JsonNode type(DataType type) {
    if (type instanceof StructType nested) {
      return struct(nested);
    }
    if (type instanceof ArrayType array) {
      ObjectNode node = ActionCodec.MAPPER.createObjectNode();
      node.put("type", "array");
      node.set("elementType", type(array.elementType()));
      node.put("containsNull", array.containsNull());
      return node;
    }
    if (type instanceof MapType map) {
      ObjectNode node = ActionCodec.MAPPER.createObjectNode();
      node.put("type", "map");
      node.set("keyType", type(map.keyType()));
      node.set("valueType", type(map.valueType()));
      node.put("valueContainsNull", map.valueContainsNull());
      return node;
    }
    return ActionCodec.MAPPER.getNodeFactory().textNode(type.deltaName());
  }

  /**
   * Parses a {@code schemaString}.
   *
   * @throws IllegalArgumentException naming the field whose type is unknown or unsupported
   */
  public static StructType parse(String schemaString) {
    JsonNode root;
    try {
      root = ActionCodec.MAPPER.readTree(schemaString);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("schemaString is not JSON: " + e.getOriginalMessage());
    }
    return parseStruct(root, "");
  }

  private static StructType parseStruct(JsonNode node, String prefix) {
    if (!"struct".equals(node.path("type").asText()) || !node.path("fields").isArray()) {
      throw new IllegalArgumentException("expected a struct type at '" + prefix + "'");
    }
    List<StructField> fields = new ArrayList<>();
    for (JsonNode f : node.get("fields")) {
      String name = f.path("name").asText();
      String path = prefix.isEmpty() ? name : prefix + "." + name;
      fields.add(
          new StructField(
              name,
              parseType(f.get("type"), path),
              f.path("nullable").asBoolean(true),
              typeChanges(f.path("metadata").path(TYPE_CHANGES), path),
              otherMetadata(f.path("metadata"))));
    }
    return new StructType(fields);
  }

  /** A field's metadata but its type changes, as plain Java values, in the log's order. */
  private static Map<String, Object> otherMetadata(JsonNode metadata) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (metadata.isObject()) {
      metadata
          .fields()
          .forEachRemaining(
              e -> {
                if (!e.getKey().equals(TYPE_CHANGES)) {
                  out.put(e.getKey(), ActionCodec.MAPPER.convertValue(e.getValue(), Object.class));
                }
              });
    }
    return out;
  }

  /**
   * A field's recorded type changes, the preview's tableVersion and the {@code fieldPath} of a
   * change inside an array or map kept.
   */
  private static List<TypeChange> typeChanges(JsonNode changes, String path) {
    if (!changes.isArray()) {
      return List.of();
    }
    List<TypeChange> result = new ArrayList<>();
    for (JsonNode c : changes) {
      Optional<String> fieldPath =
          c.hasNonNull("fieldPath") ? Optional.of(c.get("fieldPath").asText()) : Optional.empty();
      String changed = fieldPath.map(f -> path + "." + f).orElse(path);
      result.add(
          new TypeChange(
              parseType(c.get("fromType"), changed),
              parseType(c.get("toType"), changed),
              c.has("tableVersion")
                  ? OptionalLong.of(c.get("tableVersion").asLong())
                  : OptionalLong.empty(),
              fieldPath));
    }
    return result;
  }

  private static DataType parseType(JsonNode type, String path) {
    if (type == null) {
      throw new IllegalArgumentException("column '" + path + "' has no type");
    }
    if (type.isObject()) {
      String kind = type.path("type").asText();
      switch (kind) {
        case "struct":
          return parseStruct(type, path);
        case "array":
          return new ArrayType(
              parseType(type.get("elementType"), path + ".element"),
              type.path("containsNull").asBoolean(true));
        case "map":
          return new MapType(
              parseType(type.get("keyType"), path + ".key"),
              parseType(type.get("valueType"), path + ".value"),
              type.path("valueContainsNull").asBoolean(true));
        default:
          break;
      }
      throw new IllegalArgumentException(
          "column '" + path + "' has type " + kind + ", which Tributary does not support");
    }
    String name = type.asText();
    for (PrimitiveType p : PrimitiveType.values()) {
      if (p.deltaName().equals(name)) {
        return p;
      }
    }
    if (name.equals("variant")) {
      return VariantType.VARIANT;
    }
    Matcher m = DECIMAL.matcher(name);
    if (m.matches()) {
      return new DecimalType(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }
    if (name.equals("decimal")) {
      return new DecimalType(10, 0); // Spark's default for a bare "decimal"
    }
    throw new IllegalArgumentException(
        "column '" + path + "' has type " + name + ", which Tributary does not support");
  }
}
