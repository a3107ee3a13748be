package dev.tributary.service.expr;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import java.util.ArrayList;
import java.util.List;

/**
 * AND, OR, NOT with SQL's three-valued logic (FALSE AND NULL is FALSE, TRUE OR NULL is TRUE, other
 * combinations with NULL are NULL), IS [NOT] NULL, IS [NOT] TRUE/FALSE, CASE and COALESCE.
 */
final class Logic {
  private Logic() {}

  static Node and(Node left, Node right, String label, int position, String text) {
    Evaluator l = booleanOperand("AND", left, text).eval();
    Evaluator r = booleanOperand("AND", right, text).eval();
    Evaluator eval =
        row -> {
          Object a = l.eval(row);
          if (a == Boolean.FALSE) {
            return Boolean.FALSE;
          }
          Object b = r.eval(row);
          if (b == Boolean.FALSE) {
            return Boolean.FALSE;
          }
          return a == null || b == null ? null : Boolean.TRUE;
        };
    return Node.of(PrimitiveType.BOOLEAN, eval, List.of(left, right), label, position);
  }

  static Node or(Node left, Node right, String label, int position, String text) {
    Evaluator l = booleanOperand("OR", left, text).eval();
    Evaluator r = booleanOperand("OR", right, text).eval();
    Evaluator eval =
        row -> {
          Object a = l.eval(row);
          if (a == Boolean.TRUE) {
            return Boolean.TRUE;
          }
          Object b = r.eval(row);
          if (b == Boolean.TRUE) {
            return Boolean.TRUE;
          }
          return a == null || b == null ? null : Boolean.FALSE;
        };
    return Node.of(PrimitiveType.BOOLEAN, eval, List.of(left, right), label, position);
  }

  static Node not(Node operand, String label, int position, String text) {
    Evaluator in = booleanOperand("NOT", operand, text).eval();
    Evaluator eval =
        row -> {
          Object v = in.eval(row);
          return v == null ? null : (Object) !((Boolean) v);
        };
    return Node.of(PrimitiveType.BOOLEAN, eval, List.of(operand), label, position);
  }

  static Node isNull(Node operand, boolean not, String label, int position) {
    Evaluator in = operand.eval();
    Evaluator eval = row -> (in.eval(row) == null) != not;
    return Node.of(PrimitiveType.BOOLEAN, eval, List.of(operand), label, position);
  }

  /** {@code x IS [NOT] TRUE|FALSE}: never null. */
  static Node isBoolean(
      Node operand, boolean expected, boolean not, String label, int position, String text) {
    Evaluator in = booleanOperand("IS " + (expected ? "TRUE" : "FALSE"), operand, text).eval();
    Boolean target = expected;
    Evaluator eval = row -> target.equals(in.eval(row)) != not;
    return Node.of(PrimitiveType.BOOLEAN, eval, List.of(operand), label, position);
  }

  /** Searched CASE: the first WHEN that is TRUE (not null) picks its THEN; else ELSE or null. */
  static Node caseWhen(
      List<Node> conditions,
      List<Node> results,
      Node otherwise,
      String label,
      int position,
      String text) {
    for (Node c : conditions) {
      booleanOperand("CASE WHEN", c, text);
    }
    List<Node> all = new ArrayList<>(results);
    if (otherwise != null) {
      all.add(otherwise);
    }
    DataType type = commonType("CASE branches", all, text);
    Evaluator[] when = conditions.stream().map(Node::eval).toArray(Evaluator[]::new);
    Evaluator[] then = results.stream().map(n -> n.as(type).eval()).toArray(Evaluator[]::new);
    Evaluator orElse = otherwise == null ? row -> null : otherwise.as(type).eval();
    Evaluator eval =
        row -> {
          for (int i = 0; i < when.length; i++) {
            if (when[i].eval(row) == Boolean.TRUE) {
              return then[i].eval(row);
            }
          }
          return orElse.eval(row);
        };
    List<Node> children = new ArrayList<>(conditions);
    children.addAll(all);
    return Node.of(type, eval, children, label, position);
  }

  static Node coalesce(List<Node> args, String label, int position, String text) {
    DataType type = commonType("coalesce arguments", args, text);
    Evaluator[] evals = args.stream().map(n -> n.as(type).eval()).toArray(Evaluator[]::new);
    Evaluator eval =
        row -> {
          for (Evaluator e : evals) {
            Object v = e.eval(row);
            if (v != null) {
              return v;
            }
          }
          return null;
        };
    return Node.of(type, eval, args, label, position);
  }

  /** The common type of several values (null when all are NULL literals), or an error. */
  static DataType commonType(String what, List<Node> nodes, String text) {
    DataType type = null;
    Node first = null;
    for (Node n : nodes) {
      if (n.type() == null) {
        continue;
      }
      DataType next = Types.common(type, n.type());
      if (next == null) {
        throw new ExpressionException(
            text,
            n.position(),
            what + " have incompatible types: " + first.describe() + " and " + n.describe());
      }
      if (first == null) {
        first = n;
      }
      type = next;
    }
    return type;
  }

  private static Node booleanOperand(String operator, Node n, String text) {
    if (n.type() != null && n.type() != PrimitiveType.BOOLEAN) {
      throw new ExpressionException(
          text, n.position(), operator + " needs a boolean operand, found " + n.describe());
    }
    return n;
  }
}
