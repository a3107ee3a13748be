package dev.tributary.service.expr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A micro-check, not a benchmark: prints how long compiling takes and how many rows per second the
 * docs/PIPELINE_REFERENCE.md transforms (plus a few typical expressions) process, so a regression
 * shows in the test output. Asserts results only: timings on a shared 2-core machine are too noisy
 * to assert.
 */
class TransformsThroughputTest {
  private static final int ROWS = 10_000;
  private static final int ROUNDS = 20;

  @Test
  void printsCompileTimeAndRowRate() {
    StructType input =
        StructType.of(
            StructField.nullable("order_id", PrimitiveType.STRING),
            StructField.nullable("customer_id", PrimitiveType.STRING),
            StructField.nullable("event_time", PrimitiveType.TIMESTAMP),
            StructField.nullable("amount_cents", PrimitiveType.LONG));
    LinkedHashMap<String, String> derived = new LinkedHashMap<>();
    derived.put("amount", "amount_cents / 100.0");
    derived.put("hour", "date_trunc('hour', event_time)");
    derived.put("tier", "CASE WHEN amount_cents >= 5000 THEN 'gold' ELSE 'std' END");
    long c0 = System.nanoTime();
    CompiledTransforms t =
        Transforms.compile(
            input,
            List.of(
                new Step.Filter("amount_cents > 0 AND customer_id LIKE 'cust-%'"),
                new Step.Derive(derived)));
    long compileMicros = (System.nanoTime() - c0) / 1000;
    long c1 = System.nanoTime();
    Transforms.compile(
        input,
        List.of(
            new Step.Filter("amount_cents > 0 AND customer_id LIKE 'x%'"),
            new Step.Derive(derived)));
    long recompileMicros = (System.nanoTime() - c1) / 1000;

    Object[][] rows = new Object[ROWS][];
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    for (int i = 0; i < ROWS; i++) {
      rows[i] =
          new Object[] {
            "ord-" + i, "cust-" + (i % 97), start.plusSeconds(i), (long) (i * 37 % 10000) - 100
          };
    }
    long kept = 0;
    long nanos = 0;
    for (int round = 0; round < ROUNDS; round++) {
      long t0 = System.nanoTime();
      for (Object[] row : rows) {
        if (t.apply(row) != null) {
          kept++;
        }
      }
      if (round >= ROUNDS / 2) { // the first half warms the JIT up
        nanos += System.nanoTime() - t0;
      }
    }
    double rate = (double) ROWS * (ROUNDS - ROUNDS / 2) * 1e9 / nanos;
    System.out.printf(
        "Transforms: compiled in %d us the first time (JSqlParser class loading),"
            + " %d us the second; %.0f rows/s through filter + 3 derived columns%n",
        compileMicros, recompileMicros, rate);
    long expectedKept = 0;
    for (Object[] row : rows) {
      expectedKept += (Long) row[3] > 0 ? 1 : 0;
    }
    assertThat(kept).isEqualTo(expectedKept * ROUNDS);
  }
}
