package dev.tributary.table.data;

import static dev.tributary.table.data.TestRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

class FileStatsTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("s", PrimitiveType.STRING),
          StructField.nullable("i", PrimitiveType.INTEGER),
          StructField.nullable("l", PrimitiveType.LONG),
          StructField.nullable("d", PrimitiveType.DOUBLE),
          StructField.nullable("b", PrimitiveType.BOOLEAN),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("dt", PrimitiveType.DATE),
          StructField.nullable("bin", PrimitiveType.BINARY),
          StructField.nullable("dec9", new DecimalType(9, 2)),
          StructField.nullable("dec18", new DecimalType(18, 3)),
          StructField.nullable("dec38", new DecimalType(38, 5)),
          StructField.nullable(
              "nested",
              StructType.of(
                  StructField.nullable("x", PrimitiveType.LONG),
                  StructField.nullable("name", PrimitiveType.STRING),
                  StructField.nullable("flag", PrimitiveType.BOOLEAN))));

  private final InMemoryObjectStore store = new InMemoryObjectStore();

  /** Property: for random data, the writer's stats equal a direct computation over the rows. */
  @RepeatedTest(5)
  void statsMatchADirectComputationOverRandomRows(RepetitionInfo repetition) throws Exception {
    Random random = new Random(1000 + repetition.getCurrentRepetition());
    List<Object[]> rows = new ArrayList<>();
    int n = 1 + random.nextInt(3000);
    for (int k = 0; k < n; k++) {
      rows.add(randomRow(random));
    }

    FileStats stats = write(SCHEMA, rows).stats();

    assertThat(stats.numRecords()).isEqualTo(n);
    Map<String, Object> min = new HashMap<>();
    Map<String, Object> max = new HashMap<>();
    Map<String, Object> nulls = new HashMap<>();
    expect(
        rows,
        0,
        "s",
        Comparator.comparing((String s) -> s, FileStatsTest::compareCodePoints),
        StringBounds::lowerBound,
        StringBounds::upperBound,
        min,
        max,
        nulls);
    expect(rows, 1, "i", Comparator.<Integer>naturalOrder(), v -> v, v -> v, min, max, nulls);
    expect(rows, 2, "l", Comparator.<Long>naturalOrder(), v -> v, v -> v, min, max, nulls);
    expect(rows, 3, "d", Comparator.<Double>naturalOrder(), v -> v, v -> v, min, max, nulls);
    nulls.put("b", countNulls(rows, r -> r[4]));
    expect(rows, 5, "ts", Comparator.<Instant>naturalOrder(), v -> v, v -> v, min, max, nulls);
    expect(rows, 6, "dt", Comparator.<LocalDate>naturalOrder(), v -> v, v -> v, min, max, nulls);
    nulls.put("bin", countNulls(rows, r -> r[7]));
    expect(rows, 8, "dec9", Comparator.<BigDecimal>naturalOrder(), v -> v, v -> v, min, max, nulls);
    expect(
        rows, 9, "dec18", Comparator.<BigDecimal>naturalOrder(), v -> v, v -> v, min, max, nulls);
    expect(
        rows, 10, "dec38", Comparator.<BigDecimal>naturalOrder(), v -> v, v -> v, min, max, nulls);
    List<Object[]> nestedRows =
        rows.stream().map(r -> r[11] == null ? new Object[3] : (Object[]) r[11]).toList();
    Map<String, Object> nestedMin = new HashMap<>();
    Map<String, Object> nestedMax = new HashMap<>();
    Map<String, Object> nestedNulls = new HashMap<>();
    expect(
        nestedRows,
        0,
        "x",
        Comparator.<Long>naturalOrder(),
        v -> v,
        v -> v,
        nestedMin,
        nestedMax,
        nestedNulls);
    expect(
        nestedRows,
        1,
        "name",
        Comparator.comparing((String s) -> s, FileStatsTest::compareCodePoints),
        StringBounds::lowerBound,
        StringBounds::upperBound,
        nestedMin,
        nestedMax,
        nestedNulls);
    nestedNulls.put("flag", countNulls(nestedRows, r -> r[2]));
    nulls.put("nested", nestedNulls);
    if (!nestedMin.isEmpty()) {
      min.put("nested", nestedMin);
    }
    if (!nestedMax.isEmpty()) {
      max.put("nested", nestedMax);
    }

    assertThat(stats.minValues()).isEqualTo(min);
    assertThat(stats.maxValues()).isEqualTo(max);
    assertThat(stats.nullCount()).isEqualTo(nulls);
  }

  @Test
  void longStringsAreTruncatedToValidBounds() throws Exception {
    StructType schema = StructType.of(StructField.nullable("s", PrimitiveType.STRING));
    String a40 = "a".repeat(40);
    String z40 = "z".repeat(35) + "tail!";
    FileStats stats = write(schema, List.of(row(a40), row(z40), row("m"))).stats();

    assertThat(stats.minValues()).containsEntry("s", "a".repeat(32));
    String max = (String) stats.maxValues().get("s");
    assertThat(max).isEqualTo("z".repeat(31) + "{");
    assertThat(compareCodePoints(max, z40)).isPositive();
  }

  @Test
  void aMaxThatHasNoShortUpperBoundIsOmitted() throws Exception {
    StructType schema = StructType.of(StructField.nullable("s", PrimitiveType.STRING));
    String top = new String(Character.toChars(Character.MAX_CODE_POINT)).repeat(33);
    FileStats stats = write(schema, List.of(row(top), row("b"))).stats();

    assertThat(stats.minValues()).containsEntry("s", "b");
    assertThat(stats.maxValues()).doesNotContainKey("s");
  }

  @Test
  void upperBoundsSkipTheSurrogateRangeAndCountCodePoints() {
    String beforeSurrogates = "x".repeat(31) + "\uD7FF" + "more";
    assertThat(StringBounds.upperBound(beforeSurrogates)).isEqualTo("x".repeat(31) + "\uE000");
    String emoji = "😀".repeat(40);
    assertThat(StringBounds.lowerBound(emoji)).isEqualTo("😀".repeat(32));
    assertThat(StringBounds.upperBound(emoji)).isEqualTo("😀".repeat(31) + "😁");
    assertThat(StringBounds.upperBound("short")).isEqualTo("short");
  }

  @Test
  void aNaNDropsTheDoubleBoundsButNotTheNullCount() throws Exception {
    StructType schema = StructType.of(StructField.nullable("d", PrimitiveType.DOUBLE));
    FileStats stats = write(schema, List.of(row(1.0), row(Double.NaN), row((Object) null))).stats();

    assertThat(stats.minValues()).doesNotContainKey("d");
    assertThat(stats.maxValues()).doesNotContainKey("d");
    assertThat(stats.nullCount()).containsEntry("d", 1L);
  }

  @Test
  void anAllNullColumnHasOnlyANullCount() throws Exception {
    StructType schema =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("empty", PrimitiveType.STRING));
    FileStats stats = write(schema, List.of(row(1L, null), row(2L, null))).stats();

    assertThat(stats.minValues()).containsOnlyKeys("id");
    assertThat(stats.maxValues()).containsOnlyKeys("id");
    assertThat(stats.nullCount()).containsEntry("empty", 2L).containsEntry("id", 0L);
  }

  private DataFile write(StructType schema, List<Object[]> rows) throws Exception {
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, schema, List.of(), DataWriteOptions.defaults())) {
      for (Object[] r : rows) {
        writer.write(r);
      }
      return writer.finish().get(0);
    }
  }

  private static <T> void expect(
      List<Object[]> rows,
      int index,
      String name,
      Comparator<T> order,
      Function<T, Object> lower,
      Function<T, Object> upper,
      Map<String, Object> min,
      Map<String, Object> max,
      Map<String, Object> nulls) {
    @SuppressWarnings("unchecked")
    List<T> values = rows.stream().map(r -> (T) r[index]).filter(Objects::nonNull).toList();
    nulls.put(name, (long) (rows.size() - values.size()));
    if (!values.isEmpty()) {
      min.put(name, lower.apply(values.stream().min(order).orElseThrow()));
      Object hi = upper.apply(values.stream().max(order).orElseThrow());
      if (hi != null) {
        max.put(name, hi);
      }
    }
  }

  private static long countNulls(List<Object[]> rows, Function<Object[], Object> value) {
    return rows.stream().filter(r -> value.apply(r) == null).count();
  }

  static int compareCodePoints(String a, String b) {
    return Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
  }

  private static Object[] randomRow(Random r) {
    return row(
        maybe(r, () -> randomString(r)),
        maybe(r, r::nextInt),
        maybe(r, r::nextLong),
        maybe(r, () -> r.nextGaussian() * 1e6),
        maybe(r, r::nextBoolean),
        maybe(r, () -> Instant.ofEpochSecond(r.nextInt(), r.nextInt(1_000_000) * 1000L)),
        maybe(r, () -> LocalDate.ofEpochDay(r.nextInt(100_000) - 50_000)),
        maybe(r, () -> new byte[] {(byte) r.nextInt()}),
        maybe(
            r,
            () ->
                BigDecimal.valueOf(r.nextInt(2_000_000_000) - 1_000_000_000, 2)
                    .remainder(BigDecimal.valueOf(10_000_000))),
        maybe(r, () -> BigDecimal.valueOf(r.nextLong() % 1_000_000_000_000_000L, 3)),
        maybe(
            r,
            () ->
                new BigDecimal(new BigInteger(120, r).subtract(BigInteger.ONE.shiftLeft(119)), 5)),
        maybe(
            r,
            () ->
                row(
                    maybe(r, r::nextLong),
                    maybe(r, () -> randomString(r)),
                    maybe(r, r::nextBoolean))));
  }

  private static Object maybe(Random r, Supplier<Object> value) {
    return r.nextInt(8) == 0 ? null : value.get();
  }

  private static String randomString(Random r) {
    int length = r.nextInt(50);
    StringBuilder s = new StringBuilder();
    String alphabet = "aAzZ09 ~éü日本😀\uFFFD";
    for (int k = 0; k < length; k++) {
      s.appendCodePoint(
          alphabet.codePoints().toArray()[r.nextInt((int) alphabet.codePoints().count())]);
    }
    return s.toString();
  }
}
