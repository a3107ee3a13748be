package dev.tributary.service.expr;

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

  /** An error at {@code position} (1-based, into {@code expression}). */
  public ExpressionException(String expression, int position, String reason) {
    this("", expression, position, reason);
  }

  private ExpressionException(String where, String expression, int position, String reason) {
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
  }

  /**
   * The same error, located in a pipeline declaration ({@code transform[2].derive.amount}); the
   * location prefixes the message.
   */
  public ExpressionException in(String location) {
    return new ExpressionException(location, expression, position, reason);
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

  /** What is wrong and, where possible, how to fix it; without the position. */
  public String reason() {
    return reason;
  }
}
