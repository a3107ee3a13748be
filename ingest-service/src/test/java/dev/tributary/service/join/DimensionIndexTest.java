package dev.tributary.service.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class DimensionIndexTest {
  private static final int[] FIRST = {0};

  private static DimensionIndex index(int[] keys, Object[]... rows) {
    return DimensionIndex.build(7, List.of(rows).iterator(), keys, new int[] {2});
  }

  @Test
  void returnsEveryRowOfAKeyInTableOrderAndOnlyTheAddedColumns() {
    DimensionIndex index =
        index(
            FIRST,
            new Object[] {"a", 1L, "x"},
            new Object[] {"b", 2L, "y"},
            new Object[] {"a", 3L, "z"});

    assertThat(index.matches(new Object[] {"a"}, FIRST))
        .containsExactly(new Object[] {"x"}, new Object[] {"z"});
    assertThat(index.matches(new Object[] {"b"}, FIRST)).containsExactly(new Object[] {"y"});
    assertThat(index.matches(new Object[] {"c"}, FIRST)).isEmpty();
    assertThat(index.version()).isEqualTo(7);
    assertThat(index.rows()).isEqualTo(3);
  }

  @Test
  void aNullKeyNeverMatchesOnEitherSide() {
    int[] both = {0, 1};
    DimensionIndex index =
        index(
            both,
            new Object[] {null, 1L, "x"},
            new Object[] {"a", null, "y"},
            new Object[] {"a", 1L, "z"});

    assertThat(index.rows()).isEqualTo(1);
    assertThat(index.matches(new Object[] {"a", 1L}, both)).containsExactly(new Object[] {"z"});
    assertThat(index.matches(new Object[] {"a", null}, both)).isEmpty();
    assertThat(index.matches(new Object[] {null, 1L}, both)).isEmpty();
    assertThat(index(FIRST, new Object[] {null, 1L, "x"}).matches(new Object[] {null}, FIRST))
        .isEmpty();
  }

  @Test
  void keysCompareByValueWithSeveralColumnsAndAcrossDecimalScales() {
    int[] both = {0, 1};
    DimensionIndex index = index(both, new Object[] {"a", new BigDecimal("1.50"), "x"});

    assertThat(index.matches(new Object[] {new String("a"), new BigDecimal("1.5")}, both))
        .hasSize(1);
    assertThat(index.matches(new Object[] {"a", new BigDecimal("1.51")}, both)).isEmpty();
  }
}
