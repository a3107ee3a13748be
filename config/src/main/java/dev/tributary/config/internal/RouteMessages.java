package dev.tributary.config.internal;

/** The messages of {@code sink.delta.route} and the rules that relate it to other parts. */
final class RouteMessages {
  private RouteMessages() {}

  static String placeholderWithoutRoute() {
    return "the path names {route} but no route says what it is; add route: \"_kafka_topic\" (an"
        + " SQL expression over the output row: each row goes to the table named by its value), or"
        + " remove {route} from the path";
  }

  static String routeWithoutPlaceholder(String path) {
    return "route is declared but the path "
        + path
        + " has no {route}; end the path with /{route} (e.g. s3://lake/silver/{route}: one table"
        + " per route value under s3://lake/silver), or remove route";
  }

  static String placeholderNotLast(String path) {
    return "the path "
        + path
        + " must end with /{route}, once, as its last segment (e.g. s3://lake/silver/{route}): the"
        + " tables of the routes are the folders of s3://lake/silver";
  }

  static String maxRoutesWithoutRoute() {
    return "max-routes limits the tables of a routed sink, but this sink declares no route; add"
        + " route: \"_kafka_topic\" and end the path with /{route}, or remove max-routes";
  }

  static String tooManyRoutes(long max) {
    return "max-routes " + max + " is above the largest allowed, " + Integer.MAX_VALUE;
  }

  static String routeWithState(String pipeline, String part) {
    return "pipeline "
        + pipeline
        + " declares "
        + part
        + ", but route is for stateless pipelines: a stateful pipeline's results (windows, groups,"
        + " deduplicated rows) are one query, its state and its update or complete writes belong"
        + " to one table. Route the input with a stateless pipeline, or remove route and {route}";
  }

  static String routeInGroupMode(String pipeline) {
    return "pipeline "
        + pipeline
        + " shares its partitions (assignment: group), but a routed sink keeps no per-partition"
        + " positions across its tables to share them by; use assignment: exclusive, or remove"
        + " route";
  }

  static String routeWithEvolution() {
    return "schema-evolution is not supported with route yet: every routed table is created with"
        + " the pipeline's output columns. Remove schema-evolution, or declare the columns";
  }

  static String routeStartingFromTable() {
    return "starting-offsets: table continues after the positions one Delta table recorded, but a"
        + " routed sink writes many; use earliest, latest or per-partition offsets";
  }

  static String routeAmongSinks() {
    return "route is not supported in a list of sinks yet; declare the routed Delta table as the"
        + " only sink (sink: { delta: { path: …/{route}, route: … } })";
  }
}
