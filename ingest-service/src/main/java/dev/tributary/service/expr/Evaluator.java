package dev.tributary.service.expr;

/** The per-row work of a compiled sub-expression; see {@link CompiledExpression#eval}. */
@FunctionalInterface
interface Evaluator {
  Object eval(Object[] row);
}
