package dev.tributary.config;

import java.util.Optional;

/**
 * Bounds on an expression's size (a {@code filter}, a {@code derive} column), checked by one linear
 * scan when the declaration is read and again before the text reaches the expression parser: the
 * parser's lookahead grows badly with nesting (3,000 parentheses took 22 s to refuse) and the
 * compiled tree is evaluated recursively, so a very deep or very long expression must fail fast
 * with a clear message rather than with a {@link StackOverflowError} or a stalled start.
 */
public final class ExpressionBounds {
  /** Characters in one expression. */
  public static final int MAX_LENGTH = 10_000;

  /** Levels of parentheses. */
  public static final int MAX_DEPTH = 64;

  /** Operators (AND, OR, NOT, arithmetic, comparison, concatenation). */
  public static final int MAX_OPERATORS = 500;

  private ExpressionBounds() {}

  /**
   * A passed limit.
   *
   * @param position 1-based character position in the expression where the limit is passed
   * @param reason what is wrong and how to fix it
   */
  public record Violation(int position, String reason) {}

  /** The first limit the expression passes, if any. */
  public static Optional<Violation> check(String text) {
    if (text.length() > MAX_LENGTH) {
      return Optional.of(
          new Violation(
              MAX_LENGTH + 1,
              "the expression is "
                  + text.length()
                  + " characters long, more than the "
                  + MAX_LENGTH
                  + " allowed; split it into several"
                  + " derive or filter steps"));
    }
    int depth = 0;
    int operators = 0;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        i = skipQuoted(text, i, c);
        continue;
      }
      if (c == '(') {
        if (++depth > MAX_DEPTH) {
          return Optional.of(
              new Violation(
                  i + 1,
                  "the expression is nested more than "
                      + MAX_DEPTH
                      + " parentheses deep; simplify it or split it into several derive steps"));
        }
      } else if (c == ')') {
        depth = Math.max(0, depth - 1);
      }
      int end = i + 1;
      boolean operator = false;
      if (isSymbol(c)) {
        while (end < text.length() && isSymbol(text.charAt(end))) {
          end++;
        }
        operator = true;
      } else if (Character.isLetter(c) || c == '_') {
        while (end < text.length()
            && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_')) {
          end++;
        }
        String word = text.substring(i, end);
        operator =
            word.equalsIgnoreCase("and")
                || word.equalsIgnoreCase("or")
                || word.equalsIgnoreCase("not");
      }
      if (operator && ++operators > MAX_OPERATORS) {
        return Optional.of(
            new Violation(
                i + 1,
                "the expression has more than "
                    + MAX_OPERATORS
                    + " operators; write a long list of alternatives as column IN (value, ...), or split it"
                    + " into several steps"));
      }
      i = end;
    }
    return Optional.empty();
  }

  private static boolean isSymbol(char c) {
    return "+-*/%<>=!|&^".indexOf(c) >= 0;
  }

  /** The index after the closing quote (a doubled quote is an escaped one), or the end. */
  private static int skipQuoted(String text, int open, char quote) {
    int i = open + 1;
    while (i < text.length()) {
      if (text.charAt(i) == quote) {
        if (i + 1 < text.length() && text.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return i;
  }
}
