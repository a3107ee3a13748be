package dev.tributary.config.internal;

import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.RegistrySpec;
import dev.tributary.config.SinkSpec;
import dev.tributary.config.SourceSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads where results go: {@code sink} (one sink) or {@code sinks} (a list of them, fed by the same
 * batch), each a mapping with exactly one of {@code delta}, {@code jdbc} and {@code kafka}.
 */
final class SinkReader {
  private static final List<String> KINDS = List.of("delta", "jdbc", "kafka");
  private static final Pattern JDBC_URL = Pattern.compile("jdbc:[a-z0-9]+:.+");
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private final YamlNodes nodes;
  private final OutputReader output;
  private final RegistryReader registries;

  SinkReader(YamlNodes nodes, OutputReader output) {
    this.nodes = nodes;
    this.output = output;
    this.registries = new RegistryReader(nodes);
  }

  /**
   * Returns the sinks in the declared order, or null when they are missing or one is invalid.
   *
   * @param source the source, whose Kafka bootstrap servers a Kafka sink defaults to (may be null)
   */
  List<SinkSpec> sinks(YamlMap root, SourceSpec source) {
    Node single = root.optional("sink").orElse(null);
    Node list = root.optional("sinks").orElse(null);
    if (single != null && list != null) {
      nodes.fail(list, "sinks", SinkMessages.sinkAndSinks());
      return null;
    }
    if (single != null) {
      SinkSpec sink = sink(single, "sink", "sink", source);
      return sink == null ? null : List.of(sink);
    }
    if (list == null) {
      nodes
          .problems()
          .atKey(
              "sink", Messages.missingKey("sink", "sink: { delta: { path: s3://tables/orders } }"));
      return null;
    }
    List<Node> items = nodes.list(list, "sinks");
    if (items == null) {
      return null;
    }
    if (items.isEmpty()) {
      nodes.fail(list, "sinks", SinkMessages.noSinks());
      return null;
    }
    List<SinkSpec> sinks = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < items.size(); i++) {
      SinkSpec sink = sink(items.get(i), "sinks[" + i + "]", "sinks[]", source);
      ok &= sink != null;
      sinks.add(sink);
    }
    return ok ? sinks : null;
  }

  private SinkSpec sink(Node node, String path, String section, SourceSpec source) {
    YamlMap map = nodes.map(node, path, section);
    if (map == null) {
      return null;
    }
    List<String> kinds = map.present(KINDS);
    Node delta = map.optional("delta").orElse(null);
    Node jdbc = map.optional("jdbc").orElse(null);
    Node kafka = map.optional("kafka").orElse(null);
    map.finish();
    if (kinds.isEmpty() && map.hasOtherKeys(kinds)) {
      return null; // only unknown keys, reported by finish() with a suggestion
    }
    if (kinds.size() != 1 || (delta == null && jdbc == null && kafka == null)) {
      nodes.fail(node, path, SinkMessages.sinkKind(kinds));
      return null;
    }
    if (delta != null) {
      YamlMap m = nodes.map(delta, path + ".delta", section + ".delta");
      return m == null ? null : output.deltaSink(m, path + ".delta");
    }
    if (jdbc != null) {
      YamlMap m = nodes.map(jdbc, path + ".jdbc", section + ".jdbc");
      return m == null ? null : jdbc(m, path + ".jdbc");
    }
    YamlMap m = nodes.map(kafka, path + ".kafka", section + ".kafka");
    return m == null ? null : kafka(m, path + ".kafka", source);
  }

  private JdbcSinkSpec jdbc(YamlMap map, String path) {
    Node urlNode = map.required("url", "url: jdbc:postgresql://db:5432/shop");
    String url =
        urlNode == null ? null : nodes.nonEmptyText(urlNode, path + ".url", "the JDBC URL");
    if (url != null && !JDBC_URL.matcher(url.strip()).matches()) {
      nodes.fail(urlNode, path + ".url", SinkMessages.badJdbcUrl(url));
      url = null;
    } else if (url != null && !url.strip().startsWith("jdbc:postgresql:")) {
      nodes.fail(urlNode, path + ".url", SinkMessages.unsupportedDatabase(url));
      url = null;
    }
    if (url != null) {
      maskUrlPassword(url);
    }
    Node tableNode = map.required("table", "table: orders");
    String table =
        tableNode == null ? null : nodes.nonEmptyText(tableNode, path + ".table", "the table name");
    if (table != null && !validTableName(table)) {
      nodes.fail(tableNode, path + ".table", SinkMessages.badTableName(table));
      table = null;
    }
    Optional<String> user =
        map.read("user", n -> optionalText(n, path + ".user"), Optional.empty());
    Optional<String> password =
        map.read("password", n -> optionalText(n, path + ".password"), Optional.empty());
    JdbcSinkSpec.Write write =
        map.read(
            "write",
            n ->
                nodes.keyword(
                    n,
                    path + ".write",
                    "write",
                    JdbcSinkSpec.Write.values(),
                    JdbcSinkSpec.Write::keyword),
            JdbcSinkSpec.Write.APPEND);
    List<String> key = map.read("key", n -> nodes.textList(n, path + ".key"), List.of());
    Boolean create = map.read("create-table", n -> nodes.bool(n, path + ".create-table"), false);
    Map<String, String> properties = properties(map, path + ".properties");
    map.finish();
    if (url == null
        || table == null
        || user == null
        || password == null
        || write == null
        || key == null
        || create == null
        || properties == null) {
      return null;
    }
    return new JdbcSinkSpec(
        url.strip(), table.strip(), user, password, write, key, create, properties);
  }

  private KafkaSinkSpec kafka(YamlMap map, String path, SourceSpec source) {
    String servers =
        map.read(
            "bootstrap-servers",
            n -> nodes.nonEmptyText(n, path + ".bootstrap-servers", "the bootstrap servers"),
            "");
    if (servers != null && servers.isEmpty()) {
      if (source instanceof KafkaSourceSpec kafka) {
        servers = kafka.bootstrapServers();
      } else if (source != null) {
        nodes
            .problems()
            .atKey(
                path + ".bootstrap-servers",
                Messages.missingKey("bootstrap-servers", "bootstrap-servers: broker:9092"));
        servers = null;
      }
    }
    Node topicNode = map.required("topic", "topic: clean-events");
    String topic =
        topicNode == null ? null : nodes.nonEmptyText(topicNode, path + ".topic", "the topic");
    if (topic != null && !TOPIC.matcher(topic).matches()) {
      nodes.fail(topicNode, path + ".topic", Messages.badTopic(topic));
      topic = null;
    }
    Optional<String> key =
        map.read(
            "key",
            n -> {
              String text = nodes.nonEmptyText(n, path + ".key", "the key expression");
              return text == null ? null : Optional.of(text);
            },
            Optional.empty());
    Node valueNode = map.optional("value").orElse(null);
    KafkaSinkSpec.Value value =
        map.read(
            "value",
            n ->
                nodes.keyword(
                    n,
                    path + ".value",
                    "value",
                    KafkaSinkSpec.Value.values(),
                    KafkaSinkSpec.Value::keyword),
            KafkaSinkSpec.Value.JSON);
    Optional<RegistrySpec> registry = registry(map, path, valueNode, value);
    KafkaSinkSpec.Delivery delivery =
        map.read(
            "delivery",
            n ->
                nodes.keyword(
                    n,
                    path + ".delivery",
                    "delivery",
                    KafkaSinkSpec.Delivery.values(),
                    KafkaSinkSpec.Delivery::keyword),
            KafkaSinkSpec.Delivery.EXACTLY_ONCE);
    Boolean headers =
        map.read("provenance-headers", n -> nodes.bool(n, path + ".provenance-headers"), false);
    Map<String, String> properties = properties(map, path + ".properties");
    map.finish();
    if (servers == null
        || topic == null
        || key == null
        || value == null
        || registry == null
        || delivery == null
        || headers == null
        || properties == null) {
      return null;
    }
    return new KafkaSinkSpec(servers, topic, key, value, registry, delivery, headers, properties);
  }

  /**
   * {@code registry}: required with {@code value: avro} (where the value schema is registered),
   * refused otherwise (a JSON value has no schema to register). Null when broken.
   */
  private Optional<RegistrySpec> registry(
      YamlMap map, String path, Node valueNode, KafkaSinkSpec.Value value) {
    Node node = map.optional("registry").orElse(null);
    String section = path.startsWith("sinks[") ? "sinks[].kafka.registry" : "sink.kafka.registry";
    if (value == KafkaSinkSpec.Value.AVRO) {
      if (node == null) {
        nodes.fail(valueNode, path + ".value", SinkMessages.avroWithoutRegistry());
        return null;
      }
      RegistrySpec spec = registries.registry(node, path + ".registry", section);
      return spec == null ? null : Optional.of(spec);
    }
    if (node != null && value != null) {
      nodes.fail(node, path + ".registry", SinkMessages.registryWithoutAvro(value.keyword()));
      return null;
    }
    return Optional.empty();
  }

  /** A password written into the URL ({@code ?password=…}) is a secret like {@code password}. */
  private void maskUrlPassword(String url) {
    int query = url.indexOf('?');
    if (query < 0) {
      return;
    }
    for (String parameter : url.substring(query + 1).split("&")) {
      int eq = parameter.indexOf('=');
      if (eq > 0 && parameter.substring(0, eq).equalsIgnoreCase("password")) {
        nodes.problems().secret(parameter.substring(eq + 1));
      }
    }
  }

  /** {@code table} or {@code schema.table}: each part a name PostgreSQL can hold. */
  private static boolean validTableName(String table) {
    String[] parts = table.strip().split("\\.", -1);
    if (parts.length > 2) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 63 || part.contains("\"") || part.contains("\0")) {
        return false;
      }
    }
    return true;
  }

  private Map<String, String> properties(YamlMap parent, String path) {
    Node node = parent.optional("properties").orElse(null);
    if (node == null) {
      return Map.of();
    }
    YamlMap map = nodes.map(node, path, null);
    if (map == null) {
      return null;
    }
    Map<String, String> properties = new LinkedHashMap<>();
    boolean ok = true;
    for (Map.Entry<String, Node> entry : map.all().entrySet()) {
      String value =
          YamlNodes.isNull(entry.getValue())
              ? ""
              : nodes.text(entry.getValue(), map.child(entry.getKey()));
      ok &= value != null;
      if (value != null) {
        properties.put(entry.getKey(), value);
      }
    }
    return ok ? properties : null;
  }

  /** An optional text: empty after substitution (e.g. {@code ${KEY:-}}) counts as not given. */
  private Optional<String> optionalText(Node node, String path) {
    String text = nodes.text(node, path);
    if (text == null) {
      return null;
    }
    return text.isBlank() ? Optional.empty() : Optional.of(text);
  }
}
