package dev.tributary.service.expr;

/** A boolean expression used as a filter. Immutable and thread-safe. */
public interface CompiledPredicate {

  /**
   * True only when the expression evaluates to TRUE on the row; FALSE and NULL (unknown) both give
   * false, as in SQL's WHERE.
   */
  boolean test(Object[] row);

  /** The source text the predicate was compiled from. */
  String text();
}
