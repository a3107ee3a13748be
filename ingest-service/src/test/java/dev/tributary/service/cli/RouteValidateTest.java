package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} on a routed pipeline: the plan names the route; a {@code {route}} without {@code
 * route}, a route that does not compile or is not a scalar, and a stateful routed pipeline exit 1
 * naming the file, line and key.
 */
class RouteValidateTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  private static final String BASE =
      """
      pipeline: cdc
      source: { kafka: { bootstrap-servers: localhost:9092, topic-pattern: "shop-.*" } }
      format: { json: { schema: { id: long, name: string } } }
      sink:
        delta:
          path: /tmp/lake/silver/{route}
          route: _kafka_topic
          max-routes: 50
      checkpoint: /tmp/checkpoints/cdc
      """;

  private int validate(String yaml) throws Exception {
    return cli.validate(dir.resolve("cdc.yaml"), yaml);
  }

  private String err() {
    return cli.err();
  }

  @Test
  void thePlanShowsTheRouteAndTheQuarantineBesideTheFolder() throws Exception {
    assertThat(validate(BASE)).as(err()).isZero();
    assertThat(cli.out())
        .contains(
            "route:       one table per value of _kafka_topic under /tmp/lake/silver, at most 50")
        .contains("delta /tmp/lake/silver-quarantine");
  }

  @Test
  void aPlaceholderWithoutRouteIsNamedAtItsLine() throws Exception {
    assertThat(validate(BASE.replace("    route: _kafka_topic\n    max-routes: 50\n", "")))
        .isEqualTo(1);
    assertThat(err())
        .contains("cdc.yaml:6:11: sink.delta.path: the path names {route} but no route");
  }

  @Test
  void aRouteThatDoesNotCompileIsNamedWithTheOutputColumns() throws Exception {
    assertThat(validate(BASE.replace("route: _kafka_topic", "route: region"))).isEqualTo(1);
    assertThat(err())
        .contains(
            "sink.delta.route: unknown column 'region'; columns are id, name, _kafka_topic,"
                + " _kafka_partition, _kafka_offset, _kafka_timestamp");
  }

  @Test
  void aStatefulRoutedPipelineIsRefused() throws Exception {
    assertThat(validate(BASE + "deduplicate: { keys: [id] }\n")).isEqualTo(1);
    assertThat(err())
        .contains(
            "cdc.yaml:7:12: sink.delta.route: pipeline cdc declares deduplicate, but route is for"
                + " stateless pipelines");
  }
}
