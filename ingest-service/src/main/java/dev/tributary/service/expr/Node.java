package dev.tributary.service.expr;

import dev.tributary.table.types.DataType;
import java.util.List;

/**
 * A compiled sub-expression during compilation: its type ({@code null} only for the untyped {@code
 * NULL} literal, which takes the type its context gives it), its evaluator, whether it is a
 * constant (then folded), and how messages name it ("'region'" for a column, the SQL text
 * otherwise) and where it starts in the source.
 */
record Node(DataType type, Evaluator eval, boolean constant, String label, int position) {
  private static final Object[] NO_ROW = new Object[0];

  static Node constant(DataType type, Object value, String label, int position) {
    return new Node(type, row -> value, true, label, position);
  }

  /**
   * A node computed from {@code children}; folded into a constant when they all are (the language
   * is deterministic, so a constant input gives a constant output).
   */
  static Node of(DataType type, Evaluator eval, List<Node> children, String label, int position) {
    for (Node c : children) {
      if (!c.constant) {
        return new Node(type, eval, false, label, position);
      }
    }
    return constant(type, eval.eval(NO_ROW), label, position);
  }

  boolean isNullLiteral() {
    return type == null;
  }

  /** "string 'region'", "long 5": the way type errors name an operand. */
  String describe() {
    return (type == null ? "NULL" : Types.name(type) + " " + label);
  }

  /** This node converted to {@code target} (an implicit conversion the caller checked). */
  Node as(DataType target) {
    if (type == null || type.equals(target)) {
      return type == null ? new Node(target, eval, constant, label, position) : this;
    }
    Casts.Conversion c = Casts.implicit(type, target);
    Evaluator inner = eval;
    Evaluator converted =
        row -> {
          Object v = inner.eval(row);
          return v == null ? null : c.apply(v);
        };
    return of(target, converted, List.of(this), label, position);
  }
}
