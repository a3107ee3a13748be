package dev.tributary.service.sink.route;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which route values name a table folder, and the reasons given for the others. */
class RouteNamesTest {

  @Test
  void topicNamesAndNumbersNameAFolder() {
    for (Object ok :
        new Object[] {
          "orders", "dbserver1.inventory.customers", "a", "A-1_b.c", 42L, "x".repeat(200)
        }) {
      assertThat(RouteNames.problem(ok, "r")).as(String.valueOf(ok)).isNull();
    }
  }

  @Test
  void nullEmptyLongAndUnsafeValuesAreRefusedWithTheValueAndTheReason() {
    assertThat(RouteNames.problem(null, "_kafka_topic"))
        .isEqualTo(
            "route (_kafka_topic) is null for this row; a row without a route value has no table"
                + " to go to");
    assertThat(RouteNames.problem("", "r"))
        .isEqualTo("route value '' (of r) cannot name a table folder: it is empty");
    assertThat(RouteNames.problem("x".repeat(201), "r"))
        .endsWith("cannot name a table folder: it is longer than 200 characters");
    for (String bad :
        new String[] {"a/b", "..", ".", ".hidden", "_delta_log", "-x", "a b", "é", "a\\b", "x:y"}) {
      assertThat(RouteNames.problem(bad, "r"))
          .as(bad)
          .isEqualTo(
              "route value '"
                  + bad
                  + "' (of r) cannot name a table folder: a table folder name holds only letters,"
                  + " digits, '.', '_' and '-' and starts with a letter or digit");
    }
    assertThat(RouteNames.problem("a\nb", "r")).startsWith("route value 'a\\u000ab' (of r)");
  }
}
