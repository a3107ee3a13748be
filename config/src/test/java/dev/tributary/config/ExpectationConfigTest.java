package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.ExpectationSpec.OnViolation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code expectations} list: values, the default action, errors at their line. */
class ExpectationConfigTest {
  /** Lines 1-9; the expectations follow from line 10. */
  private static final String HEAD =
      """
      pipeline: orders
      source: { kafka: { bootstrap-servers: localhost:9092, topics: [orders] } }
      format:
        json:
          schema: { id: long, amount: long }
      sink:
        delta: { path: /t/orders }
      checkpoint: /c/orders
      expectations:
      """;

  @Test
  void readsEachRuleWithWarnAsTheDefault() {
    PipelineSpec spec =
        parse(
            HEAD
                + "  - { name: positive_amount, check: \"amount > 0\", on-violation: quarantine }\n"
                + "  - name: has_id\n    check: id IS NOT NULL\n");
    assertThat(spec.expectations())
        .containsExactly(
            new ExpectationSpec("positive_amount", "amount > 0", OnViolation.QUARANTINE),
            new ExpectationSpec("has_id", "id IS NOT NULL", OnViolation.WARN));
  }

  @Test
  void noExpectationsIsAnEmptyList() {
    assertThat(parse(HEAD.replace("expectations:\n", "")).expectations()).isEmpty();
  }

  @Test
  void refusesBadNamesDuplicatesMissingChecksAndUnknownActions() {
    List<String> errors =
        errors(
            HEAD
                + "  - { name: \"bad name\", check: \"amount > 0\" }\n"
                + "  - { name: twice, check: \"amount > 0\" }\n"
                + "  - { name: twice, check: \"id > 0\" }\n"
                + "  - { name: no_check }\n"
                + "  - { name: loud, check: \"id > 0\", on-violation: shout }\n"
                + "  - { name: typo, check: \"id > 0\", on-violaton: drop }\n");
    assertThat(errors)
        .anySatisfy(
            e ->
                assertThat(e)
                    .startsWith("orders.yaml:10:")
                    .contains("'bad name' is not a valid expectation name"))
        .anySatisfy(
            e -> assertThat(e).startsWith("orders.yaml:12:").contains("'twice' is declared twice"))
        .anySatisfy(e -> assertThat(e).startsWith("orders.yaml:13:").contains("check"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .startsWith("orders.yaml:14:")
                    .contains("shout")
                    .contains("quarantine"))
        .anySatisfy(e -> assertThat(e).startsWith("orders.yaml:15:").contains("on-violaton"));
  }
}
