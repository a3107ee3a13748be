package dev.tributary.service.expr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.Arrays;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Random arithmetic and boolean expressions over long, double and boolean columns (values including
 * nulls), evaluated by the compiled expression and by a direct Java computation of the documented
 * semantics; both must agree on every row.
 */
class ExpressionPropertyTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("a", PrimitiveType.LONG),
          StructField.nullable("b", PrimitiveType.LONG),
          StructField.nullable("x", PrimitiveType.DOUBLE),
          StructField.nullable("p", PrimitiveType.BOOLEAN),
          StructField.nullable("q", PrimitiveType.BOOLEAN));

  /**
   * An expression and its reference evaluator. {@code intTyped}: only int literals below, so SQL
   * types it int (results are Longs here, compared numerically, and int overflow gives null).
   */
  private record Gen(String sql, Function<Object[], Object> java, boolean intTyped) {
    Gen(String sql, Function<Object[], Object> java) {
      this(sql, java, false);
    }
  }

  @Test
  void compiledEvaluationMatchesJava() {
    Random random = new Random(2026);
    int compared = 0;
    for (int n = 0; n < 150; n++) {
      Gen g = random.nextBoolean() ? bool(random, 3) : longExpr(random, 3);
      CompiledExpression c = ExpressionCompiler.compile(g.sql(), SCHEMA);
      for (int r = 0; r < 40; r++) {
        Object[] row = {
          random.nextInt(6) == 0 ? null : (long) (random.nextInt(2001) - 1000),
          random.nextInt(6) == 0 ? null : (long) (random.nextInt(21) - 10),
          random.nextInt(6) == 0 ? null : random.nextInt(400) / 4.0 - 50,
          random.nextInt(4) == 0 ? null : random.nextBoolean(),
          random.nextInt(4) == 0 ? null : random.nextBoolean()
        };
        Object expected = g.java().apply(row);
        Object actual = c.eval(row) instanceof Integer i ? (Object) i.longValue() : c.eval(row);
        if (!Objects.equals(expected, actual)) {
          assertThat(actual).as("%s on %s", g.sql(), Arrays.toString(row)).isEqualTo(expected);
        }
        compared++;
      }
    }
    assertThat(compared).isEqualTo(6_000);
  }

  private static Gen longExpr(Random random, int depth) {
    if (depth == 0 || random.nextInt(3) == 0) {
      return switch (random.nextInt(3)) {
        case 0 -> new Gen("a", row -> row[0]);
        case 1 -> new Gen("b", row -> row[1]);
        default -> {
          long v = random.nextInt(200) - 100;
          // A negative literal is written in parentheses so "a - -5" stays readable.
          yield new Gen(v < 0 ? "(" + v + ")" : Long.toString(v), row -> v, true);
        }
      };
    }
    Gen l = longExpr(random, depth - 1);
    Gen r = longExpr(random, depth - 1);
    boolean ints = l.intTyped() && r.intTyped();
    return switch (random.nextInt(5)) {
      case 0 ->
          new Gen(
              "(" + l.sql() + " + " + r.sql() + ")",
              row -> longOp(l, r, row, (x, y) -> x + y),
              ints);
      case 1 ->
          new Gen(
              "(" + l.sql() + " - " + r.sql() + ")",
              row -> longOp(l, r, row, (x, y) -> x - y),
              ints);
      case 2 ->
          new Gen(
              "(" + l.sql() + " * " + r.sql() + ")",
              row -> longOp(l, r, row, (x, y) -> x * y),
              ints);
      case 3 ->
          new Gen(
              "(" + l.sql() + " % " + r.sql() + ")",
              row -> longOp(l, r, row, (x, y) -> y == 0 ? null : x % y),
              ints);
      default ->
          new Gen(
              "coalesce(" + l.sql() + ", " + r.sql() + ")",
              row -> l.java().apply(row) != null ? l.java().apply(row) : r.java().apply(row),
              ints);
    };
  }

  private interface LongFn {
    Long apply(long x, long y);
  }

  private static Object longOp(Gen l, Gen r, Object[] row, LongFn f) {
    Object x = l.java().apply(row);
    Object y = r.java().apply(row);
    // Long values stay far below overflow (|a| <= 1000, depth 3); int arithmetic of literals
    // does overflow, and then gives null.
    Long v = x == null || y == null ? null : f.apply((Long) x, (Long) y);
    boolean ints = l.intTyped() && r.intTyped();
    return v == null || (ints && v != v.intValue()) ? null : v;
  }

  private static Gen doubleExpr(Random random) {
    Gen l = longExpr(random, 1);
    return switch (random.nextInt(3)) {
      case 0 -> new Gen("x", row -> row[2]);
      case 1 ->
          new Gen(
              "(" + l.sql() + " / 4.0)",
              row -> {
                Object v = l.java().apply(row);
                return v == null ? null : (Long) v / 4.0;
              });
      default ->
          new Gen(
              "(x * " + l.sql() + ")",
              row -> {
                Object v = l.java().apply(row);
                return v == null || row[2] == null ? null : (Double) row[2] * (Long) v;
              });
    };
  }

  private static Gen bool(Random random, int depth) {
    if (depth == 0 || random.nextInt(4) == 0) {
      switch (random.nextInt(5)) {
        case 0:
          return new Gen("p", row -> row[3]);
        case 1:
          return new Gen("q", row -> row[4]);
        case 2:
          {
            Gen v = longExpr(random, 1);
            return new Gen("(" + v.sql() + " IS NULL)", row -> v.java().apply(row) == null);
          }
        case 3:
          {
            Gen l = doubleExpr(random);
            Gen r = longExpr(random, 1);
            String[] ops = {"=", "<>", "<", "<=", ">", ">="};
            int op = random.nextInt(ops.length);
            return new Gen(
                "(" + l.sql() + " " + ops[op] + " " + r.sql() + ")",
                row -> {
                  Object x = l.java().apply(row);
                  Object y = r.java().apply(row);
                  if (x == null || y == null) {
                    return null;
                  }
                  int c = Double.compare((Double) x + 0.0, ((Long) y).doubleValue() + 0.0);
                  return switch (op) {
                    case 0 -> c == 0;
                    case 1 -> c != 0;
                    case 2 -> c < 0;
                    case 3 -> c <= 0;
                    case 4 -> c > 0;
                    default -> c >= 0;
                  };
                });
          }
        default:
          {
            Gen v = longExpr(random, 1);
            long lo = random.nextInt(100) - 50;
            long hi = lo + random.nextInt(100);
            return new Gen(
                "(" + v.sql() + " BETWEEN " + lo + " AND " + hi + ")",
                row -> {
                  Object x = v.java().apply(row);
                  return x == null ? null : (Long) x >= lo && (Long) x <= hi;
                });
          }
      }
    }
    Gen l = bool(random, depth - 1);
    Gen r = bool(random, depth - 1);
    return switch (random.nextInt(3)) {
      case 0 ->
          new Gen(
              "(" + l.sql() + " AND " + r.sql() + ")",
              row -> {
                Object x = l.java().apply(row);
                Object y = r.java().apply(row);
                if (Boolean.FALSE.equals(x) || Boolean.FALSE.equals(y)) {
                  return false;
                }
                return x == null || y == null ? null : true;
              });
      case 1 ->
          new Gen(
              "(" + l.sql() + " OR " + r.sql() + ")",
              row -> {
                Object x = l.java().apply(row);
                Object y = r.java().apply(row);
                if (Boolean.TRUE.equals(x) || Boolean.TRUE.equals(y)) {
                  return true;
                }
                return x == null || y == null ? null : false;
              });
      default ->
          new Gen(
              "(NOT " + l.sql() + ")",
              row -> {
                Object x = l.java().apply(row);
                return x == null ? null : !(Boolean) x;
              });
    };
  }
}
