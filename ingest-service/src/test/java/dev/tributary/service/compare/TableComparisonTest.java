package dev.tributary.service.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableComparisonTest {
  private static final List<String> COLUMNS = List.of("id", "name");

  @TempDir Path spill;

  @Test
  void wholeRowsAreComparedAsMultisetsLikeExceptAll() throws IOException {
    ComparisonResult r =
        compare(
            List.of(row(1, "a"), row(1, "a"), row(1, "a"), row(2, "b")),
            List.of(row(1, "a"), row(2, "b"), row(2, "b"), row(3, "c")),
            List.of());

    assertThat(r.rowsA()).isEqualTo(4);
    assertThat(r.rowsB()).isEqualTo(4);
    // A EXCEPT ALL B = {(1,a),(1,a)}; B EXCEPT ALL A = {(2,b),(3,c)}
    assertThat(r.onlyInA()).isEqualTo(2);
    assertThat(r.onlyInB()).isEqualTo(2);
    assertThat(r.samplesOnlyInA()).containsExactly("(1, 'a')");
    assertThat(r.samplesOnlyInB()).containsExactlyInAnyOrder("(2, 'b')", "(3, 'c')");
    assertThat(r.equal()).isFalse();
    assertThat(r.byKey()).isEmpty();
  }

  @Test
  void theSameRowsInAnotherOrderAreEqualAcrossManyPartitions() throws IOException {
    List<Object[]> a = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      a.add(row(i % 7_000, "n" + (i % 13)));
    }
    List<Object[]> b = new ArrayList<>(a);
    Collections.shuffle(b, new Random(7));
    // a budget of 4 KB spreads 20,000 rows over the most partitions there may be
    CompareOptions small = new CompareOptions(3, spill, 4096);

    ComparisonResult equal = TableComparison.compare(rows(a), rows(b), COLUMNS, List.of(), small);
    b.remove(b.size() - 1);
    ComparisonResult oneLess =
        TableComparison.compare(rows(a), rows(b), COLUMNS, List.of("id"), small);

    assertThat(equal.equal()).isTrue();
    assertThat(equal.onlyInA()).isZero();
    assertThat(equal.rowsA()).isEqualTo(20_000);
    assertThat(oneLess.onlyInA()).isEqualTo(1);
    assertThat(oneLess.onlyInB()).isZero();
    assertThat(oneLess.byKey().orElseThrow().changedKeys()).isEqualTo(1);
    try (Stream<Path> left = Files.list(spill)) {
      assertThat(left).as("the spill folder is removed").isEmpty();
    }
  }

  @Test
  void aNullEqualsANullButNotTheStringNull() throws IOException {
    ComparisonResult r =
        compare(
            List.of(row(1, null), new Object[] {null, null}, row(2, null)),
            List.of(row(1, null), new Object[] {null, null}, row(2, "null")),
            List.of());

    assertThat(r.onlyInA()).isEqualTo(1);
    assertThat(r.samplesOnlyInA()).containsExactly("(2, null)");
    assertThat(r.samplesOnlyInB()).containsExactly("(2, 'null')");
  }

  @Test
  void withAKeyChangedRowsAreThoseOfAKeyBothHaveWithOtherValues() throws IOException {
    ComparisonResult r =
        compare(
            List.of(row(1, "a"), row(2, "b"), row(3, "c"), row(5, "e"), row(5, "e")),
            List.of(row(1, "a"), row(2, "x"), row(4, "d"), row(5, "e")),
            List.of("id"));

    ComparisonResult.KeyDifferences k = r.byKey().orElseThrow();
    assertThat(k.keysOnlyInA()).isEqualTo(1);
    assertThat(k.keysOnlyInB()).isEqualTo(1);
    // key 2 has another name; key 5 has a duplicate in A: both are changed
    assertThat(k.changedKeys()).isEqualTo(2);
    assertThat(k.changes())
        .containsExactly(
            new ComparisonResult.Change("(2)", "(2, 'b')", "(2, 'x')"),
            new ComparisonResult.Change("(5)", "(5, 'e')", null));
    assertThat(k.duplicateKeysA()).isEqualTo(1);
    assertThat(k.duplicateKeysB()).isZero();
    assertThat(r.onlyInA()).isEqualTo(3);
    assertThat(r.onlyInB()).isEqualTo(2);
  }

  @Test
  void aNullKeyIsAKeyLikeAnyOther() throws IOException {
    ComparisonResult r =
        compare(
            List.of(new Object[] {null, "a"}, row(1, "b")),
            List.of(new Object[] {null, "z"}, row(1, "b")),
            List.of("id"));

    assertThat(r.byKey().orElseThrow().changedKeys()).isEqualTo(1);
    assertThat(r.byKey().orElseThrow().changes().get(0).key()).isEqualTo("(null)");
  }

  @Test
  void floatingPointIsNormalizedAsSparkGroupsItNegativeZeroAndNaN() throws IOException {
    List<String> columns = List.of("x");
    ComparisonResult r =
        TableComparison.compare(
            rows(List.of(new Object[] {-0.0d}, new Object[] {Double.NaN}, new Object[] {1.5d})),
            rows(List.of(new Object[] {0.0d}, new Object[] {-Double.NaN}, new Object[] {1.25d})),
            columns,
            List.of(),
            new CompareOptions(5, spill, 1 << 20));

    assertThat(r.onlyInA()).isEqualTo(1);
    assertThat(r.samplesOnlyInA()).containsExactly("(1.5)");
  }

  @Test
  void rowTextTellsValuesOfEveryShapeApart() {
    int[] all = {0};
    assertThat(RowText.of(new Object[] {"a', 'b"}, all))
        .isNotEqualTo(RowText.of(new Object[] {"a"}, new int[] {0}));
    assertThat(RowText.of(new Object[] {"it's"}, all)).isEqualTo("('it\\'s')");
    assertThat(RowText.of(new Object[] {new byte[] {1, (byte) 0xff}}, all)).isEqualTo("(x'01ff')");
    assertThat(RowText.of(new Object[] {List.of(1, 2)}, all))
        .isNotEqualTo(RowText.of(new Object[] {new Object[] {1, 2}}, all));
    assertThat(
            RowText.of(
                new Object[] {new java.util.LinkedHashMap<>(java.util.Map.of("a", 1, "b", 2))},
                all))
        .isEqualTo("(map('a' -> 1, 'b' -> 2))");
  }

  private ComparisonResult compare(List<Object[]> a, List<Object[]> b, List<String> key)
      throws IOException {
    return TableComparison.compare(
        rows(a), rows(b), COLUMNS, key, new CompareOptions(5, spill, 1 << 20));
  }

  private static Object[] row(Integer id, String name) {
    return new Object[] {id == null ? null : id.longValue(), name};
  }

  private static TableComparison.Rows rows(List<Object[]> rows) {
    return new TableComparison.Rows() {
      @Override
      public void forEach(Consumer<Object[]> sink) {
        rows.forEach(r -> sink.accept(Arrays.copyOf(r, r.length)));
      }

      @Override
      public long estimatedBytes() {
        return TableComparison.estimate(rows.size(), 2);
      }
    };
  }
}
