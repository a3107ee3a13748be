package dev.tributary.service.expr;

import dev.tributary.table.types.DataType;

/** An expression compiled against an input schema. Immutable and thread-safe. */
public interface CompiledExpression {

  /** The type of every non-null value {@link #eval} returns. */
  DataType type();

  /**
   * Evaluates the expression on a row aligned with the input schema it was compiled against.
   * Returns a value of the Java class {@link DataType} documents for {@link #type()}, or null.
   * Never throws for any row of the input schema: invalid operations (division by zero, overflow,
   * failed casts) give null, as documented in docs/EXPRESSIONS.md.
   */
  Object eval(Object[] row);

  /** The source text the expression was compiled from. */
  String text();
}
