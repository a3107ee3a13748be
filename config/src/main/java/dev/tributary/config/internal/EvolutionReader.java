package dev.tributary.config.internal;

import dev.tributary.config.DeltaTableSpec;
import dev.tributary.config.QuarantineLimit;
import dev.tributary.config.SchemaEvolutionSpec;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads {@code schema-evolution} and the {@code quarantine} section ({@code delta} and {@code
 * max-fraction}, both optional).
 */
final class EvolutionReader {
  private final YamlNodes nodes;
  private final OutputReader output;

  /** What the {@code quarantine} section declares; parts null when absent or invalid. */
  record Quarantine(DeltaTableSpec table, QuarantineLimit limit) {}

  EvolutionReader(YamlNodes nodes, OutputReader output) {
    this.nodes = nodes;
    this.output = output;
  }

  /** The declared section, {@link SchemaEvolutionSpec#DEFAULT} when absent, null when invalid. */
  SchemaEvolutionSpec schemaEvolution(YamlMap root) {
    Node node = root.optional("schema-evolution").orElse(null);
    if (node == null) {
      return SchemaEvolutionSpec.DEFAULT;
    }
    YamlMap map = nodes.map(node, "schema-evolution", "schema-evolution");
    if (map == null) {
      return null;
    }
    SchemaEvolutionSpec.Mode mode =
        map.read(
            "mode",
            n ->
                output.keyword(
                    n,
                    "schema-evolution.mode",
                    "schema evolution mode",
                    SchemaEvolutionSpec.Mode.values(),
                    SchemaEvolutionSpec.Mode::keyword),
            SchemaEvolutionSpec.Mode.NONE);
    Boolean rescue =
        map.read("rescue", n -> nodes.bool(n, "schema-evolution.rescue"), Boolean.FALSE);
    map.finish();
    return mode == null || rescue == null ? null : new SchemaEvolutionSpec(mode, rescue);
  }

  /** The {@code quarantine} section; an absent section gives two nulls (the defaults apply). */
  Quarantine quarantine(YamlMap root) {
    Node node = root.optional("quarantine").orElse(null);
    YamlMap section = node == null ? null : nodes.map(node, "quarantine", "quarantine");
    if (section == null) {
      return new Quarantine(null, null);
    }
    DeltaTableSpec table = null;
    Node deltaNode = section.optional("delta").orElse(null);
    if (deltaNode != null) {
      YamlMap delta = nodes.map(deltaNode, "quarantine.delta", "quarantine.delta");
      if (delta != null) {
        table = output.sideTablePath(delta);
      }
    }
    QuarantineLimit limit = section.read("max-fraction", n -> fraction(n), null);
    section.finish();
    return new Quarantine(table, limit);
  }

  private QuarantineLimit fraction(Node node) {
    String path = "quarantine.max-fraction";
    String text = nodes.text(node, path);
    if (text == null) {
      return null;
    }
    double value;
    try {
      value = Double.parseDouble(text.strip());
    } catch (NumberFormatException e) {
      nodes.fail(node, path, Messages.badFraction(text));
      return null;
    }
    if (!(value > 0 && value <= 1)) {
      nodes.fail(node, path, Messages.badFraction(text));
      return null;
    }
    return new QuarantineLimit(value);
  }
}
