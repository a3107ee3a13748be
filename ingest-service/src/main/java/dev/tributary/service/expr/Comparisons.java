package dev.tributary.service.expr;

import dev.tributary.service.parse.IsoTimestamps;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code = <> < <= > >=}, IN and BETWEEN. Both sides meet at their common type (see {@link
 * Types#common}); a string literal compared with a timestamp or date column is read as one at
 * compile time ({@code event_time > '2026-01-01T00:00:00Z'}). Any null operand gives null.
 */
final class Comparisons {
  private Comparisons() {}

  enum Op {
    EQ("="),
    NE("<>"),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    boolean holds(int cmp) {
      return switch (this) {
        case EQ -> cmp == 0;
        case NE -> cmp != 0;
        case LT -> cmp < 0;
        case LE -> cmp <= 0;
        case GT -> cmp > 0;
        case GE -> cmp >= 0;
      };
    }
  }

  /** Compares two non-null values of the same type. */
  @FunctionalInterface
  interface Cmp {
    int compare(Object a, Object b);
  }

  static Node compare(Op op, Node left, Node right, String label, int position, String text) {
    Node[] pair = meet(left, right, position, text);
    Cmp cmp = comparator(pair[0].type());
    Evaluator l = pair[0].eval();
    Evaluator r = pair[1].eval();
    Evaluator eval =
        row -> {
          Object a = l.eval(row);
          if (a == null) {
            return null;
          }
          Object b = r.eval(row);
          if (b == null) {
            return null;
          }
          return op.holds(cmp.compare(a, b));
        };
    return Node.of(PrimitiveType.BOOLEAN, eval, List.of(left, right), label, position);
  }

  /** Both nodes converted to their common type, or a "cannot compare" error. */
  static Node[] meet(Node left, Node right, int position, String text) {
    left = literalAsTemporal(left, right.type(), text);
    right = literalAsTemporal(right, left.type(), text);
    DataType common = Types.common(left.type(), right.type());
    if (common == null && left.type() != null) {
      throw new ExpressionException(
          text, position, "cannot compare " + left.describe() + " with " + right.describe());
    }
    if (common instanceof StructType) {
      throw new ExpressionException(
          text,
          position,
          "cannot compare struct values (" + left.label() + "); compare their fields instead");
    }
    if (common == null) {
      common = PrimitiveType.BOOLEAN; // NULL = NULL: the result is null whatever the type
    }
    return new Node[] {left.as(common), right.as(common)};
  }

  /** A string literal next to a timestamp/date operand, read as that type at compile time. */
  private static Node literalAsTemporal(Node n, DataType other, String text) {
    if (!n.constant() || n.type() != PrimitiveType.STRING || !Types.isTemporal(other)) {
      return n;
    }
    String s = (String) n.eval().eval(null);
    if (s == null) {
      return n;
    }
    Object v =
        other == PrimitiveType.DATE
            ? IsoTimestamps.parseDate(s.trim())
            : IsoTimestamps.parseTimestamp(s.trim());
    if (v == null) {
      throw new ExpressionException(
          text,
          n.position(),
          "string "
              + n.label()
              + " is not a "
              + Types.name(other)
              + (other == PrimitiveType.DATE
                  ? " (yyyy-MM-dd)"
                  : " (ISO-8601 like 2026-01-01T00:00:00Z)"));
    }
    return Node.constant(other, v, n.label(), n.position());
  }

  /** The ordering of non-null values of {@code t}. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Cmp comparator(DataType t) {
    if (t == PrimitiveType.DOUBLE) {
      return (a, b) -> {
        double x = (Double) a;
        double y = (Double) b;
        // Primitive comparison first so that -0.0 equals 0.0, as in SQL; NaN sorts last.
        return x < y ? -1 : x > y ? 1 : x == y ? 0 : Double.compare(x, y);
      };
    }
    if (t == PrimitiveType.LONG) {
      return (a, b) -> Long.compare((Long) a, (Long) b);
    }
    return (a, b) -> ((Comparable) a).compareTo(b);
  }

  /**
   * {@code x [NOT] IN (a, b, ...)}: true on a match, else null if anything was null, else false.
   */
  static Node in(
      Node value, List<Node> items, boolean not, String label, int position, String text) {
    DataType common = value.type();
    for (Node item : items) {
      Node[] pair = meet(value, item, item.position(), text);
      common = Types.common(common, pair[0].type());
    }
    if (common == null) {
      common = PrimitiveType.BOOLEAN;
    }
    Node v = value.as(common);
    List<Node> converted = new ArrayList<>();
    boolean allConstant = true;
    boolean anyNull = false;
    for (Node item : items) {
      Node c = item.as(common);
      converted.add(c);
      allConstant &= c.constant();
      anyNull |= c.constant() && c.eval().eval(null) == null;
    }
    Evaluator valueEval = v.eval();
    Evaluator eval;
    if (allConstant && !anyNull && hashable(common)) {
      // A constant list becomes a hash set: IN over many literals stays O(1) per row.
      Set<Object> set = new HashSet<>();
      converted.forEach(c -> set.add(c.eval().eval(null)));
      eval =
          row -> {
            Object x = valueEval.eval(row);
            return x == null ? null : set.contains(x) != not;
          };
    } else {
      Cmp cmp = comparator(common);
      Evaluator[] evals = converted.stream().map(Node::eval).toArray(Evaluator[]::new);
      eval =
          row -> {
            Object x = valueEval.eval(row);
            if (x == null) {
              return null;
            }
            boolean sawNull = false;
            for (Evaluator e : evals) {
              Object y = e.eval(row);
              if (y == null) {
                sawNull = true;
              } else if (cmp.compare(x, y) == 0) {
                return !not;
              }
            }
            return sawNull ? null : not;
          };
    }
    List<Node> children = new ArrayList<>(items);
    children.add(value);
    return Node.of(PrimitiveType.BOOLEAN, eval, children, label, position);
  }

  /** Types whose equals agrees with SQL equality (not decimals: 1.0 vs 1.00; not doubles: -0.0). */
  private static boolean hashable(DataType t) {
    return t == PrimitiveType.STRING
        || t == PrimitiveType.INTEGER
        || t == PrimitiveType.LONG
        || t == PrimitiveType.DATE
        || t == PrimitiveType.TIMESTAMP
        || t == PrimitiveType.BOOLEAN;
  }

  /** {@code x [NOT] BETWEEN lo AND hi} = {@code x >= lo AND x <= hi}, with SQL null logic. */
  static Node between(
      Node value, Node low, Node high, boolean not, String label, int position, String text) {
    Node ge = compare(Op.GE, value, low, label, position, text);
    Node le = compare(Op.LE, value, high, label, position, text);
    Node both = Logic.and(ge, le, label, position, text);
    return not ? Logic.not(both, label, position, text) : both;
  }

  static boolean isZero(Object v) {
    return v instanceof BigDecimal d ? d.signum() == 0 : ((Number) v).doubleValue() == 0;
  }
}
