package dev.tributary.service.expr;

import java.util.Optional;

/**
 * An expression that cannot be compiled: a syntax error, an unknown column or function, or a type
 * error. Carries the expression text, the 1-based character position of the offending part and the
 * reason; {@link #getMessage()} combines them into one line such as {@code cannot compare string
 * 'region' with long 5 at position 8 of "region > 5"}.
 */
public final class ExpressionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String where;
  private final String expression;
  private final int position;
  private final String reason;
  private final String unknownColumn;

  /** An error at {@code position} (1-based, into {@code expression}). */
  public ExpressionException(String expression, int position, String reason) {
    this("", expression, position, reason, null);
  }

  /**
   * An error at {@code position}: the top-level column {@code column} is not among the input
   * columns ({@link #unknownColumn()}).
   */
  public static ExpressionException unknownColumn(
      String expression, int position, String reason, String column) {
    return new ExpressionException("", expression, position, reason, column);
  }

  private ExpressionException(
      String where, String expression, int position, String reason, String unknownColumn) {
    super(
        (where.isEmpty() ? "" : where + ": ")
            + reason
            + " at position "
            + position
            + " of \""
            + expression
            + "\"");
    this.where = where;
    this.expression = expression;
    this.position = position;
    this.reason = reason;
    this.unknownColumn = unknownColumn;
  }

  /**
   * The same error, located in a pipeline declaration ({@code transform[2].derive.amount}); the
   * location prefixes the message.
   */
  public ExpressionException in(String location) {
    return new ExpressionException(location, expression, position, reason, unknownColumn);
  }

  /** Where in the pipeline the expression was declared, or "" when not known. */
  public String where() {
    return where;
  }

  /** The full expression text that failed to compile. */
  public String expression() {
    return expression;
  }

  /** 1-based position of the offending part in {@link #expression()}. */
  public int position() {
    return position;
  }

  /**
   * The top-level column the expression names and the input lacks, when that is what failed: a
   * caller that adds columns later (a join's) can tell such an error from one that no column can
   * fix.
   */
  public Optional<String> unknownColumn() {
    return Optional.ofNullable(unknownColumn);
  }

  /** What is wrong and, where possible, how to fix it; without the position. */
  public String reason() {
    return reason;
  }
}
