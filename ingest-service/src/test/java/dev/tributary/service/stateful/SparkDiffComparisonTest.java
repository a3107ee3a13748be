package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The comparison rules of {@link SparkDifferentialIT}, without Spark. */
class SparkDiffComparisonTest {
  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  @Test
  void tablesAreComparedAsMultisets() {
    List<List<Object>> ours = List.of(row("a", 1L), row("a", 1L), row("b", null));
    assertThat(
            SparkDifferentialIT.mismatch(
                "t",
                "ours",
                ours,
                "spark",
                List.of(row("b", null), row("a", 1L), row("a", 1L)),
                Set.of()))
        .isEmpty();
    // one copy fewer is a difference, and so is a value of another type
    assertThat(
            SparkDifferentialIT.mismatch(
                "t", "ours", ours, "spark", List.of(row("a", 1L), row("b", null)), Set.of()))
        .get()
        .asString()
        .contains("only in ours's:\n  [a (String), 1 (Long)]");
    assertThat(
            SparkDifferentialIT.mismatch(
                "t", "ours", List.of(row("a", 1L)), "spark", List.of(row("a", 1)), Set.of()))
        .get()
        .asString()
        .contains("[a (String), 1 (Integer)]");
  }

  @Test
  void approximateColumnsAgreeWithinThreeStandardDeviations() {
    List<List<Object>> ours = List.of(row("u0", 100L, 5L), row("u1", 3L, 20L));
    assertThat(
            SparkDifferentialIT.mismatch(
                "t",
                "ours",
                ours,
                "spark",
                List.of(row("u1", 3L, 18L), row("u0", 100L, 5L)),
                Set.of(2)))
        .isEmpty();
    // the other columns stay exact
    assertThat(
            SparkDifferentialIT.mismatch(
                "t",
                "ours",
                ours,
                "spark",
                List.of(row("u1", 4L, 20L), row("u0", 100L, 5L)),
                Set.of(2)))
        .isPresent();
    // small counts are exact
    assertThat(
            SparkDifferentialIT.mismatch(
                "t",
                "ours",
                ours,
                "spark",
                List.of(row("u1", 3L, 20L), row("u0", 100L, 4L)),
                Set.of(2)))
        .get()
        .asString()
        .contains("[u0 (String), 100 (Long), 5 (Long)]");
  }

  @Test
  void approxToleranceIsThreeTimesRsdOfTheLargerValue() {
    assertThat(SparkDifferentialIT.approxAgree(6L, 6L)).isTrue();
    assertThat(SparkDifferentialIT.approxAgree(6L, 5L)).isFalse();
    assertThat(SparkDifferentialIT.approxAgree(20L, 17L)).isTrue();
    assertThat(SparkDifferentialIT.approxAgree(20L, 16L)).isFalse();
    assertThat(SparkDifferentialIT.approxAgree(100L, 85L)).isTrue();
    assertThat(SparkDifferentialIT.approxAgree(100L, 84L)).isFalse();
    assertThat(SparkDifferentialIT.approxAgree(null, null)).isTrue();
    assertThat(SparkDifferentialIT.approxAgree(null, 0L)).isFalse();
  }

  @Test
  void batchCutsAreComparedWithoutTheirWatermarks() {
    assertThat(
            SparkDifferentialIT.rowsOnly(
                "[90@-,90@2026-01-01T00:30:58Z,0@2026-01-01T01:00:00Z][3@x]"))
        .isEqualTo("[90,90,0][3]");
  }
}
