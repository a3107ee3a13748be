package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.Measure;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The measures first, last and approx_count_distinct on a buffer, including its round trip through
 * state between batches (encode, decode) and session merges.
 */
class MeasuresTest {
  private static final StructType INPUT =
      new StructType(
          List.of(
              StructField.nullable("id", PrimitiveType.STRING),
              StructField.nullable("n", PrimitiveType.INTEGER),
              StructField.nullable("at", PrimitiveType.TIMESTAMP)));

  private static Measures measures(String... namesAndMeasures) {
    Map<String, Measure> m = new LinkedHashMap<>();
    for (int i = 0; i < namesAndMeasures.length; i += 2) {
      m.put(namesAndMeasures[i], Measure.parse(namesAndMeasures[i + 1]));
    }
    List<String> problems = new ArrayList<>();
    Measures out = new Measures(m, INPUT, problems);
    assertThat(problems).isEmpty();
    return out;
  }

  /** A buffer through state and back, as between two batches. */
  private static Object[] stored(Measures m, Object[] buffer) {
    return m.decode(m.encode(buffer), 0);
  }

  private static Object[] row(String id, Integer n, Instant at) {
    return new Object[] {id, n, at};
  }

  @Test
  void resultTypesFollowSpark() {
    Measures m = measures("f", "first(n)", "l", "last(at)", "a", "approx_count_distinct(id)");
    assertThat(m.outputFields())
        .extracting(f -> f.type().deltaName())
        .containsExactly("integer", "timestamp", "long");
  }

  @Test
  void firstAndLastKeepNullsAndFollowInputOrderAcrossBatches() {
    Measures m = measures("f", "first(n)", "l", "last(n)", "fa", "first(at)");
    Object[] b = m.newBuffer();
    assertThat(m.results(b)).containsExactly(null, null, null);
    m.add(b, row("a", null, Instant.EPOCH));
    m.add(b, row("b", 2, null));
    assertThat(m.results(b)).containsExactly(null, 2, Instant.EPOCH);
    b = stored(m, b);
    m.add(b, row("c", 3, Instant.parse("2026-01-01T00:00:00Z")));
    assertThat(m.results(b))
        .as("a null first value is the result, kept from the earlier batch")
        .containsExactly(null, 3, Instant.EPOCH);
    b = stored(m, b);
    m.add(b, row("d", null, null));
    assertThat(m.results(stored(m, b))).containsExactly(null, null, Instant.EPOCH);
  }

  @Test
  void mergedBuffersKeepTheEarlierFirstAndTheLaterLast() {
    Measures m = measures("f", "first(n)", "l", "last(n)", "a", "approx_count_distinct(id)");
    Object[] earlier = m.newBuffer();
    m.add(earlier, row("x", null, null));
    m.add(earlier, row("y", 1, null));
    Object[] later = m.newBuffer();
    m.add(later, row("y", 5, null));
    m.add(later, row("z", null, null));
    Object[] into = m.newBuffer();
    m.merge(into, stored(m, earlier));
    m.merge(into, stored(m, later));
    assertThat(m.results(into)).containsExactly(null, null, 3L);
    Object[] onlyLater = m.newBuffer();
    m.merge(onlyLater, m.newBuffer());
    m.merge(onlyLater, later);
    assertThat(m.results(onlyLater)).containsExactly(5, null, 2L);
  }

  @Test
  void approxCountDistinctIsExactForSmallCountsAndIgnoresNulls() {
    Measures m = measures("a", "approx_count_distinct(id)", "b", "approx_count_distinct(n)");
    Object[] b = m.newBuffer();
    assertThat(m.results(b)).containsExactly(0L, 0L);
    for (int batch = 0; batch < 10; batch++) {
      for (int i = 0; i < 100; i++) {
        // 100 ids, each seen 10 times (once per batch); n: the 16 values 1..19 but 5, 10, 15, and
        // nulls
        m.add(b, row("user-" + i, i % 5 == 0 ? null : i % 20, null));
      }
      b = stored(m, b);
    }
    assertThat(m.results(b)).containsExactly(100L, 16L);
    Object[] onlyNulls = m.newBuffer();
    m.add(onlyNulls, row(null, null, null));
    assertThat(m.results(stored(m, onlyNulls))).containsExactly(0L, 0L);
  }

  @Test
  void approxCountDistinctStaysWithinSparksDefaultErrorOnAHundredThousandValues() {
    Measures m = measures("a", "approx_count_distinct(id)");
    Object[] b = m.newBuffer();
    int distinct = 100_000;
    for (int batch = 0; batch < 10; batch++) {
      for (int i = batch * distinct / 10; i < (batch + 1) * distinct / 10; i++) {
        m.add(b, row("user-" + i, null, null));
        m.add(b, row("user-" + (i / 2), null, null)); // repeats an earlier value
      }
      b = stored(m, b);
    }
    long estimate = (Long) m.results(b)[0];
    assertThat((double) Math.abs(estimate - distinct) / distinct).isLessThanOrEqualTo(0.05);
    assertThat(m.encode(b).length).as("bounded state: a sketch, not the values").isLessThan(2_000);
  }

  @Test
  void windowsKeepFirstLastAndTheSketchAcrossBatchesAndRestarts(@TempDir Path dir)
      throws Exception {
    StatefulPlan plan =
        PipelineFactory.compile(
                StatefulOperatorsTest.spec(
                    """
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures: { f: first(quantity), l: last(quantity), users: approx_count_distinct(user_id) }
        output-mode: update
        """))
            .stateful()
            .orElseThrow();
    try (QueryRunner r = new QueryRunner(plan, dir)) {
      r.batch(
          List.<Object[]>of(
              StatefulOperatorsTest.event("a", "u1", "click", 1, "1", null),
              StatefulOperatorsTest.event("b", "u2", "click", 2, "1", 2),
              StatefulOperatorsTest.event("c", "u2", "click", 7, "1", 5)),
          QueryRunner.Crash.NONE);
      r.restart();
      r.batch(
          List.<Object[]>of(StatefulOperatorsTest.event("d", "u3", "click", 3, "1", 4)),
          QueryRunner.Crash.BEFORE_STATE_COMMIT);
      Instant t = Instant.parse("2026-01-01T00:00:00Z");
      assertThat(r.table())
          .containsExactlyInAnyOrder(
              Arrays.asList(t, t.plusSeconds(300), "click", null, 4, 3L),
              Arrays.asList(t.plusSeconds(300), t.plusSeconds(600), "click", 5, 5, 1L));
    }
  }

  @Test
  void mergedSessionsTakeFirstFromTheEarliestSessionAndLastFromTheNewRow(@TempDir Path dir)
      throws Exception {
    StatefulPlan plan =
        PipelineFactory.compile(
                StatefulOperatorsTest.spec(
                    """
        aggregate:
          window: { column: event_ts, session-gap: 10 minutes }
          measures: { f: first(quantity), l: last(quantity), users: approx_count_distinct(user_id) }
        output-mode: complete
        """))
            .stateful()
            .orElseThrow();
    try (QueryRunner r = new QueryRunner(plan, dir)) {
      r.batch(
          List.<Object[]>of(
              StatefulOperatorsTest.event("a", "u1", "click", 0, "1", 1),
              StatefulOperatorsTest.event("b", "u2", "click", 15, "1", 2)),
          QueryRunner.Crash.NONE);
      assertThat(r.table()).hasSize(2);
      r.batch(
          List.<Object[]>of(StatefulOperatorsTest.event("c", "u1", "click", 8, "1", 3)),
          QueryRunner.Crash.NONE);
      Instant t = Instant.parse("2026-01-01T00:00:00Z");
      assertThat(r.table()).containsExactly(Arrays.asList(t, t.plusSeconds(1500), 1, 3, 2L));
    }
  }
}
