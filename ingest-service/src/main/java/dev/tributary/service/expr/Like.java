package dev.tributary.service.expr;

import dev.tributary.table.types.PrimitiveType;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code [NOT] LIKE} and {@code ILIKE} ({@code %} any run of characters, {@code _} one character,
 * the escape character, backslash by default, makes the next one literal) and {@code RLIKE} (a Java
 * regular expression found anywhere in the string). A constant pattern is compiled once, and the
 * common shapes {@code 'abc%'}, {@code '%abc'}, {@code '%abc%'} and {@code 'abc'} become plain
 * string tests; every other LIKE pattern is a {@link LikePattern}, which never backtracks.
 */
final class Like {
  private Like() {}

  enum Kind {
    LIKE,
    ILIKE,
    RLIKE
  }

  static Node like(
      Kind kind,
      Node value,
      Node pattern,
      Character escape,
      boolean not,
      String label,
      int position,
      String text) {
    for (Node n : List.of(value, pattern)) {
      if (n.type() != null && n.type() != PrimitiveType.STRING) {
        throw new ExpressionException(
            text,
            n.position(),
            kind
                + " needs string operands, found "
                + n.describe()
                + "; convert it with CAST(... AS string)");
      }
    }
    char esc = escape == null ? '\\' : escape;
    Evaluator v = value.eval();
    Evaluator eval;
    if (pattern.constant()) {
      String p = (String) pattern.eval().eval(null);
      if (p == null) {
        return Node.constant(PrimitiveType.BOOLEAN, null, label, position);
      }
      Predicate<String> matcher;
      try {
        matcher = matcher(kind, p, esc);
      } catch (IllegalArgumentException e) {
        throw new ExpressionException(text, pattern.position(), e.getMessage());
      }
      eval =
          row -> {
            Object s = v.eval(row);
            return s == null ? null : matcher.test((String) s) != not;
          };
    } else {
      Evaluator pe = pattern.eval();
      eval =
          row -> {
            Object s = v.eval(row);
            Object p = pe.eval(row);
            if (s == null || p == null) {
              return null;
            }
            try {
              return matcher(kind, (String) p, esc).test((String) s) != not;
            } catch (IllegalArgumentException invalidPattern) {
              return null;
            }
          };
    }
    return Node.of(PrimitiveType.BOOLEAN, eval, List.of(value, pattern), label, position);
  }

  static Predicate<String> matcher(Kind kind, String pattern, char escape) {
    if (kind == Kind.RLIKE) {
      try {
        Pattern regex = Pattern.compile(pattern);
        return s -> regex.matcher(s).find();
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException(
            "invalid regular expression '" + pattern + "': " + e.getDescription());
      }
    }
    StringBuilder literal = new StringBuilder();
    boolean simple = true; // only % at the ends, no _ or escapes
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == escape || c == '_' || c == '%' && i != 0 && i != pattern.length() - 1) {
        simple = false;
        break;
      }
      if (c != '%') {
        literal.append(c);
      }
    }
    if (simple && kind == Kind.LIKE) {
      String lit = literal.toString();
      boolean starts = pattern.startsWith("%");
      boolean ends = pattern.length() > 1 && pattern.endsWith("%") || pattern.equals("%");
      if (starts && ends) {
        return s -> s.contains(lit);
      } else if (starts) {
        return s -> s.endsWith(lit);
      } else if (ends) {
        return s -> s.startsWith(lit);
      }
      return s -> s.equals(lit);
    }
    return LikePattern.compile(pattern, escape, kind == Kind.ILIKE);
  }
}
