package dev.tributary.config.internal;

import dev.tributary.config.JoinSpec;
import dev.tributary.config.JoinType;
import dev.tributary.config.Size;
import dev.tributary.config.StorageSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/** Reads the {@code join} list: one stream-static join with a Delta dimension table per entry. */
final class JoinReader {

  private final YamlNodes nodes;
  private final SourceReader sizes;
  private final OutputReader tables;

  JoinReader(YamlNodes nodes, SourceReader sizes, OutputReader tables) {
    this.nodes = nodes;
    this.sizes = sizes;
    this.tables = tables;
  }

  /** Returns the joins, empty when absent, or null when one is invalid. */
  List<JoinSpec> joins(YamlMap root) {
    Node node = root.optional("join").orElse(null);
    if (node == null) {
      return List.of();
    }
    List<Node> items = nodes.list(node, "join");
    if (items == null) {
      return null;
    }
    List<JoinSpec> joins = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < items.size(); i++) {
      JoinSpec join = join(items.get(i), "join[" + i + "]");
      ok &= join != null;
      joins.add(join);
    }
    return ok ? joins : null;
  }

  private JoinSpec join(Node node, String path) {
    YamlMap map = nodes.map(node, path, "join[]");
    if (map == null) {
      return null;
    }
    Node deltaNode = map.required("delta", "delta: { path: s3://lake/dims/customers }");
    YamlMap delta =
        deltaNode == null ? null : nodes.map(deltaNode, path + ".delta", "join[].delta");
    String table = null;
    StorageSpec storage = null;
    boolean storageOk = true;
    if (delta != null) {
      Node pathNode = delta.required("path", "path: s3://lake/dims/customers or a local directory");
      table =
          pathNode == null
              ? null
              : nodes.nonEmptyText(pathNode, path + ".delta.path", "the table path");
      storage = tables.storage(delta, path + ".delta.storage", "join[].delta.storage");
      storageOk = storage != null || !nodes.problems().declared(path + ".delta.storage");
      delta.finish();
    }
    Node onNode = map.required("on", "on: [customer_id]");
    List<String> on = onNode == null ? null : nodes.textList(onNode, path + ".on");
    if (on != null && on.isEmpty()) {
      nodes.fail(onNode, path + ".on", Messages.empty("the key list"));
      on = null;
    }
    JoinType type =
        map.read(
            "type",
            n ->
                tables.keyword(
                    n, path + ".type", "join type", JoinType.values(), JoinType::keyword),
            JoinType.INNER);
    Size maxSize =
        map.read(
            "max-size", n -> sizes.positiveSize(n, path + ".max-size"), JoinSpec.DEFAULT_MAX_SIZE);
    Optional<List<String>> columns =
        map.read(
            "columns",
            n -> {
              List<String> picked = nodes.textList(n, path + ".columns");
              return picked == null ? null : Optional.of(picked);
            },
            Optional.empty());
    map.finish();
    if (table == null
        || !storageOk
        || on == null
        || type == null
        || maxSize == null
        || columns == null) {
      return null;
    }
    return new JoinSpec(table, Optional.ofNullable(storage), on, type, maxSize, columns);
  }
}
