package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code sink.delta.route} and {@code max-routes}: read with their default, checked against the
 * path and the rest of the pipeline, errors at their line.
 */
class RouteConfigTest {

  /** Lines 1-12: a stateless pipeline; the sink section is added by each test from line 13. */
  static final String HEAD =
      """
      pipeline: cdc
      source:
        kafka:
          bootstrap-servers: localhost:9092
          topic-pattern: "shop\\\\..*"
      format:
        json:
          schema:
            id: long
            name: string
      checkpoint: /c/cdc
      output-mode: append
      """;

  static String sink(String path, String keys) {
    return HEAD + "sink:\n  delta:\n    path: " + path + "\n" + keys;
  }

  @Test
  void readsTheRouteWithItsDefaultLimitAndPutsTheQuarantineBesideTheFolder() {
    PipelineSpec spec = parse(sink("s3://lake/silver/{route}", "    route: _kafka_topic\n"));
    assertThat(spec.sink().route()).contains(new RouteSpec("_kafka_topic", 1000));
    assertThat(spec.sink().tablesFolder()).isEqualTo("s3://lake/silver");
    assertThat(spec.sink().tablePath("shop.orders")).isEqualTo("s3://lake/silver/shop.orders");
    assertThat(spec.quarantine().path()).isEqualTo("s3://lake/silver-quarantine");
    assertThat(
            parse(sink("s3://lake/silver/{route}", "    route: name\n    max-routes: 3\n"))
                .sink()
                .route())
        .contains(new RouteSpec("name", 3));
    assertThat(parse(sink("s3://lake/silver/one", "")).sink().route()).isEmpty();
  }

  @Test
  void aPlaceholderWithoutRouteAndARouteWithoutPlaceholderAreRefusedAtTheirLine() {
    assertThat(errors(sink("s3://lake/silver/{route}", "")))
        .containsExactly(
            "orders.yaml:15:11: sink.delta.path: the path names {route} but no route says what it"
                + " is; add route: \"_kafka_topic\" (an SQL expression over the output row: each"
                + " row goes to the table named by its value), or remove {route} from the path");
    assertThat(errors(sink("s3://lake/silver", "    route: _kafka_topic\n")))
        .containsExactly(
            "orders.yaml:16:5: sink.delta.route: route is declared but the path s3://lake/silver"
                + " has no {route}; end the path with /{route} (e.g. s3://lake/silver/{route}: one"
                + " table per route value under s3://lake/silver), or remove route");
    assertThat(errors(sink("s3://lake/{route}/silver", "    route: _kafka_topic\n")))
        .singleElement()
        .asString()
        .startsWith(
            "orders.yaml:15:11: sink.delta.path: the path s3://lake/{route}/silver must end with"
                + " /{route}, once, as its last segment");
  }

  @Test
  void maxRoutesIsAtLeastOneAndOnlyWithARoute() {
    assertThat(errors(sink("s3://lake/silver/{route}", "    route: name\n    max-routes: 0\n")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:17:17: sink.delta.max-routes: ");
    assertThat(errors(sink("s3://lake/silver/t", "    max-routes: 5\n")))
        .containsExactly(
            "orders.yaml:16:5: sink.delta.max-routes: max-routes limits the tables of a routed"
                + " sink, but this sink declares no route; add route: \"_kafka_topic\" and end the"
                + " path with /{route}, or remove max-routes");
  }

  @Test
  void aStatefulPipelineOrGroupModeCannotRoute() {
    String stateful =
        sink("s3://lake/silver/{route}", "    route: name\n") + "deduplicate: { keys: [id] }\n";
    assertThat(errors(stateful))
        .anyMatch(
            e ->
                e.startsWith(
                    "orders.yaml:16:12: sink.delta.route: pipeline cdc declares"
                        + " deduplicate, but route is for stateless pipelines"));
    String group =
        sink("s3://lake/silver/{route}", "    route: name\n")
            .replace("topic-pattern:", "assignment: group\n    topic-pattern:");
    assertThat(errors(group))
        .anyMatch(e -> e.contains("sink.delta.route: pipeline cdc shares its partitions"));
  }

  @Test
  void maintenanceSchedulesAreAcceptedAndAListOfSinksIsRefusedWithARoute() {
    String maintenance =
        sink("s3://lake/silver/{route}", "    route: name\n")
            + "maintenance:\n  compaction: { schedule: \"0 0 * * * *\" }\n";
    assertThat(parse(maintenance).maintenance().compaction()).isPresent();
    String list =
        HEAD
            + "sinks:\n  - delta: { path: \"s3://lake/silver/{route}\", route: name }\n"
            + "  - kafka: { topic: out }\n";
    assertThat(errors(list))
        .containsExactly(
            "orders.yaml:13:1: sinks: route is not supported in a list of sinks yet; declare the"
                + " routed Delta table as the only sink (sink: { delta: { path: …/{route}, route: …"
                + " } })");
  }
}
