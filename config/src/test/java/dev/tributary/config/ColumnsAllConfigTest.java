package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code format.avro.columns: all}: accepted with one routed Delta sink (upsert without key), and
 * refused with the reason where its per-writer-schema columns cannot work.
 */
class ColumnsAllConfigTest {
  private static final String HEAD =
      """
      pipeline: cdc
      source: { kafka: { bootstrap-servers: "localhost:9092", topic-pattern: "db\\\\..*" } }
      format:
        avro:
          registry: { url: "http://localhost:8081" }
          envelope: debezium
          columns: all
      checkpoint: /c/cdc
      """;

  private static final String ROUTED =
      HEAD + "sink: { delta: { path: \"/lake/{route}\", route: _kafka_topic, write: upsert } }\n";

  @Test
  void aRoutedUpsertTakesEveryWriterFieldAndTheRecordKey() {
    PipelineSpec spec = parse(ROUTED);
    assertThat(spec.format().orElseThrow().takesAllColumns()).isTrue();
    assertThat(spec.format().orElseThrow().columns())
        .extracting(ColumnSpec::name)
        .containsExactly("_op", "_source_ts");
    assertThat(spec.sink().upsert().orElseThrow().keyFromRecord()).isTrue();
    assertThat(spec.sink().upsert().orElseThrow().deleteWhen()).contains("_op = 'd'");
  }

  @Test
  void anUnroutedSinkASchemaBesideItAndAStatefulPartAreRefusedWithTheReason() {
    assertThat(errors(HEAD + "sink: { delta: { path: /lake/one } }\n"))
        .anyMatch(e -> e.contains("columns: all needs one routed Delta sink"));
    assertThat(errors(ROUTED.replace("columns: all", "columns: all\n    schema: { id: long }")))
        .anyMatch(e -> e.contains("schema cannot be declared with columns: all"));
    assertThat(errors(ROUTED.replace("columns: all", "columns: some")))
        .anyMatch(e -> e.contains("columns takes only all"));
    assertThat(
            errors(ROUTED + "aggregate: { group-by: [_kafka_topic], measures: { n: count() } }\n"))
        .anyMatch(e -> e.contains("aggregate cannot be used with columns: all"));
  }

  @Test
  void anUpsertWithoutKeyIsStillRefusedWithDeclaredColumns() {
    String declared = ROUTED.replace("columns: all", "schema: { id: long }");
    assertThat(errors(declared)).anyMatch(e -> e.contains("missing required key 'key'"));
  }
}
