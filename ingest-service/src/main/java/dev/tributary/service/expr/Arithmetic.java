package dev.tributary.service.expr;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;

/**
 * {@code + - * / %} and unary minus. Operands widen to their common numeric type; {@code /} gives a
 * double unless a decimal is involved (then a decimal), as in Spark. Division or remainder by zero
 * and integer or decimal overflow give null (Spark's non-ANSI mode); doubles follow IEEE-754.
 */
final class Arithmetic {
  private Arithmetic() {}

  enum Op {
    ADD("+"),
    SUBTRACT("-"),
    MULTIPLY("*"),
    DIVIDE("/"),
    REMAINDER("%");

    final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }
  }

  private interface LongOp {
    long apply(long a, long b);
  }

  static Node binary(Op op, Node left, Node right, String label, int position, String text) {
    DataType lt = left.type() == null ? right.type() : left.type();
    DataType rt = right.type() == null ? left.type() : right.type();
    if (lt == null) {
      lt = PrimitiveType.INTEGER; // NULL + NULL: any numeric type will do, the result is null
      rt = lt;
    }
    if (!Types.isNumeric(lt) || !Types.isNumeric(rt)) {
      throw new ExpressionException(
          text,
          position,
          "cannot apply '"
              + op.symbol
              + "' to "
              + left.describe()
              + " and "
              + right.describe()
              + (op == Op.ADD && (lt == PrimitiveType.STRING || rt == PrimitiveType.STRING)
                  ? "; use || or concat() to join strings"
                  : ""));
    }
    DataType common = Types.widerNumeric(lt, rt);
    if (op == Op.DIVIDE && !(common instanceof DecimalType)) {
      common = PrimitiveType.DOUBLE; // int / int is a double, as in Spark
    }
    Node l = left.as(common);
    Node r = right.as(common);
    DataType resultType = common;
    Evaluator eval;
    if (common == PrimitiveType.INTEGER) {
      eval = intOp(op, l.eval(), r.eval());
    } else if (common == PrimitiveType.LONG) {
      eval = longOp(op, l.eval(), r.eval());
    } else if (common == PrimitiveType.DOUBLE) {
      eval = doubleOp(op, l.eval(), r.eval());
    } else {
      DecimalType a = Types.asDecimal(lt);
      DecimalType b = Types.asDecimal(rt);
      DecimalType result = decimalResult(op, a, b);
      resultType = result;
      eval = decimalOp(op, l.eval(), r.eval(), result);
    }
    return Node.of(resultType, eval, List.of(left, right), label, position);
  }

  static Node negate(Node operand, String label, int position, String text) {
    DataType t = operand.type();
    if (t == null) {
      return operand;
    }
    if (!Types.isNumeric(t)) {
      throw new ExpressionException(text, position, "cannot negate " + operand.describe());
    }
    Evaluator in = operand.eval();
    Evaluator eval;
    if (t == PrimitiveType.INTEGER) {
      eval =
          row -> {
            Object v = in.eval(row);
            return v == null || (Integer) v == Integer.MIN_VALUE ? null : -(Integer) v;
          };
    } else if (t == PrimitiveType.LONG) {
      eval =
          row -> {
            Object v = in.eval(row);
            return v == null || (Long) v == Long.MIN_VALUE ? null : -(Long) v;
          };
    } else if (t == PrimitiveType.DOUBLE) {
      eval =
          row -> {
            Object v = in.eval(row);
            return v == null ? null : -(Double) v;
          };
    } else {
      eval =
          row -> {
            Object v = in.eval(row);
            return v == null ? null : ((BigDecimal) v).negate();
          };
    }
    return Node.of(t, eval, List.of(operand), label, position);
  }

  private static Evaluator intOp(Op op, Evaluator l, Evaluator r) {
    Evaluator asLong = longOp(op, row -> toLong(l.eval(row)), row -> toLong(r.eval(row)));
    return row -> {
      Object v = asLong.eval(row);
      if (v == null) {
        return null;
      }
      long x = (Long) v;
      return x == (int) x ? (Object) (int) x : null; // int overflow gives null
    };
  }

  private static Object toLong(Object v) {
    return v == null ? null : (Object) ((Integer) v).longValue();
  }

  private static Evaluator longOp(Op op, Evaluator l, Evaluator r) {
    LongOp f =
        switch (op) {
          case ADD -> Math::addExact;
          case SUBTRACT -> Math::subtractExact;
          case MULTIPLY -> Math::multiplyExact;
          case REMAINDER -> (a, b) -> a % b;
          case DIVIDE -> throw new IllegalStateException("long division is double division");
        };
    boolean checkZero = op == Op.REMAINDER;
    return row -> {
      Object a = l.eval(row);
      if (a == null) {
        return null;
      }
      Object b = r.eval(row);
      if (b == null) {
        return null;
      }
      long y = (Long) b;
      if (checkZero && y == 0) {
        return null;
      }
      try {
        return f.apply((Long) a, y);
      } catch (ArithmeticException overflow) {
        return null;
      }
    };
  }

  private static Evaluator doubleOp(Op op, Evaluator l, Evaluator r) {
    return row -> {
      Object a = l.eval(row);
      if (a == null) {
        return null;
      }
      Object b = r.eval(row);
      if (b == null) {
        return null;
      }
      double x = (Double) a;
      double y = (Double) b;
      return switch (op) {
        case ADD -> x + y;
        case SUBTRACT -> x - y;
        case MULTIPLY -> x * y;
        case DIVIDE -> y == 0 ? null : (Object) (x / y);
        case REMAINDER -> y == 0 ? null : (Object) (x % y);
      };
    };
  }

  private static Evaluator decimalOp(Op op, Evaluator l, Evaluator r, DecimalType result) {
    return row -> {
      Object a = l.eval(row);
      if (a == null) {
        return null;
      }
      Object b = r.eval(row);
      if (b == null) {
        return null;
      }
      BigDecimal x = (BigDecimal) a;
      BigDecimal y = (BigDecimal) b;
      if ((op == Op.DIVIDE || op == Op.REMAINDER) && y.signum() == 0) {
        return null;
      }
      BigDecimal v =
          switch (op) {
            case ADD -> x.add(y);
            case SUBTRACT -> x.subtract(y);
            case MULTIPLY -> x.multiply(y);
            case DIVIDE ->
                x.divide(y, new MathContext(Types.MAX_PRECISION + 2, RoundingMode.HALF_UP));
            case REMAINDER -> x.remainder(y);
          };
      return Casts.fit(v, result);
    };
  }

  /** Spark's decimal result types (before capping at precision 38). */
  private static DecimalType decimalResult(Op op, DecimalType a, DecimalType b) {
    int p1 = a.precision();
    int s1 = a.scale();
    int p2 = b.precision();
    int s2 = b.scale();
    return switch (op) {
      case ADD, SUBTRACT -> {
        int scale = Math.max(s1, s2);
        yield Types.bounded(Math.max(p1 - s1, p2 - s2) + scale + 1, scale);
      }
      case MULTIPLY -> Types.bounded(p1 + p2 + 1, s1 + s2);
      case DIVIDE -> {
        int scale = Math.max(6, s1 + p2 + 1);
        yield Types.bounded(p1 - s1 + s2 + scale, scale);
      }
      case REMAINDER -> {
        int scale = Math.max(s1, s2);
        yield Types.bounded(Math.min(p1 - s1, p2 - s2) + scale, scale);
      }
    };
  }
}
