package dev.tributary.config.internal;

import dev.tributary.config.Assignment;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.Size;
import dev.tributary.config.SourceSpec;
import dev.tributary.config.StartingOffsets;
import dev.tributary.config.StartingVersion;
import dev.tributary.config.StorageSpec;
import dev.tributary.config.TopicSelection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code source} and {@code format} sections: the pipeline's own ({@code source}, {@code
 * format}) or a stream-stream join's second input's ({@code join[0].stream.source}, see {@link
 * #forStream}).
 */
final class SourceReader {

  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private final YamlNodes nodes;
  private final String base;
  private final String section;
  private final String defaultServers;

  SourceReader(YamlNodes nodes) {
    this(nodes, "source", "source", null);
  }

  private SourceReader(YamlNodes nodes, String base, String section, String defaultServers) {
    this.nodes = nodes;
    this.base = base;
    this.section = section;
    this.defaultServers = defaultServers;
  }

  /**
   * A reader of a join's second input ({@code join[i].stream.source}, {@code
   * join[i].stream.format}): no {@code assignment} (the second input is read by the instance that
   * reads the first), and {@code bootstrap-servers} default to {@code mainServers} when given.
   *
   * @param path the input's key path, e.g. {@code join[0].stream}
   * @param mainServers the main Kafka source's servers, or null (the main source is not Kafka)
   */
  SourceReader forStream(String path, String mainServers) {
    return new SourceReader(nodes, path + ".source", "join[].stream.source", mainServers);
  }

  /** Whether this reads the pipeline's own source (not a join's second input). */
  private boolean main() {
    return section.equals("source");
  }

  /**
   * Reads {@code source}: exactly one of {@code kafka} and {@code delta}. Returns null when absent
   * or invalid.
   */
  SourceSpec source(YamlMap root, OutputReader tables) {
    Node sourceNode =
        root.required(
            "source", "source: { kafka: { bootstrap-servers: localhost:9092, topics: [orders] } }");
    YamlMap source = sourceNode == null ? null : nodes.map(sourceNode, base, section);
    if (source == null) {
      return null;
    }
    Node kafkaNode = source.optional("kafka").orElse(null);
    Node deltaNode = source.optional("delta").orElse(null);
    source.finish();
    if (kafkaNode != null && deltaNode != null) {
      nodes.fail(deltaNode, base + ".delta", Messages.twoSources());
      return null;
    }
    if (kafkaNode == null && deltaNode == null) {
      if (!source.hasOtherKeys(List.of())) {
        nodes.problems().atKey(base, Messages.noSource());
      }
      return null;
    }
    if (deltaNode != null) {
      return delta(deltaNode, tables);
    }
    YamlMap kafka = nodes.map(kafkaNode, base + ".kafka", section + ".kafka");
    if (kafka == null) {
      return null;
    }
    String servers;
    if (defaultServers != null) {
      servers =
          kafka.read(
              "bootstrap-servers",
              n -> nodes.nonEmptyText(n, base + ".kafka.bootstrap-servers", "bootstrap-servers"),
              defaultServers);
    } else {
      Node serversNode =
          kafka.required(
              "bootstrap-servers",
              main()
                  ? "bootstrap-servers: localhost:9092"
                  : "bootstrap-servers: localhost:9092 (the main source is not Kafka, so there is"
                      + " no default)");
      servers =
          serversNode == null
              ? null
              : nodes.nonEmptyText(
                  serversNode, base + ".kafka.bootstrap-servers", "bootstrap-servers");
    }
    TopicSelection topics = topics(kafka);
    StartingOffsets starting =
        kafka.read(
            "starting-offsets",
            n -> nodes.convert(n, base + ".kafka.starting-offsets", StartingOffsets::parse),
            new StartingOffsets.Earliest());
    OptionalLong maxOffsets = OptionalLong.empty();
    Node maxNode = kafka.optional("max-offsets-per-trigger").orElse(null);
    if (maxNode != null) {
      Long max = nodes.integer(maxNode, base + ".kafka.max-offsets-per-trigger", 1);
      maxOffsets = max == null ? null : OptionalLong.of(max);
    }
    Boolean failOnDataLoss =
        kafka.read(
            "fail-on-data-loss",
            n -> nodes.bool(n, base + ".kafka.fail-on-data-loss"),
            Boolean.TRUE);
    Map<String, String> properties = properties(kafka);
    Assignment assignment =
        !main()
            ? Assignment.EXCLUSIVE
            : kafka.read(
                "assignment",
                n ->
                    nodes.keyword(
                        n,
                        base + ".kafka.assignment",
                        "assignment",
                        Assignment.values(),
                        Assignment::keyword),
                Assignment.EXCLUSIVE);
    List<String> keyedBy = keyedBy(kafka);
    kafka.finish();
    if (servers == null
        || topics == null
        || starting == null
        || maxOffsets == null
        || failOnDataLoss == null
        || properties == null
        || assignment == null
        || keyedBy == null) {
      return null;
    }
    return new KafkaSourceSpec(
        servers, topics, starting, maxOffsets, failOnDataLoss, properties, assignment, keyedBy);
  }

  /**
   * Reads {@code keyed-by}: a non-empty list of distinct column names (the columns themselves are
   * checked against the schema by the validator). Only the main source may declare it. Returns null
   * when invalid.
   */
  private List<String> keyedBy(YamlMap kafka) {
    if (!main()) {
      return List.of(); // not a key of a stream join's second input (Keys)
    }
    Node node = kafka.optional("keyed-by").orElse(null);
    if (node == null) {
      return List.of();
    }
    String path = base + ".kafka.keyed-by";
    List<String> columns = nodes.textList(node, path);
    if (columns == null) {
      return null;
    }
    if (columns.isEmpty()) {
      nodes.fail(node, path, Messages.empty("the keyed-by column list"));
      return null;
    }
    Set<String> seen = new HashSet<>();
    for (String column : columns) {
      if (!seen.add(column)) {
        nodes.fail(node, path, Messages.duplicateColumn("keyed-by", column));
        return null;
      }
    }
    return columns;
  }

  private DeltaSourceSpec delta(Node deltaNode, OutputReader tables) {
    YamlMap delta = nodes.map(deltaNode, base + ".delta", section + ".delta");
    if (delta == null) {
      return null;
    }
    Node pathNode = delta.required("path", "path: s3://lake/bronze/events or a local directory");
    String path =
        pathNode == null
            ? null
            : nodes.nonEmptyText(pathNode, base + ".delta.path", "the table path");
    StartingVersion starting =
        delta.read(
            "starting-version",
            n -> nodes.convert(n, base + ".delta.starting-version", StartingVersion::parse),
            new StartingVersion.Earliest());
    OptionalLong maxFiles = OptionalLong.empty();
    Node maxFilesNode = delta.optional("max-files-per-trigger").orElse(null);
    if (maxFilesNode != null) {
      Long max = nodes.integer(maxFilesNode, base + ".delta.max-files-per-trigger", 1);
      maxFiles = max == null ? null : OptionalLong.of(max);
    }
    Optional<Size> maxBytes =
        delta.read(
            "max-bytes-per-trigger",
            n -> {
              Size size = positiveSize(n, base + ".delta.max-bytes-per-trigger");
              return size == null ? null : Optional.of(size);
            },
            Optional.empty());
    Boolean ignoreDeletes =
        delta.read(
            "ignore-deletes", n -> nodes.bool(n, base + ".delta.ignore-deletes"), Boolean.FALSE);
    Boolean skipChangeCommits =
        delta.read(
            "skip-change-commits",
            n -> nodes.bool(n, base + ".delta.skip-change-commits"),
            Boolean.FALSE);
    StorageSpec storage =
        tables.storage(delta, base + ".delta.storage", section + ".delta.storage");
    boolean storageOk = storage != null || !nodes.problems().declared(base + ".delta.storage");
    delta.finish();
    if (path == null
        || starting == null
        || maxFiles == null
        || maxBytes == null
        || ignoreDeletes == null
        || skipChangeCommits == null
        || !storageOk) {
      return null;
    }
    return new DeltaSourceSpec(
        path,
        starting,
        maxFiles,
        maxBytes,
        ignoreDeletes,
        skipChangeCommits,
        Optional.ofNullable(storage));
  }

  private TopicSelection topics(YamlMap kafka) {
    Node topicsNode = kafka.optional("topics").orElse(null);
    Node patternNode = kafka.optional("topic-pattern").orElse(null);
    if (topicsNode != null && patternNode != null) {
      nodes.fail(patternNode, base + ".kafka.topic-pattern", Messages.topicsAndPattern());
      return null;
    }
    if (topicsNode == null && patternNode == null) {
      nodes.problems().atKey(base + ".kafka.topics", Messages.noTopics());
      return null;
    }
    if (patternNode != null) {
      String regex =
          nodes.nonEmptyText(patternNode, base + ".kafka.topic-pattern", "topic-pattern");
      if (regex == null) {
        return null;
      }
      try {
        Pattern.compile(regex);
      } catch (PatternSyntaxException e) {
        nodes.fail(
            patternNode,
            base + ".kafka.topic-pattern",
            Messages.badPattern(regex, e.getDescription()));
        return null;
      }
      return new TopicSelection.TopicPattern(regex);
    }
    List<String> names = nodes.textList(topicsNode, base + ".kafka.topics");
    if (names == null) {
      return null;
    }
    if (names.isEmpty()) {
      nodes.fail(topicsNode, base + ".kafka.topics", Messages.noTopics());
      return null;
    }
    boolean ok = true;
    for (int i = 0; i < names.size(); i++) {
      if (!TOPIC.matcher(names.get(i)).matches()) {
        nodes
            .problems()
            .atValue(base + ".kafka.topics[" + i + "]", Messages.badTopic(names.get(i)));
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
    YamlMap map = nodes.map(node, base + ".kafka.properties", null);
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

  /** Reads {@code format}; see {@link FormatReader#format}. */
  FormatSpec format(YamlMap root, SourceSpec source) {
    String stem = base.substring(0, base.length() - "source".length());
    String sectionStem = section.substring(0, section.length() - "source".length());
    return new FormatReader(nodes, this, stem + "format", sectionStem + "format", base)
        .format(root, source);
  }

  Size positiveSize(Node node, String path) {
    Size size = nodes.convert(node, path, Size::parse);
    if (size != null && size.bytes() == 0) {
      nodes.fail(node, path, Messages.notPositive("the size"));
      return null;
    }
    return size;
  }
}
