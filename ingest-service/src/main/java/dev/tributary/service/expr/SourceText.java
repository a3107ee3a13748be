package dev.tributary.service.expr;

import dev.tributary.config.ExpressionBounds;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.Node;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;

/**
 * The expression text and its JSqlParser AST, with 1-based character positions for messages.
 * JSqlParser reports line/column pairs; expressions written as YAML block scalars may span lines,
 * so positions are converted to offsets into the whole text.
 */
final class SourceText {
  private static final Pattern LEXICAL_POSITION = Pattern.compile("line (\\d+), column (\\d+)");

  final String text;
  private final int[] lineStarts;

  SourceText(String text) {
    this.text = text;
    int lines = 1;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        lines++;
      }
    }
    lineStarts = new int[lines];
    int line = 1;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        lineStarts[line++] = i + 1;
      }
    }
  }

  /** Parses the whole text as one expression, or throws a syntax error with its position. */
  Expression parse() {
    if (text.isBlank()) {
      throw new ExpressionException(text, 1, "the expression is empty");
    }
    ExpressionBounds.check(text)
        .ifPresent(
            v -> {
              throw new ExpressionException(text, v.position(), v.reason());
            });
    CCJSqlParser parser = new CCJSqlParser(new StringProvider(text));
    try {
      Expression e = parser.Expression();
      Token next = parser.getToken(1);
      if (next.kind != CCJSqlParserConstants.EOF) {
        throw new ExpressionException(
            text,
            position(next.beginLine, next.beginColumn),
            "syntax error: unexpected '" + next.image + "' after a complete expression");
      }
      return e;
    } catch (ParseException e) {
      Token bad = e.currentToken == null ? null : e.currentToken.next;
      if (bad == null || bad.kind == CCJSqlParserConstants.EOF) {
        throw new ExpressionException(
            text, text.stripTrailing().length() + 1, "syntax error: the expression ends too early");
      }
      throw new ExpressionException(
          text,
          position(bad.beginLine, bad.beginColumn),
          "syntax error: unexpected '" + bad.image + "'");
    } catch (ExpressionException e) {
      throw e;
    } catch (RuntimeException | Error e) {
      // JavaCC's lexer reports e.g. an unterminated string as an Error/RuntimeException whose
      // message carries "line L, column C".
      String message = String.valueOf(e.getMessage());
      Matcher m = LEXICAL_POSITION.matcher(message);
      int at = m.find() ? position(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))) : 1;
      throw new ExpressionException(
          text,
          Math.min(at, text.length()),
          "syntax error: "
              + (message.contains("<EOF>")
                  ? "unterminated quote or string"
                  : "unreadable character"));
    }
  }

  /** 1-based position of an AST node's first token, or of its leftmost located child. */
  int position(Expression e) {
    Node node = e.getASTNode();
    if (node != null && node.jjtGetFirstToken() != null) {
      Token t = node.jjtGetFirstToken();
      return position(t.beginLine, t.beginColumn);
    }
    if (e instanceof BinaryExpression b) {
      return position(b.getLeftExpression());
    }
    return 1;
  }

  private int position(int line, int column) {
    if (line < 1 || line > lineStarts.length) {
      return 1;
    }
    return Math.max(1, lineStarts[line - 1] + column);
  }
}
