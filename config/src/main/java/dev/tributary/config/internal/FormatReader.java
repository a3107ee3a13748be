package dev.tributary.config.internal;

import dev.tributary.config.AvroFormatSpec;
import dev.tributary.config.ColumnSelection;
import dev.tributary.config.ColumnSpec;
import dev.tributary.config.ColumnType;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.EnvelopeSpec;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.JsonFormatSpec;
import dev.tributary.config.ProtobufFormatSpec;
import dev.tributary.config.RegistrySpec;
import dev.tributary.config.Size;
import dev.tributary.config.SourceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * Reads the {@code format} section: exactly one of {@code json}, {@code avro} or {@code protobuf},
 * with its declared columns and, for the registry formats, the {@code registry} settings.
 */
final class FormatReader {
  private static final Pattern DECIMAL_HEAD = Pattern.compile("decimal\\(\\s*\\d+\\s*");
  private static final Pattern DECIMAL_TAIL = Pattern.compile("\\s*\\d+\\s*\\)");

  static final List<String> KINDS = List.of("json", "avro", "protobuf");

  private final YamlNodes nodes;
  private final SourceReader source;
  private final EnvelopeReader envelopes;
  private final RegistryReader registries;
  private final String base;
  private final String section;
  private final String sourcePath;

  /**
   * @param base the section's key path: {@code format}, or {@code join[0].stream.format}
   * @param section the section's name among {@link Keys#SECTIONS}: {@code format} or {@code
   *     join[].stream.format}
   * @param sourcePath the key path of the source the format decodes
   */
  FormatReader(
      YamlNodes nodes, SourceReader source, String base, String section, String sourcePath) {
    this.nodes = nodes;
    this.source = source;
    this.base = base;
    this.section = section;
    this.sourcePath = sourcePath;
    this.envelopes = new EnvelopeReader(nodes);
    this.registries = new RegistryReader(nodes);
  }

  /**
   * Reads {@code format}: required with a Kafka source, refused with a Delta source (whose table's
   * schema is the input schema); with a broken source, read when present (required when the source
   * is missing: the example source is Kafka's).
   */
  FormatSpec format(YamlMap root, SourceSpec sourceSpec) {
    if (sourceSpec instanceof DeltaSourceSpec) {
      root.optional("format").ifPresent(n -> nodes.fail(n, base, Messages.formatWithDeltaSource()));
      return null;
    }
    YamlMap format;
    if (sourceSpec == null && nodes.problems().declared(sourcePath)) {
      Node node = root.optional("format").orElse(null);
      format = node == null ? null : nodes.map(node, base, section);
    } else {
      Node node = root.required("format", "format: { json: { schema: { order_id: string } } }");
      format = node == null ? null : nodes.map(node, base, section);
    }
    if (format == null) {
      return null;
    }
    List<String> kinds = format.present(KINDS);
    if (kinds.size() != 1) {
      if (!format.hasOtherKeys(KINDS) || !kinds.isEmpty()) {
        nodes.problems().atValue(base, Messages.formatKind(kinds));
      }
      KINDS.forEach(format::optional); // taken: the kind problem is reported once, above
      format.finish();
      return null;
    }
    String kind = kinds.get(0);
    Node node = format.required(kind, kind + ": { schema: { order_id: string } }");
    format.finish();
    YamlMap kindMap =
        node == null ? null : nodes.map(node, base + "." + kind, section + "." + kind);
    if (kindMap == null) {
      return null;
    }
    return switch (kind) {
      case "json" -> json(kindMap);
      case "avro" -> avro(kindMap);
      default -> protobuf(kindMap);
    };
  }

  private JsonFormatSpec json(YamlMap json) {
    Node schemaNode =
        json.required("schema", "schema: { order_id: string, event_time: timestamp }");
    List<ColumnSpec> columns =
        schemaNode == null ? null : columns(schemaNode, base + ".json.schema");
    Size maxRecordSize = maxRecordSize(json, base + ".json");
    EnvelopeSpec envelope = envelopes.envelope(json, base + ".json", columns, List.of());
    json.finish();
    if (columns == null || maxRecordSize == null || envelope == null) {
      return null;
    }
    return new JsonFormatSpec(columns, maxRecordSize, envelope);
  }

  private AvroFormatSpec avro(YamlMap avro) {
    RegistrySpec registry = registry(avro, base + ".avro");
    ColumnSelection selection = selection(avro, base + ".avro");
    if (selection != ColumnSelection.DECLARED) {
      Size maxRecordSize = maxRecordSize(avro, base + ".avro");
      EnvelopeSpec envelope = envelopes.envelope(avro, base + ".avro", List.of(), List.of());
      avro.finish();
      if (selection == null || registry == null || maxRecordSize == null || envelope == null) {
        return null;
      }
      return AvroFormatSpec.allColumns(registry, maxRecordSize, envelope);
    }
    Node schemaNode =
        avro.required("schema", "schema: { order_id: string, event_time: timestamp }");
    List<ColumnSpec> values =
        schemaNode == null ? null : columns(schemaNode, base + ".avro.schema");
    List<ColumnSpec> keys = keyColumns(avro, base + ".avro", values);
    Size maxRecordSize = maxRecordSize(avro, base + ".avro");
    EnvelopeSpec envelope = envelopes.envelope(avro, base + ".avro", values, keys);
    avro.finish();
    if (registry == null
        || values == null
        || keys == null
        || maxRecordSize == null
        || envelope == null) {
      return null;
    }
    return new AvroFormatSpec(registry, values, keys, maxRecordSize, envelope);
  }

  private ProtobufFormatSpec protobuf(YamlMap protobuf) {
    if (protobuf.present(List.of("columns")).contains("columns")) {
      return protobufAllColumns(protobuf);
    }
    Node messageNode = protobuf.required("message", "message: com.example.Order");
    String message =
        messageNode == null
            ? null
            : nodes.nonEmptyText(messageNode, base + ".protobuf.message", "the message name");
    RegistrySpec registry = registry(protobuf, base + ".protobuf");
    Node schemaNode =
        protobuf.required("schema", "schema: { order_id: string, event_time: timestamp }");
    List<ColumnSpec> values =
        schemaNode == null ? null : columns(schemaNode, base + ".protobuf.schema");
    List<ColumnSpec> keys = keyColumns(protobuf, base + ".protobuf", values);
    Size maxRecordSize = maxRecordSize(protobuf, base + ".protobuf");
    envelopes.refuse(protobuf);
    protobuf.finish();
    if (message == null
        || registry == null
        || values == null
        || keys == null
        || maxRecordSize == null) {
      return null;
    }
    return new ProtobufFormatSpec(message.strip(), registry, values, keys, maxRecordSize);
  }

  /** {@code format.protobuf} with {@code columns: all}: {@code message} is optional there. */
  private ProtobufFormatSpec protobufAllColumns(YamlMap protobuf) {
    String message =
        protobuf.read(
            "message",
            n -> nodes.nonEmptyText(n, base + ".protobuf.message", "the message name"),
            "");
    RegistrySpec registry = registry(protobuf, base + ".protobuf");
    ColumnSelection selection = selection(protobuf, base + ".protobuf");
    Size maxRecordSize = maxRecordSize(protobuf, base + ".protobuf");
    envelopes.refuse(protobuf);
    protobuf.finish();
    if (message == null || selection == null || registry == null || maxRecordSize == null) {
      return null;
    }
    return new ProtobufFormatSpec(
        message.strip(), registry, List.of(), List.of(), maxRecordSize, ColumnSelection.ALL);
  }

  /**
   * Reads {@code columns}: absent means the declared {@code schema}; {@code all} takes every
   * writer-schema field, and then {@code schema} and {@code key} are refused at their lines (they
   * are taken, so they are reported once). Null when broken (reported).
   */
  private ColumnSelection selection(YamlMap section, String path) {
    Optional<Node> node = section.optional("columns");
    if (node.isEmpty()) {
      return ColumnSelection.DECLARED;
    }
    String text = nodes.nonEmptyText(node.get(), path + ".columns", "columns");
    boolean ok = text != null;
    if (ok && !text.strip().equals(ColumnSelection.ALL.keyword())) {
      nodes.problems().atValue(path + ".columns", Messages.columnsNotAll(text.strip()));
      ok = false;
    }
    for (String declared : List.of("schema", "key")) {
      if (section.optional(declared).isPresent()) {
        nodes.problems().atKey(path + "." + declared, Messages.columnsAllWithDeclared(declared));
        ok = false;
      }
    }
    return ok ? ColumnSelection.ALL : null;
  }

  private Size maxRecordSize(YamlMap section, String path) {
    return section.read(
        "max-record-size",
        n -> source.positiveSize(n, path + ".max-record-size"),
        JsonFormatSpec.DEFAULT_MAX_RECORD_SIZE);
  }

  /** The {@code key} columns, none when absent; a name the value declares too is refused. */
  private List<ColumnSpec> keyColumns(YamlMap section, String path, List<ColumnSpec> values) {
    Optional<Node> keyNode = section.optional("key");
    if (keyNode.isEmpty()) {
      return List.of();
    }
    List<ColumnSpec> keys = columns(keyNode.get(), path + ".key");
    if (keys == null || values == null) {
      return keys;
    }
    for (ColumnSpec key : keys) {
      for (ColumnSpec value : values) {
        // Top-level names must differ: nested key and value columns under one parent would make
        // one struct column of two sources.
        if (key.jsonPath().get(0).equals(value.jsonPath().get(0))) {
          nodes
              .problems()
              .atKey(path + ".key." + key.name(), Messages.keyColumnClash(key.name(), path));
          return null;
        }
      }
    }
    return keys;
  }

  private RegistrySpec registry(YamlMap map, String path) {
    Node node = map.required("registry", "registry: { url: http://localhost:8081 }");
    return node == null
        ? null
        : registries.registry(
            node, path + ".registry", section + path.substring(base.length()) + ".registry");
  }

  /** Reads a mapping of column names to types; null (with the problems recorded) when broken. */
  List<ColumnSpec> columns(Node schemaNode, String path) {
    YamlMap schema = nodes.map(schemaNode, path, null);
    if (schema == null) {
      return null;
    }
    Map<String, Node> entries = schema.all();
    if (entries.isEmpty()) {
      nodes.fail(schemaNode, path, Messages.empty("the schema"));
      return null;
    }
    List<ColumnSpec> columns = new ArrayList<>();
    boolean ok = true;
    List<Map.Entry<String, Node>> list = new ArrayList<>(entries.entrySet());
    for (int i = 0; i < list.size(); i++) {
      String name = list.get(i).getKey();
      Node typeNode = list.get(i).getValue();
      String columnPath = schema.child(name);
      String rejoined = i + 1 < list.size() ? rejoinedDecimal(typeNode, list.get(i + 1)) : null;
      ColumnType type;
      if (rejoined != null) {
        type = nodes.convertText(typeNode, columnPath, rejoined, ColumnType::parse);
        i++; // the scale half is part of this column's type, not a column
      } else {
        type = nodes.convert(typeNode, columnPath, ColumnType::parse);
      }
      if (name.isEmpty() || name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
        nodes.problems().atKey(columnPath, Messages.badColumnName(name));
        type = null;
      }
      ok &= type != null;
      if (type != null) {
        columns.add(new ColumnSpec(name, type));
      }
    }
    for (ColumnSpec parent : columns) {
      for (ColumnSpec child : columns) {
        if (child.name().startsWith(parent.name() + ".")) {
          nodes
              .problems()
              .atKey(
                  schema.child(parent.name()),
                  Messages.columnConflict(parent.name(), child.name()));
          ok = false;
        }
      }
    }
    return ok ? columns : null;
  }

  /**
   * In a flow mapping ({@code { amount: decimal(12,2) }}, as docs/PIPELINE_REFERENCE.md writes it)
   * YAML ends a plain scalar at the comma, so the type arrives as {@code amount: "decimal(12"}
   * followed by a key {@code "2)"} without a value. That pair is the declared {@code
   * decimal(12,2)}: returns its text, or null when the entries are anything else (a quoted value, a
   * next key with a value).
   */
  private static String rejoinedDecimal(Node typeNode, Map.Entry<String, Node> next) {
    if (typeNode instanceof ScalarNode head
        && head.getScalarStyle() == DumperOptions.ScalarStyle.PLAIN
        && DECIMAL_HEAD.matcher(head.getValue()).matches()
        && DECIMAL_TAIL.matcher(next.getKey()).matches()
        && next.getValue() instanceof ScalarNode empty
        && empty.getValue().isEmpty()) {
      return head.getValue() + "," + next.getKey().strip();
    }
    return null;
  }
}
