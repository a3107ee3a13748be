package dev.tributary.config.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * One YAML mapping being read: duplicate keys are reported when it is opened, keys are taken one by
 * one, and {@link #finish} reports every key nobody took, with the nearest valid key suggested.
 */
final class YamlMap {

  private final YamlNodes nodes;
  private final String path;
  private final String section;
  private final Map<String, NodeTuple> entries = new LinkedHashMap<>();
  private final Set<String> taken = new HashSet<>();

  /**
   * Opens a mapping.
   *
   * @param section the {@link Keys} section whose keys it may hold, or null for user-chosen keys
   */
  YamlMap(YamlNodes nodes, String path, String section, MappingNode node) {
    this.nodes = nodes;
    this.path = path;
    this.section = section;
    for (NodeTuple tuple : node.getValue()) {
      Node keyNode = tuple.getKeyNode();
      if (!(keyNode instanceof ScalarNode scalar)) {
        nodes
            .problems()
            .add(
                keyNode.getStartMark(),
                path,
                Messages.expected("a plain key", "a " + kind(keyNode)));
        continue;
      }
      String key = scalar.getValue();
      NodeTuple first = entries.get(key);
      if (first != null) {
        nodes
            .problems()
            .add(
                keyNode.getStartMark(),
                child(key),
                Messages.duplicateKey(key, first.getKeyNode().getStartMark().getLine() + 1));
        continue;
      }
      entries.put(key, tuple);
      nodes
          .problems()
          .locate(child(key), keyNode.getStartMark(), tuple.getValueNode().getStartMark());
    }
  }

  /** Returns the key path of one of this mapping's keys. */
  String child(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** Takes an optional key; a key with a null value ({@code key:} alone) counts as absent. */
  Optional<Node> optional(String key) {
    assertDeclared(key);
    taken.add(key);
    NodeTuple tuple = entries.get(key);
    if (tuple == null || YamlNodes.isNull(tuple.getValueNode())) {
      return Optional.empty();
    }
    return Optional.of(tuple.getValueNode());
  }

  /**
   * Takes an optional key and reads its value: returns {@code absent} when the key is absent or
   * null, else what {@code read} returns (null when the value is invalid).
   */
  <T> T read(String key, Function<Node, T> read, T absent) {
    Optional<Node> value = optional(key);
    return value.isPresent() ? read.apply(value.get()) : absent;
  }

  /**
   * Takes a required key; reports it as missing (at this mapping) or valueless and returns null
   * then.
   */
  Node required(String key, String example) {
    assertDeclared(key);
    taken.add(key);
    NodeTuple tuple = entries.get(key);
    if (tuple == null) {
      nodes.problems().atKey(child(key), Messages.missingKey(key, example));
      return null;
    }
    if (YamlNodes.isNull(tuple.getValueNode())) {
      nodes.problems().add(tuple.getKeyNode().getStartMark(), child(key), Messages.noValue());
      return null;
    }
    return tuple.getValueNode();
  }

  /** Returns the present keys among {@code keys}, in the file's order. */
  List<String> present(List<String> keys) {
    return entries.keySet().stream().filter(keys::contains).toList();
  }

  /**
   * Returns whether the mapping has keys other than {@code keys} (which {@link #finish} will
   * report).
   */
  boolean hasOtherKeys(List<String> keys) {
    return entries.keySet().stream().anyMatch(k -> !keys.contains(k));
  }

  /** Returns every entry, for mappings with user-chosen keys; all count as taken. */
  Map<String, Node> all() {
    Map<String, Node> all = new LinkedHashMap<>();
    entries.forEach((k, t) -> all.put(k, t.getValueNode()));
    taken.addAll(entries.keySet());
    return all;
  }

  /** Reports every key of the mapping that was not taken. */
  void finish() {
    if (section == null) {
      return;
    }
    List<String> valid = Keys.SECTIONS.get(section);
    for (Map.Entry<String, NodeTuple> entry : entries.entrySet()) {
      String key = entry.getKey();
      if (!taken.contains(key)) {
        String suggestion = Suggestions.nearest(key, valid).orElse(null);
        List<String> elsewhere = new ArrayList<>(Keys.sectionsAccepting(key, section));
        nodes
            .problems()
            .add(
                entry.getValue().getKeyNode().getStartMark(),
                child(key),
                Messages.unknownKey(key, suggestion, valid, elsewhere));
      }
    }
  }

  private void assertDeclared(String key) {
    if (section == null || !Keys.SECTIONS.get(section).contains(key)) {
      // A programming error: the reader asks for a key that Keys (and so the schema) does not list.
      throw new IllegalStateException(
          "key " + key + " is not declared in section '" + section + "'");
    }
  }

  static String kind(Node node) {
    return switch (node.getNodeId()) {
      case mapping -> "mapping";
      case sequence -> "list";
      default -> "value";
    };
  }
}
