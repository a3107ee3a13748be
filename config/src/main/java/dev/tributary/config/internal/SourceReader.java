package dev.tributary.config.internal;

import dev.tributary.config.ColumnSpec;
import dev.tributary.config.ColumnType;
import dev.tributary.config.JsonFormatSpec;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.Size;
import dev.tributary.config.StartingOffsets;
import dev.tributary.config.TopicSelection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.yaml.snakeyaml.nodes.Node;

/** Reads the {@code source} and {@code format} sections. */
final class SourceReader {

  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private final YamlNodes nodes;

  SourceReader(YamlNodes nodes) {
    this.nodes = nodes;
  }

  KafkaSourceSpec source(YamlMap root) {
    YamlMap source = section(root, "source", "source: { kafka: { bootstrap-servers: localhost:9092, topics: [orders] } }");
    if (source == null) {
      return null;
    }
    Node kafkaNode = source.required("kafka", "kafka: { bootstrap-servers: localhost:9092, topics: [orders] }");
    source.finish();
    YamlMap kafka = kafkaNode == null ? null : nodes.map(kafkaNode, "source.kafka", "source.kafka");
    if (kafka == null) {
      return null;
    }
    Node serversNode = kafka.required("bootstrap-servers", "bootstrap-servers: localhost:9092");
    String servers = serversNode == null ? null
        : nodes.nonEmptyText(serversNode, "source.kafka.bootstrap-servers", "bootstrap-servers");
    TopicSelection topics = topics(kafka);
    StartingOffsets starting = kafka.read("starting-offsets",
        n -> nodes.convert(n, "source.kafka.starting-offsets", StartingOffsets::parse), new StartingOffsets.Earliest());
    OptionalLong maxOffsets = OptionalLong.empty();
    Node maxNode = kafka.optional("max-offsets-per-trigger").orElse(null);
    if (maxNode != null) {
      Long max = nodes.integer(maxNode, "source.kafka.max-offsets-per-trigger", 1);
      maxOffsets = max == null ? null : OptionalLong.of(max);
    }
    Boolean failOnDataLoss = kafka.read("fail-on-data-loss", n -> nodes.bool(n, "source.kafka.fail-on-data-loss"),
        Boolean.TRUE);
    Map<String, String> properties = properties(kafka);
    kafka.finish();
    if (servers == null || topics == null || starting == null || maxOffsets == null || failOnDataLoss == null
        || properties == null) {
      return null;
    }
    return new KafkaSourceSpec(servers, topics, starting, maxOffsets, failOnDataLoss, properties);
  }

  private TopicSelection topics(YamlMap kafka) {
    Node topicsNode = kafka.optional("topics").orElse(null);
    Node patternNode = kafka.optional("topic-pattern").orElse(null);
    if (topicsNode != null && patternNode != null) {
      nodes.fail(patternNode, "source.kafka.topic-pattern", Messages.topicsAndPattern());
      return null;
    }
    if (topicsNode == null && patternNode == null) {
      nodes.problems().atKey("source.kafka.topics", Messages.noTopics());
      return null;
    }
    if (patternNode != null) {
      String regex = nodes.nonEmptyText(patternNode, "source.kafka.topic-pattern", "topic-pattern");
      if (regex == null) {
        return null;
      }
      try {
        Pattern.compile(regex);
      } catch (PatternSyntaxException e) {
        nodes.fail(patternNode, "source.kafka.topic-pattern", Messages.badPattern(regex, e.getDescription()));
        return null;
      }
      return new TopicSelection.TopicPattern(regex);
    }
    List<String> names = nodes.textList(topicsNode, "source.kafka.topics");
    if (names == null) {
      return null;
    }
    if (names.isEmpty()) {
      nodes.fail(topicsNode, "source.kafka.topics", Messages.noTopics());
      return null;
    }
    boolean ok = true;
    for (int i = 0; i < names.size(); i++) {
      if (!TOPIC.matcher(names.get(i)).matches()) {
        nodes.problems().atValue("source.kafka.topics[" + i + "]", Messages.badTopic(names.get(i)));
        ok = false;
      }
    }
    return ok ? new TopicSelection.Topics(names) : null;
  }

  private Map<String, String> properties(YamlMap kafka) {
    Node node = kafka.optional("properties").orElse(null);
    if (node == null) {
      return Map.of();
    }
    YamlMap map = nodes.map(node, "source.kafka.properties", null);
    if (map == null) {
      return null;
    }
    Map<String, String> properties = new LinkedHashMap<>();
    boolean ok = true;
    for (Map.Entry<String, Node> entry : map.all().entrySet()) {
      String value = YamlNodes.isNull(entry.getValue()) ? ""
          : nodes.text(entry.getValue(), map.child(entry.getKey()));
      ok &= value != null;
      if (value != null) {
        properties.put(entry.getKey(), value);
      }
    }
    return ok ? properties : null;
  }

  JsonFormatSpec format(YamlMap root) {
    YamlMap format = section(root, "format", "format: { json: { schema: { order_id: string } } }");
    if (format == null) {
      return null;
    }
    Node jsonNode = format.required("json", "json: { schema: { order_id: string } }");
    format.finish();
    YamlMap json = jsonNode == null ? null : nodes.map(jsonNode, "format.json", "format.json");
    if (json == null) {
      return null;
    }
    Node schemaNode = json.required("schema", "schema: { order_id: string, event_time: timestamp }");
    List<ColumnSpec> columns = schemaNode == null ? null : columns(schemaNode);
    Size maxRecordSize = json.read("max-record-size", n -> positiveSize(n, "format.json.max-record-size"),
        JsonFormatSpec.DEFAULT_MAX_RECORD_SIZE);
    json.finish();
    if (columns == null || maxRecordSize == null) {
      return null;
    }
    return new JsonFormatSpec(columns, maxRecordSize);
  }

  private List<ColumnSpec> columns(Node schemaNode) {
    YamlMap schema = nodes.map(schemaNode, "format.json.schema", null);
    if (schema == null) {
      return null;
    }
    Map<String, Node> entries = schema.all();
    if (entries.isEmpty()) {
      nodes.fail(schemaNode, "format.json.schema", Messages.empty("the schema"));
      return null;
    }
    List<ColumnSpec> columns = new ArrayList<>();
    boolean ok = true;
    for (Map.Entry<String, Node> entry : entries.entrySet()) {
      String name = entry.getKey();
      String path = schema.child(name);
      ColumnType type = nodes.convert(entry.getValue(), path, ColumnType::parse);
      if (name.isEmpty() || name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
        nodes.problems().atKey(path, Messages.badColumnName(name));
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
          nodes.problems().atKey(schema.child(parent.name()), Messages.columnConflict(parent.name(), child.name()));
          ok = false;
        }
      }
    }
    return ok ? columns : null;
  }

  Size positiveSize(Node node, String path) {
    Size size = nodes.convert(node, path, Size::parse);
    if (size != null && size.bytes() == 0) {
      nodes.fail(node, path, Messages.notPositive("the size"));
      return null;
    }
    return size;
  }

  private YamlMap section(YamlMap root, String key, String example) {
    Node node = root.required(key, example);
    return node == null ? null : nodes.map(node, key, key);
  }
}
