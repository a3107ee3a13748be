package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.BASE;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code source.kafka.keyed-by}: read, validated against the schema, part of the identity. */
class KeyedByConfigTest {

  private static final String DEDUP =
      "watermark: { column: event_time, delay: 10 minutes }\n"
          + "deduplicate: { keys: [order_id, event_time] }\n";

  private static String group(String keyedBy) {
    return BASE.replace(
            "topics: [orders]", "topics: [orders]\n    assignment: group\n    keyed-by: " + keyedBy)
        + DEDUP;
  }

  @Test
  void readsTheColumnsInOrderAndAddsThemToTheCheckpointIdentity() {
    PipelineSpec spec = parse(group("[order_id, amount]"));
    assertThat(spec.kafkaSource().orElseThrow().keyedBy()).containsExactly("order_id", "amount");
    assertThat(spec.checkpointIdentity()).containsEntry("source.keyed-by", "order_id,amount");
    PipelineSpec without =
        parse(BASE.replace("topics: [orders]", "topics: [orders]\n    assignment: group") + DEDUP);
    assertThat(without.kafkaSource().orElseThrow().keyedBy()).isEmpty();
    assertThat(without.checkpointIdentity()).doesNotContainKey("source.keyed-by");
  }

  @Test
  void refusesAnUnknownColumnNamingTheFileLineAndField() {
    assertThat(errors(group("[order_idd]")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:7:15: source.kafka.keyed-by: ")
        .contains("source.kafka.keyed-by")
        .contains("keyed-by column 'order_idd' is not a column of the pipeline")
        .contains("did you mean 'order_id'?");
  }

  @Test
  void refusesAnEmptyListAndADuplicate() {
    assertThat(errors(group("[]")))
        .singleElement()
        .asString()
        .contains("source.kafka.keyed-by")
        .contains("the keyed-by column list cannot be empty");
    assertThat(errors(group("[order_id, order_id]")))
        .singleElement()
        .asString()
        .contains("source.kafka.keyed-by")
        .contains("keyed-by lists 'order_id' twice");
  }

  @Test
  void refusesKeyedByWhereNothingWouldUseOrCheckIt() {
    String exclusive =
        BASE.replace("topics: [orders]", "topics: [orders]\n    keyed-by: [order_id]");
    assertThat(errors(exclusive + DEDUP))
        .singleElement()
        .asString()
        .contains("source.kafka.keyed-by")
        .contains("pipeline orders: keyed-by lets a stateful pipeline with assignment: group")
        .contains("the source is read exclusively");
    String stateless =
        BASE.replace(
            "topics: [orders]",
            "topics: [orders]\n    assignment: group\n    keyed-by: [order_id]");
    assertThat(errors(stateless))
        .singleElement()
        .asString()
        .contains("the pipeline has no deduplicate or aggregate");
  }
}
