package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code envelope: debezium} and {@code on-truncate}: values, defaults, errors at their line. */
class DebeziumConfigTest {

  /** The format's extra keys are added by each test from line 8, the sink's from line 14. */
  private static String pipeline(String formatKeys, String sinkKeys) {
    return """
        pipeline: customers
        source:
          kafka:
            bootstrap-servers: localhost:9092
            topics: [db.public.customers]
        format:
          json:
        %s    schema: { id: long, name: string, updated_at: timestamp }
        checkpoint: /c/customers
        sink:
          delta:
            path: /t/customers
        %s"""
        .formatted(formatKeys, sinkKeys);
  }

  private static final String UPSERT = "    write: upsert\n    key: [id]\n";

  @Test
  void aDebeziumEnvelopeAddsTheOperationAndSourceTimeColumns() {
    PipelineSpec spec = parse(pipeline("    envelope: debezium\n", ""));
    JsonFormatSpec json = (JsonFormatSpec) spec.format().orElseThrow();
    assertThat(json.envelope())
        .isEqualTo(EnvelopeSpec.debezium(EnvelopeSpec.OnTruncate.FAIL))
        .isNotEqualTo(EnvelopeSpec.NONE);
    assertThat(json.schema())
        .extracting(ColumnSpec::name)
        .containsExactly("id", "name", "updated_at");
    assertThat(json.columns())
        .extracting(ColumnSpec::name)
        .containsExactly("id", "name", "updated_at", "_op", "_source_ts");
    assertThat(json.column("_source_ts").orElseThrow().type())
        .isEqualTo(ColumnType.Primitive.TIMESTAMP);
    assertThat(
            parse(pipeline("    envelope: debezium\n    on-truncate: skip\n", ""))
                .format()
                .orElseThrow()
                .envelope()
                .onTruncate())
        .isEqualTo(EnvelopeSpec.OnTruncate.SKIP);
    assertThat(parse(pipeline("    envelope: none\n", "")).format().orElseThrow().columns())
        .hasSize(3);
    assertThat(parse(pipeline("", "")).format().orElseThrow().envelope())
        .isEqualTo(EnvelopeSpec.NONE);
  }

  @Test
  void anUpsertOfDebeziumEventsDeletesOnOpDByDefault() {
    UpsertSpec defaulted =
        parse(pipeline("    envelope: debezium\n", UPSERT)).sink().upsert().orElseThrow();
    assertThat(defaulted.deleteWhen()).contains("_op = 'd'");
    UpsertSpec declared =
        parse(
                pipeline(
                    "    envelope: debezium\n",
                    UPSERT + "    delete-when: \"_op = 'd' OR name IS NULL\"\n"))
            .sink()
            .upsert()
            .orElseThrow();
    assertThat(declared.deleteWhen()).contains("_op = 'd' OR name IS NULL");
    assertThat(parse(pipeline("", UPSERT)).sink().upsert().orElseThrow().deleteWhen()).isEmpty();
    assertThat(
            parse(pipeline("    envelope: debezium\n", UPSERT + "    sequence-by: _source_ts\n"))
                .sink()
                .upsert()
                .orElseThrow()
                .sequenceBy())
        .isEqualTo(Optional.of("_source_ts"));
  }

  @Test
  void anAppendingSinkOfDebeziumEventsHasNoDeleteWhen() {
    assertThat(parse(pipeline("    envelope: debezium\n", "")).sink().upsert()).isEmpty();
    assertThat(errors(pipeline("    envelope: debezium\n", "    delete-when: \"_op = 'd'\"\n")))
        .containsExactly(
            "orders.yaml:14:5: sink.delta.delete-when: delete-when applies to write: upsert, but"
                + " this sink appends (write: append is the default), where it would be ignored;"
                + " add write: upsert with key: [<key columns>], or remove delete-when");
  }

  @Test
  void anUnknownEnvelopeOrTruncateChoiceNamesTheChoices() {
    assertThat(errors(pipeline("    envelope: maxwell\n", "")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:8:15: format.json.envelope:")
        .contains("maxwell", "none", "debezium");
    assertThat(errors(pipeline("    envelope: debezium\n    on-truncate: ignore\n", "")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:9:18: format.json.on-truncate:")
        .contains("fail", "skip");
  }

  @Test
  void onTruncateWithoutAnEnvelopeIsRefused() {
    assertThat(errors(pipeline("    on-truncate: skip\n", "")))
        .containsExactly(
            "orders.yaml:8:5: format.json.on-truncate: on-truncate applies to envelope: debezium,"
                + " but this format has no envelope (envelope: none is the default), where it would"
                + " be ignored; add envelope: debezium, or remove on-truncate");
  }

  @Test
  void aSchemaThatDeclaresTheEventInsteadOfTheRowIsRefused() {
    String yaml =
        pipeline("    envelope: debezium\n", "")
            .replace(
                "schema: { id: long, name: string, updated_at: timestamp }",
                "schema: { op: string, after.id: long, _op: string }");
    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:9:27: format.json.schema.after.id: with envelope: debezium the schema"
                + " declares the row's columns, which are read from the event's after (before for a"
                + " delete), not the event's fields; declare 'id' instead of 'after.id'",
            "orders.yaml:9:43: format.json.schema._op: column '_op' is added by envelope: debezium"
                + " (_op: the operation c/u/d/r, _source_ts: the time of the change in the"
                + " database); rename the declared column");
  }

  @Test
  void anEnvelopeOnProtobufIsRefused() {
    String yaml =
        pipeline("", "")
            .replace(
                "  json:\n    schema: { id: long, name: string, updated_at: timestamp }",
                "  protobuf:\n    message: db.Customer\n    registry: { url: http://localhost:8081"
                    + " }\n    envelope: debezium\n    schema: { id: long }");
    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:10:15: format.protobuf.envelope: envelope: debezium is not available for"
                + " protobuf: Debezium change events are read from JSON (format.json) or Avro"
                + " (format.avro); configure the connector with the JSON or Avro converter, or"
                + " remove envelope");
    assertThat(parse(yaml.replace("envelope: debezium", "envelope: none")).format())
        .containsInstanceOf(ProtobufFormatSpec.class);
  }

  @Test
  void anAvroFormatTakesTheEnvelopeToo() {
    String yaml =
        pipeline("", UPSERT)
            .replace(
                "  json:\n    schema: { id: long, name: string, updated_at: timestamp }",
                "  avro:\n    registry: { url: http://localhost:8081 }\n    envelope: debezium\n"
                    + "    on-truncate: skip\n    schema: { id: long, name: string }");
    PipelineSpec spec = parse(yaml);
    AvroFormatSpec avro = (AvroFormatSpec) spec.format().orElseThrow();
    assertThat(avro.envelope()).isEqualTo(EnvelopeSpec.debezium(EnvelopeSpec.OnTruncate.SKIP));
    assertThat(avro.columns())
        .extracting(ColumnSpec::name)
        .containsExactly("id", "name", "_op", "_source_ts");
    assertThat(spec.sink().upsert().orElseThrow().deleteWhen()).contains("_op = 'd'");
  }

  @Test
  void schemaEvolutionIsRefusedWithAnEnvelope() {
    assertThat(
            errors(
                pipeline("    envelope: debezium\n", "") + "schema-evolution: { rescue: true }\n"))
        .singleElement()
        .asString()
        .contains(
            "schema-evolution: schema-evolution is not available with envelope: debezium yet");
  }

  @Test
  void aDebeziumHistoryIsDatedByTheSourceTime() {
    PipelineSpec spec =
        parse(
            pipeline(
                "    envelope: debezium\n",
                UPSERT + "    sequence-by: _source_ts\n    history: scd2\n"));
    UpsertSpec upsert = spec.sink().upsert().orElseThrow();
    assertThat(upsert.history()).isEqualTo(UpsertSpec.History.SCD2);
    assertThat(upsert.sequenceBy()).contains("_source_ts");
    assertThat(upsert.deleteWhen()).contains("_op = 'd'");
  }
}
