package dev.tributary.config.internal;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.DeduplicateSpec;
import dev.tributary.config.Durations;
import dev.tributary.config.ExpressionBounds;
import dev.tributary.config.Measure;
import dev.tributary.config.TransformStep;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.config.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the query sections: {@code transform}, {@code watermark}, {@code deduplicate}, {@code
 * aggregate}.
 */
final class QueryReader {

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final YamlNodes nodes;

  QueryReader(YamlNodes nodes) {
    this.nodes = nodes;
  }

  /** Returns the steps, empty when absent, or null when invalid. */
  List<TransformStep> transforms(YamlMap root) {
    Node node = root.optional("transform").orElse(null);
    if (node == null) {
      return List.of();
    }
    List<Node> items = nodes.list(node, "transform");
    if (items == null) {
      return null;
    }
    List<TransformStep> steps = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < items.size(); i++) {
      TransformStep step = step(items.get(i), "transform[" + i + "]");
      ok &= step != null;
      steps.add(step);
    }
    return ok ? steps : null;
  }

  private TransformStep step(Node node, String path) {
    YamlMap map = nodes.map(node, path, "transform[]");
    if (map == null) {
      return null;
    }
    List<String> kinds = map.present(List.of("filter", "derive"));
    TransformStep step = null;
    if (kinds.isEmpty() && map.hasOtherKeys(kinds)) {
      // Only an unknown key, probably a typo of filter or derive: finish() reports it with a
      // suggestion.
      map.optional("filter");
      map.optional("derive");
    } else if (kinds.size() != 1) {
      nodes.fail(node, path, Messages.transformStep(kinds));
      map.optional("filter");
      map.optional("derive");
    } else if (kinds.get(0).equals("filter")) {
      Node expression = map.required("filter", "filter: \"amount_cents > 0\"");
      String text =
          expression == null
              ? null
              : nodes.nonEmptyText(expression, path + ".filter", "a filter expression");
      text = withinBounds(text, expression, path + ".filter");
      step = text == null ? null : new TransformStep.Filter(text);
    } else {
      Node derive = map.required("derive", "derive: { amount: \"amount_cents / 100.0\" }");
      step = derive == null ? null : derive(derive, path + ".derive");
    }
    map.finish();
    return step;
  }

  /** The expression, or null (reported at its node) if it is too large to compile safely. */
  private String withinBounds(String expression, Node node, String path) {
    if (expression == null) {
      return null;
    }
    var violation = ExpressionBounds.check(expression);
    if (violation.isPresent()) {
      nodes.fail(
          node,
          path,
          violation.get().reason() + " (at character " + violation.get().position() + ")");
      return null;
    }
    return expression;
  }

  private TransformStep derive(Node node, String path) {
    YamlMap map = nodes.map(node, path, null);
    if (map == null) {
      return null;
    }
    Map<String, Node> entries = map.all();
    if (entries.isEmpty()) {
      nodes.fail(node, path, Messages.empty("a derive step"));
      return null;
    }
    Map<String, String> columns = new LinkedHashMap<>();
    boolean ok = true;
    for (Map.Entry<String, Node> entry : entries.entrySet()) {
      String column = map.child(entry.getKey());
      if (!IDENTIFIER.matcher(entry.getKey()).matches()) {
        nodes.problems().atKey(column, Messages.badDerivedName("derived column", entry.getKey()));
        ok = false;
      }
      String expression =
          YamlNodes.isNull(entry.getValue()) ? "" : nodes.text(entry.getValue(), column);
      if (expression != null && expression.isBlank()) {
        nodes.problems().atKey(column, Messages.empty("a derive expression"));
        expression = null;
      }
      expression = withinBounds(expression, entry.getValue(), column);
      ok &= expression != null;
      columns.put(entry.getKey(), expression);
    }
    return ok ? new TransformStep.Derive(columns) : null;
  }

  WatermarkSpec watermark(YamlMap root) {
    YamlMap map = optionalSection(root, "watermark");
    if (map == null) {
      return null;
    }
    String column = column(map, "column", "column: event_time");
    Node delayNode = map.required("delay", "delay: 15 minutes");
    Duration delay =
        delayNode == null ? null : nodes.convert(delayNode, "watermark.delay", Durations::parse);
    if (delay != null && delay.isNegative()) {
      nodes.fail(delayNode, "watermark.delay", Messages.notPositive("the delay"));
      delay = null;
    }
    WatermarkSpec.Policy policy =
        map.read(
            "policy",
            n ->
                nodes.keyword(
                    n,
                    "watermark.policy",
                    "watermark policy",
                    WatermarkSpec.Policy.values(),
                    WatermarkSpec.Policy::keyword),
            WatermarkSpec.Policy.GLOBAL);
    Optional<Node> idleNode = map.optional("idle-timeout");
    Duration idleTimeout =
        idleNode.map(n -> positiveDuration(n, "watermark.idle-timeout")).orElse(null);
    WatermarkSpec.Multiple multiple =
        map.read("multiple", this::multiple, WatermarkSpec.Multiple.MIN);
    map.finish();
    return column == null
            || delay == null
            || policy == null
            || multiple == null
            || (idleNode.isPresent() && idleTimeout == null)
        ? null
        : new WatermarkSpec(column, delay, policy, Optional.ofNullable(idleTimeout), multiple);
  }

  /** {@code watermark.multiple}: min or max, refused otherwise with Spark's words (R6). */
  private WatermarkSpec.Multiple multiple(Node node) {
    String text = nodes.text(node, "watermark.multiple");
    if (text == null) {
      return null;
    }
    for (WatermarkSpec.Multiple value : WatermarkSpec.Multiple.values()) {
      if (value.keyword().equals(text.strip().toLowerCase(Locale.ROOT))) {
        return value;
      }
    }
    nodes.fail(node, "watermark.multiple", StreamJoinMessages.unknownMultiple(text));
    return null;
  }

  /**
   * The watermark of a join's second input ({@code join[i].stream.watermark}): a column and a
   * delay; the global policy always (the input's partitions are read by one instance).
   *
   * @param path the section's key path, e.g. {@code join[0].stream.watermark}
   */
  WatermarkSpec inputWatermark(Node node, String path) {
    YamlMap map = nodes.map(node, path, "join[].stream.watermark");
    if (map == null) {
      return null;
    }
    String column = column(map, "column", "column: event_time");
    Node delayNode = map.required("delay", "delay: 10 minutes");
    Duration delay =
        delayNode == null ? null : nodes.convert(delayNode, path + ".delay", Durations::parse);
    if (delay != null && delay.isNegative()) {
      nodes.fail(delayNode, path + ".delay", Messages.notPositive("the delay"));
      delay = null;
    }
    map.finish();
    return column == null || delay == null ? null : new WatermarkSpec(column, delay);
  }

  DeduplicateSpec deduplicate(YamlMap root) {
    YamlMap map = optionalSection(root, "deduplicate");
    if (map == null) {
      return null;
    }
    Node keysNode = map.required("keys", "keys: [order_id]");
    List<String> keys = keysNode == null ? null : nodes.textList(keysNode, "deduplicate.keys");
    if (keys != null && keys.isEmpty()) {
      nodes.fail(keysNode, "deduplicate.keys", Messages.empty("the key list"));
      keys = null;
    }
    Boolean within =
        map.read(
            "within-watermark", n -> nodes.bool(n, "deduplicate.within-watermark"), Boolean.FALSE);
    map.finish();
    return keys == null || within == null ? null : new DeduplicateSpec(keys, within);
  }

  AggregateSpec aggregate(YamlMap root) {
    YamlMap map = optionalSection(root, "aggregate");
    if (map == null) {
      return null;
    }
    // Without a window the aggregation is a running one: one row per group-by key.
    Node windowNode = map.optional("window").orElse(null);
    WindowSpec window = windowNode == null ? null : window(windowNode);
    List<String> groupBy =
        map.read("group-by", n -> nodes.textList(n, "aggregate.group-by"), List.of());
    Node measuresNode = map.required("measures", "measures: { orders: count() }");
    Map<String, Measure> measures = measuresNode == null ? null : measures(measuresNode);
    map.finish();
    if ((windowNode != null && window == null) || groupBy == null || measures == null) {
      return null;
    }
    return new AggregateSpec(Optional.ofNullable(window), groupBy, measures);
  }

  private WindowSpec window(Node node) {
    YamlMap map = nodes.map(node, "aggregate.window", "aggregate.window");
    if (map == null) {
      return null;
    }
    String column = column(map, "column", "column: event_time");
    Node sizeNode = map.optional("size").orElse(null);
    Node slideNode = map.optional("slide").orElse(null);
    Node gapNode = map.optional("session-gap").orElse(null);
    Duration size = sizeNode == null ? null : positiveDuration(sizeNode, "aggregate.window.size");
    Duration slide =
        slideNode == null ? null : positiveDuration(slideNode, "aggregate.window.slide");
    Duration gap =
        gapNode == null ? null : positiveDuration(gapNode, "aggregate.window.session-gap");
    map.finish();
    if (sizeNode != null && gapNode != null) {
      nodes.fail(gapNode, "aggregate.window.session-gap", Messages.windowKind());
      return null;
    }
    if (slideNode != null && sizeNode == null) {
      nodes.fail(slideNode, "aggregate.window.slide", Messages.slideWithoutSize());
      return null;
    }
    if (sizeNode == null && gapNode == null) {
      nodes.problems().atKey("aggregate.window", Messages.windowMissing());
      return null;
    }
    if (column == null
        || (sizeNode != null && size == null)
        || (slideNode != null && slide == null)
        || (gapNode != null && gap == null)) {
      return null;
    }
    if (gap != null) {
      return new WindowSpec.Session(column, gap);
    }
    if (slide == null) {
      return new WindowSpec.Tumbling(column, size);
    }
    if (slide.compareTo(size) > 0) {
      nodes.fail(
          slideNode,
          "aggregate.window.slide",
          Messages.slideLargerThanSize(Durations.format(slide), Durations.format(size)));
      return null;
    }
    if (size.toNanos() % slide.toNanos() != 0) {
      nodes.fail(
          slideNode,
          "aggregate.window.slide",
          Messages.sizeNotMultipleOfSlide(Durations.format(size), Durations.format(slide)));
      return null;
    }
    return new WindowSpec.Sliding(column, size, slide);
  }

  private Map<String, Measure> measures(Node node) {
    YamlMap map = nodes.map(node, "aggregate.measures", null);
    if (map == null) {
      return null;
    }
    Map<String, Node> entries = map.all();
    if (entries.isEmpty()) {
      nodes.fail(node, "aggregate.measures", Messages.empty("the measures"));
      return null;
    }
    Map<String, Measure> measures = new LinkedHashMap<>();
    boolean ok = true;
    for (Map.Entry<String, Node> entry : entries.entrySet()) {
      String path = map.child(entry.getKey());
      if (!IDENTIFIER.matcher(entry.getKey()).matches()) {
        nodes.problems().atKey(path, Messages.badDerivedName("measure", entry.getKey()));
        ok = false;
      }
      Measure measure = nodes.convert(entry.getValue(), path, Measure::parse);
      ok &= measure != null;
      measures.put(entry.getKey(), measure);
    }
    return ok ? measures : null;
  }

  private String column(YamlMap map, String key, String example) {
    Node node = map.required(key, example);
    return node == null ? null : nodes.nonEmptyText(node, map.child(key), "the column");
  }

  Duration positiveDuration(Node node, String path) {
    Duration duration = nodes.convert(node, path, Durations::parse);
    if (duration != null && (duration.isZero() || duration.isNegative())) {
      nodes.fail(node, path, Messages.notPositive("the duration"));
      return null;
    }
    return duration;
  }

  private YamlMap optionalSection(YamlMap root, String key) {
    Node node = root.optional(key).orElse(null);
    return node == null ? null : nodes.map(node, key, key);
  }
}
