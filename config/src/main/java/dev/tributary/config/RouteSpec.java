package dev.tributary.config;

import java.util.Objects;

/**
 * {@code sink.delta.route} and {@code max-routes}: each output row goes to the table at the sink's
 * path with {@code {route}} replaced by the value of {@code expression} for the row
 * (docs/PIPELINE_REFERENCE.md, "Routing to many tables").
 *
 * @param expression the SQL expression over the output row whose value names the row's table
 * @param maxRoutes how many tables the parent folder may hold (those already there and new ones); a
 *     row of a route beyond it is quarantined
 */
public record RouteSpec(String expression, int maxRoutes) {

  /** What {@code sink.delta.path} holds in place of the route value: its last segment. */
  public static final String PLACEHOLDER = "{route}";

  /** The default of {@code max-routes}. */
  public static final int DEFAULT_MAX_ROUTES = 1000;

  /** Checks the expression is not blank and the limit is at least one. */
  public RouteSpec {
    if (Objects.requireNonNull(expression, "expression").isBlank()) {
      throw new IllegalArgumentException("a route expression cannot be empty");
    }
    if (maxRoutes < 1) {
      throw new IllegalArgumentException("max-routes must be at least 1, got " + maxRoutes);
    }
  }
}
