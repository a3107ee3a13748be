package dev.tributary.config.internal;

import dev.tributary.config.Secrets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Converts YAML nodes into values. Every scalar is read as text, environment references are
 * replaced, and only then is the text converted, so {@code ${MAX:-1000}} works where a number is
 * expected and quoting never changes the meaning. Each method records a problem and returns null
 * when it fails.
 */
final class YamlNodes {

  private final Problems problems;
  private final Function<String, String> env;

  YamlNodes(Problems problems, Function<String, String> env) {
    this.problems = problems;
    this.env = env;
  }

  Problems problems() {
    return problems;
  }

  /** A plain {@code ~}, {@code null} or empty value. */
  static boolean isNull(Node node) {
    return node instanceof ScalarNode scalar
        && Tag.NULL.equals(scalar.getTag())
        && scalar.getScalarStyle() == DumperOptions.ScalarStyle.PLAIN;
  }

  /** Opens a mapping whose keys belong to a {@link Keys} section (null = user-chosen keys). */
  YamlMap map(Node node, String path, String section) {
    if (node instanceof MappingNode mapping) {
      return new YamlMap(this, path, section, mapping);
    }
    problems.add(
        node.getStartMark(), path, Messages.expected("a mapping of keys", describe(node, path)));
    return null;
  }

  /** Returns the items of a list. */
  List<Node> list(Node node, String path) {
    if (node instanceof SequenceNode sequence) {
      List<Node> items = sequence.getValue();
      for (int i = 0; i < items.size(); i++) {
        problems.locate(path + "[" + i + "]", null, items.get(i).getStartMark());
      }
      return items;
    }
    problems.add(
        node.getStartMark(), path, Messages.expected("a list like [a, b]", describe(node, path)));
    return null;
  }

  /** Returns a list of non-empty texts. */
  List<String> textList(Node node, String path) {
    List<Node> items = list(node, path);
    if (items == null) {
      return null;
    }
    List<String> texts = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < items.size(); i++) {
      String text = nonEmptyText(items.get(i), path + "[" + i + "]", "a list item");
      ok &= text != null;
      texts.add(text);
    }
    return ok ? texts : null;
  }

  /** Returns a scalar's text after environment substitution. */
  String text(Node node, String path) {
    if (!(node instanceof ScalarNode scalar)) {
      problems.add(
          node.getStartMark(), path, Messages.expected("a single value", describe(node, path)));
      return null;
    }
    boolean secretPath = Secrets.isSecretPath(path);
    if (secretPath) {
      problems.secret(scalar.getValue());
    }
    try {
      String text =
          EnvSubstitution.apply(
              scalar.getValue(),
              env,
              (name, value) -> {
                problems.referenced(name, value);
                if (secretPath) {
                  problems.secretReference(name, value);
                }
              });
      if (secretPath) {
        problems.secret(text);
      }
      return text;
    } catch (IllegalArgumentException e) {
      problems.add(node.getStartMark(), path, e.getMessage());
      return null;
    }
  }

  /** Returns a scalar's text, refusing an empty or blank one. */
  String nonEmptyText(Node node, String path, String what) {
    String text = text(node, path);
    if (text != null && text.isBlank()) {
      problems.add(node.getStartMark(), path, Messages.empty(what));
      return null;
    }
    return text;
  }

  /** Returns a whole number at least {@code min}. */
  Long integer(Node node, String path, long min) {
    String text = text(node, path);
    if (text == null) {
      return null;
    }
    long value;
    try {
      value = Long.parseLong(text.strip().replace("_", ""));
    } catch (NumberFormatException e) {
      problems.add(node.getStartMark(), path, Messages.notWholeNumber(text));
      return null;
    }
    if (value < min) {
      problems.add(node.getStartMark(), path, Messages.tooSmall(text, min));
      return null;
    }
    return value;
  }

  /** Returns {@code true} or {@code false} (case-insensitive). */
  Boolean bool(Node node, String path) {
    String text = text(node, path);
    if (text == null) {
      return null;
    }
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> {
        problems.add(node.getStartMark(), path, Messages.notBoolean(text));
        yield null;
      }
    };
  }

  /**
   * Converts a scalar's text with {@code parser}; an {@link IllegalArgumentException} from it
   * becomes a problem carrying its message.
   */
  <T> T convert(Node node, String path, Function<String, T> parser) {
    String text = text(node, path);
    if (text == null) {
      return null;
    }
    return convertText(node, path, text, parser);
  }

  /** Like {@link #convert} for text already read. */
  <T> T convertText(Node node, String path, String text, Function<String, T> parser) {
    try {
      return parser.apply(text);
    } catch (IllegalArgumentException e) {
      problems.add(node.getStartMark(), path, e.getMessage());
      return null;
    }
  }

  /** Records a problem at a node. */
  /**
   * One of {@code values}, by its keyword (case-insensitive); else a problem naming the choices,
   * and null.
   */
  <E> E keyword(Node node, String path, String what, E[] values, Function<E, String> keyword) {
    String text = text(node, path);
    if (text == null) {
      return null;
    }
    String wanted = text.strip().toLowerCase(Locale.ROOT);
    for (E value : values) {
      if (keyword.apply(value).equals(wanted)) {
        return value;
      }
    }
    fail(
        node,
        path,
        Messages.oneOf(what + " '" + text + "'", Arrays.stream(values).map(keyword).toList()));
    return null;
  }

  void fail(Node node, String path, String message) {
    problems.add(node.getStartMark(), path, message);
  }

  /** Describes what was found; a scalar's text is shown unless it may be a secret. */
  private static String describe(Node node, String path) {
    if (node instanceof ScalarNode scalar
        && !Secrets.isSecretPath(path)
        && !scalar.getValue().contains("${")) {
      return "the value '" + scalar.getValue() + "'";
    }
    return "a " + YamlMap.kind(node);
  }
}
