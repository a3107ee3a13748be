package dev.tributary.config.internal;

import dev.tributary.config.ExpectationSpec;
import dev.tributary.config.ExpressionBounds;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code expectations} list: each item's {@code name}, {@code check} and {@code
 * on-violation}, with names checked for shape and uniqueness. The check's columns and type are
 * checked where the transforms are compiled (the service's pipeline factory).
 */
final class ExpectationReader {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private final YamlNodes nodes;

  ExpectationReader(YamlNodes nodes) {
    this.nodes = nodes;
  }

  /** The expectations; empty when absent; null when the list could not be read. */
  List<ExpectationSpec> expectations(YamlMap root) {
    Node node = root.optional("expectations").orElse(null);
    if (node == null) {
      return List.of();
    }
    List<Node> items = nodes.list(node, "expectations");
    if (items == null) {
      return null;
    }
    List<ExpectationSpec> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    boolean ok = true;
    for (int i = 0; i < items.size(); i++) {
      String path = "expectations[" + i + "]";
      ExpectationSpec e = expectation(items.get(i), path, names);
      ok &= e != null;
      out.add(e);
    }
    return ok ? out : null;
  }

  private ExpectationSpec expectation(Node node, String path, Set<String> names) {
    YamlMap map = nodes.map(node, path, "expectations[]");
    if (map == null) {
      return null;
    }
    Node nameNode = map.required("name", "name: positive_amount");
    String name =
        nameNode == null ? null : nodes.nonEmptyText(nameNode, path + ".name", "a rule name");
    if (name != null) {
      if (!NAME.matcher(name).matches() || name.length() > ExpectationSpec.MAX_NAME_LENGTH) {
        nodes.fail(
            nameNode,
            path + ".name",
            "'"
                + name
                + "' is not a valid expectation name: use letters, digits and underscores (not"
                + " starting with a digit), at most "
                + ExpectationSpec.MAX_NAME_LENGTH
                + " characters; it names the rule in metrics and commit history");
        name = null;
      } else if (!names.add(name)) {
        nodes.fail(
            nameNode,
            path + ".name",
            "expectation '" + name + "' is declared twice; give each rule its own name");
        name = null;
      }
    }
    Node checkNode = map.required("check", "check: \"amount > 0\"");
    String check =
        checkNode == null
            ? null
            : nodes.nonEmptyText(checkNode, path + ".check", "a boolean SQL expression");
    if (check != null) {
      var violation = ExpressionBounds.check(check);
      if (violation.isPresent()) {
        nodes.fail(
            checkNode,
            path + ".check",
            violation.get().reason() + " (at character " + violation.get().position() + ")");
        check = null;
      }
    }
    ExpectationSpec.OnViolation action = ExpectationSpec.OnViolation.WARN;
    Node actionNode = map.optional("on-violation").orElse(null);
    if (actionNode != null) {
      action =
          nodes.keyword(
              actionNode,
              path + ".on-violation",
              "an action",
              ExpectationSpec.OnViolation.values(),
              ExpectationSpec.OnViolation::keyword);
    }
    map.finish();
    return name == null || check == null || action == null
        ? null
        : new ExpectationSpec(name, check, action);
  }
}
