package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.BASE;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * {@code schema-evolution} and {@code quarantine.max-fraction}: defaults, values, errors at their
 * line.
 */
class SchemaEvolutionConfigTest {

  @Test
  void absentSectionsMeanNoEvolutionNoRescueAndNoLimit() {
    PipelineSpec spec = parse(BASE);
    assertThat(spec.schemaEvolution()).isEqualTo(SchemaEvolutionSpec.DEFAULT);
    assertThat(spec.schemaEvolution().addsColumns()).isFalse();
    assertThat(spec.quarantineLimit()).isEmpty();
    assertThat(spec.quarantine().path()).isEqualTo("/t/orders-quarantine");
  }

  @Test
  void readsModeRescueAndMaxFraction() {
    PipelineSpec spec =
        parse(
            BASE
                + """
        schema-evolution: { mode: add-columns, rescue: true }
        quarantine: { max-fraction: 0.05 }
        """);
    assertThat(spec.schemaEvolution())
        .isEqualTo(new SchemaEvolutionSpec(SchemaEvolutionSpec.Mode.ADD_COLUMNS, true));
    assertThat(spec.quarantineLimit()).contains(new QuarantineLimit(0.05));
    // max-fraction alone keeps the default quarantine table
    assertThat(spec.quarantine().path()).isEqualTo("/t/orders-quarantine");
  }

  @Test
  void maxFractionSitsBesideAnExplicitQuarantineTable() {
    PipelineSpec spec = parse(BASE + "quarantine: { delta: { path: /t/bad }, max-fraction: 1 }\n");
    assertThat(spec.quarantine().path()).isEqualTo("/t/bad");
    assertThat(spec.quarantineLimit()).contains(new QuarantineLimit(1.0));
  }

  @Test
  void refusesAFractionOutsideZeroToOneAtItsLine() {
    assertThat(errors(BASE + "quarantine: { max-fraction: 0 }\n"))
        .singleElement()
        .asString()
        .isEqualTo(
            "orders.yaml:19:29: quarantine.max-fraction: cannot use '0' as a fraction; write a number"
                + " above 0 and at most 1, e.g. 0.05 (5% of a batch's records)");
    assertThat(errors(BASE + "quarantine: { max-fraction: 1.5 }\n"))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:19:29: quarantine.max-fraction: cannot use '1.5' as a fraction");
    assertThat(errors(BASE + "quarantine: { max-fraction: lots }\n"))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:19:29: quarantine.max-fraction: cannot use 'lots' as a fraction");
  }

  @Test
  void refusesAnUnknownModeAndAnUnknownKey() {
    assertThat(errors(BASE + "schema-evolution: { mode: merge }\n"))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:19:27: schema-evolution.mode:")
        .contains("none", "add-columns");
    assertThat(errors(BASE + "schema-evolution: { rescu: true }\n"))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:19:21: schema-evolution.rescu:")
        .contains("rescue");
  }

  @Test
  void refusesSchemaEvolutionForAStatefulPipelineWithTheReason() {
    String aggregating =
        BASE
            + """
        watermark: { column: event_time, delay: 1 minute }
        aggregate:
          window: { column: event_time, size: 1 hour }
          group-by: [order_id]
          measures: { n: count() }
        schema-evolution: { mode: add-columns }
        """;
    assertThat(errors(aggregating.replace("partition-by: [day]", "partition-by: []")))
        .singleElement()
        .asString()
        .startsWith(
            "orders.yaml:24:1: schema-evolution: schema-evolution works for stateless pipelines only:"
                + " this pipeline declares aggregate");
    String deduplicating =
        BASE + "deduplicate: { keys: [order_id] }\nschema-evolution: { mode: add-columns }\n";
    assertThat(errors(deduplicating))
        .singleElement()
        .asString()
        .contains("this pipeline declares deduplicate");
    assertThat(
            errors(
                BASE + "deduplicate: { keys: [order_id] }\nschema-evolution: { rescue: true }\n"))
        .singleElement()
        .asString()
        .contains("this pipeline declares deduplicate");
  }

  @Test
  void reservesTheRescuedColumnName() {
    String yaml =
        BASE.replace("day: date", "day: date\n      _rescued_data: string")
            + "schema-evolution: { rescue: true }\n";
    assertThat(errors(yaml))
        .singleElement()
        .asString()
        .contains("format.json.schema._rescued_data: the column name _rescued_data is reserved");
  }

  @Test
  void theLimitChecksItsRange() {
    assertThat(new QuarantineLimit(0.05).exceededBy(5, 100)).isFalse();
    assertThat(new QuarantineLimit(0.05).exceededBy(6, 100)).isTrue();
    assertThat(new QuarantineLimit(0.05).exceededBy(0, 0)).isFalse();
    assertThatThrownBy(() -> new QuarantineLimit(0)).hasMessageContaining("(0, 1]");
  }

  private static final String JSON_FORMAT =
      """
      format:
        json:
          schema:
            order_id: string
            customer.id: string
            event_time: timestamp
            amount_cents: long
            day: date
      """;

  private static String withFormat(String format) {
    assertThat(BASE).contains(JSON_FORMAT);
    return BASE.replace(JSON_FORMAT, format);
  }

  @Test
  void acceptsBothModesAndRescueForAvro() {
    String avro =
        withFormat(
            """
        format:
          avro:
            registry: { url: "http://127.0.0.1:8081" }
            schema: { order_id: string, event_time: timestamp, amount_cents: long, day: date }
        """);
    PipelineSpec spec =
        parse(
            avro.replace("customer.id", "order_id")
                + "schema-evolution: { mode: add-columns, rescue: true }\n");
    assertThat(spec.schemaEvolution())
        .isEqualTo(new SchemaEvolutionSpec(SchemaEvolutionSpec.Mode.ADD_COLUMNS, true));

    assertThat(
            errors(
                avro.replace("day: date }", "day: date, _rescued_data: string }")
                    + "schema-evolution: { rescue: true }\n"))
        .singleElement()
        .asString()
        .contains("format.avro.schema._rescued_data: the column name _rescued_data is reserved");
  }

  @Test
  void protobufTakesRescueAndAddColumns() {
    String protobuf =
        withFormat(
            """
        format:
          protobuf:
            message: com.example.Order
            registry: { url: "http://127.0.0.1:8081" }
            schema: { order_id: string, event_time: timestamp, amount_cents: long, day: date }
        """);
    assertThat(parse(protobuf + "schema-evolution: { rescue: true }\n").schemaEvolution().rescue())
        .isTrue();

    SchemaEvolutionSpec both =
        parse(protobuf + "schema-evolution: { mode: add-columns, rescue: true }\n")
            .schemaEvolution();
    assertThat(both.addsColumns()).isTrue();
    assertThat(both.rescue()).isTrue();
    assertThat(
            parse(protobuf + "schema-evolution: { mode: add-columns }\n")
                .schemaEvolution()
                .addsColumns())
        .isTrue();
  }
}
