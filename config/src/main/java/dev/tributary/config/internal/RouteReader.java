package dev.tributary.config.internal;

import dev.tributary.config.RouteSpec;
import java.util.List;
import java.util.Optional;

/**
 * Reads {@code sink.delta.route} and {@code max-routes} (docs/PIPELINE_REFERENCE.md, "Routing to
 * many tables") and checks them against the sink's {@code path}: {@code {route}} in the path and
 * {@code route} come together, and {@code {route}} is the path's last segment, once.
 */
final class RouteReader {
  private final YamlNodes nodes;

  RouteReader(YamlNodes nodes) {
    this.nodes = nodes;
  }

  /**
   * Reads the route keys of {@code delta} (the {@code sink.delta} mapping, not finished here).
   *
   * @param tablePath the declared {@code path}, or null when it is invalid (reported)
   * @return empty for a sink of one table; null when a key is invalid (reported)
   */
  Optional<RouteSpec> read(YamlMap delta, String tablePath) {
    String expression =
        delta.read(
            "route", n -> nodes.nonEmptyText(n, delta.child("route"), "the route expression"), "");
    Long max =
        delta.read(
            "max-routes",
            n -> nodes.integer(n, delta.child("max-routes"), 1),
            (long) RouteSpec.DEFAULT_MAX_ROUTES);
    if (expression == null || max == null) {
      return null;
    }
    boolean routed = !expression.isEmpty();
    if (max > Integer.MAX_VALUE) {
      nodes.problems().atValue(delta.child("max-routes"), RouteMessages.tooManyRoutes(max));
      return null;
    }
    if (!routed && !delta.present(List.of("max-routes")).isEmpty()) {
      nodes.problems().atKey(delta.child("max-routes"), RouteMessages.maxRoutesWithoutRoute());
      return null;
    }
    if (tablePath == null) {
      return routed ? null : Optional.empty();
    }
    int at = tablePath.indexOf(RouteSpec.PLACEHOLDER);
    if (!routed) {
      if (at >= 0) {
        nodes.problems().atValue(delta.child("path"), RouteMessages.placeholderWithoutRoute());
        return null;
      }
      return Optional.empty();
    }
    if (at < 0) {
      nodes
          .problems()
          .atKey(delta.child("route"), RouteMessages.routeWithoutPlaceholder(tablePath));
      return null;
    }
    if (!tablePath.endsWith("/" + RouteSpec.PLACEHOLDER)
        || at != tablePath.length() - RouteSpec.PLACEHOLDER.length()) {
      nodes.problems().atValue(delta.child("path"), RouteMessages.placeholderNotLast(tablePath));
      return null;
    }
    return Optional.of(new RouteSpec(expression.strip(), max.intValue()));
  }
}
