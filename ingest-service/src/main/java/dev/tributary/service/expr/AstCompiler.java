package dev.tributary.service.expr;

import dev.tributary.service.parse.IsoTimestamps;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.TrimFunction;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Concat;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Modulo;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsBooleanExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;

/**
 * Walks JSqlParser's AST once, resolving columns against the input schema, checking types and
 * building the evaluator tree. Every AST class not handled here is rejected as unsupported syntax
 * (with its position), so the language is exactly what docs/EXPRESSIONS.md lists, not whatever
 * JSqlParser happens to accept.
 */
final class AstCompiler {
  private static final Pattern TYPE_NAME =
      Pattern.compile("([a-z_]+)\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?");

  private final SourceText source;
  private final String text;
  private final StructType input;

  AstCompiler(SourceText source, StructType input) {
    this.source = source;
    this.text = source.text;
    this.input = input;
  }

  Node compile(Expression e) {
    int pos = source.position(e);
    String label = e.toString();
    if (e instanceof Column c) {
      return column(c, pos);
    }
    if (e instanceof LongValue v) {
      BigInteger big = v.getBigIntegerValue();
      return integerLiteral(big, label, pos);
    }
    if (e instanceof DoubleValue v) {
      return Node.constant(PrimitiveType.DOUBLE, v.getValue(), label, pos);
    }
    if (e instanceof StringValue v) {
      return Node.constant(PrimitiveType.STRING, v.getNotExcapedValue(), label, pos);
    }
    if (e instanceof BooleanValue v) {
      return Node.constant(PrimitiveType.BOOLEAN, v.getValue(), label, pos);
    }
    if (e instanceof NullValue) {
      return new Node(null, row -> null, true, "NULL", pos);
    }
    if (e instanceof DateTimeLiteralExpression d) {
      return dateTimeLiteral(d, label, pos);
    }
    if (e instanceof SignedExpression s) {
      return signed(s, label, pos);
    }
    if (e instanceof ParenthesedExpressionList<?> list) {
      if (list.size() != 1) {
        throw error(pos, "a parenthesized list is only allowed after IN");
      }
      return compile(list.get(0));
    }
    if (e instanceof Concat c) {
      return concat(c, label, pos);
    }
    if (e instanceof AndExpression a) {
      return Logic.and(
          compile(a.getLeftExpression()), compile(a.getRightExpression()), label, pos, text);
    }
    if (e instanceof OrExpression o) {
      return Logic.or(
          compile(o.getLeftExpression()), compile(o.getRightExpression()), label, pos, text);
    }
    if (e instanceof NotExpression n) {
      return Logic.not(compile(n.getExpression()), label, pos, text);
    }
    if (e instanceof IsNullExpression n) {
      return Logic.isNull(compile(n.getLeftExpression()), n.isNot(), label, pos);
    }
    if (e instanceof IsBooleanExpression b) {
      return Logic.isBoolean(
          compile(b.getLeftExpression()), b.isTrue(), b.isNot(), label, pos, text);
    }
    if (e instanceof LikeExpression l) {
      return like(l, label, pos);
    }
    if (e instanceof BinaryExpression b) {
      Arithmetic.Op arithmetic = arithmeticOp(b);
      if (arithmetic != null) {
        return Arithmetic.binary(
            arithmetic,
            compile(b.getLeftExpression()),
            compile(b.getRightExpression()),
            label,
            operatorPosition(b, pos),
            text);
      }
      Comparisons.Op comparison = comparisonOp(b);
      if (comparison != null) {
        return Comparisons.compare(
            comparison,
            compile(b.getLeftExpression()),
            compile(b.getRightExpression()),
            label,
            operatorPosition(b, pos),
            text);
      }
    }
    if (e instanceof InExpression in) {
      return in(in, label, pos);
    }
    if (e instanceof Between b) {
      return Comparisons.between(
          compile(b.getLeftExpression()),
          compile(b.getBetweenExpressionStart()),
          compile(b.getBetweenExpressionEnd()),
          b.isNot(),
          label,
          pos,
          text);
    }
    if (e instanceof CaseExpression c) {
      return caseWhen(c, label, pos);
    }
    if (e instanceof CastExpression c) {
      return cast(c, label, pos);
    }
    if (e instanceof TrimFunction t) {
      if (t.getTrimSpecification() != null || t.getFromExpression() != null) {
        throw error(pos, "only trim(x) is supported, without BOTH/LEADING/TRAILING or FROM");
      }
      return function("trim", List.of(t.getExpression()), label, pos);
    }
    if (e instanceof Function f) {
      return function(f, label, pos);
    }
    if (e instanceof TimeKeyExpression t) {
      throw error(
          pos,
          Functions.nonDeterministic(
              t.getStringValue().replace("()", "").toLowerCase(Locale.ROOT)));
    }
    if (label.matches("[A-Za-z_]+")) {
      // JSqlParser reads some words (DAY, YEAR, ...) as keywords, never as column names.
      throw error(
          pos,
          "'"
              + label.toLowerCase(Locale.ROOT)
              + "' is an SQL keyword here; write"
              + " `"
              + label.toLowerCase(Locale.ROOT)
              + "` in back quotes to name a column");
    }
    throw error(
        pos,
        "unsupported syntax '"
            + label
            + "'; see docs/EXPRESSIONS.md for the"
            + " operators and functions the language has");
  }

  private ExpressionException error(int position, String reason) {
    return new ExpressionException(text, position, reason);
  }

  /** The position of a binary operator's own symbol, found after its left operand. */
  private int operatorPosition(BinaryExpression b, int fallback) {
    String op = b.getStringExpression();
    int from =
        source.position(b.getLeftExpression()) - 1 + b.getLeftExpression().toString().length();
    int at = from >= 0 && from <= text.length() ? text.indexOf(op, from) : -1;
    return at < 0 ? fallback : at + 1;
  }

  private Node integerLiteral(BigInteger v, String label, int pos) {
    if (v.bitLength() < 32) {
      return Node.constant(PrimitiveType.INTEGER, v.intValue(), label, pos);
    }
    if (v.bitLength() < 64) {
      return Node.constant(PrimitiveType.LONG, v.longValue(), label, pos);
    }
    throw error(
        pos,
        "integer literal "
            + v
            + " is out of range for long; write it as a decimal"
            + " (CAST('"
            + v
            + "' AS decimal(38,0)))");
  }

  private Node signed(SignedExpression s, String label, int pos) {
    Expression inner = s.getExpression();
    if (s.getSign() == '-' && inner instanceof LongValue v) {
      // Folded here so that -2147483648 is an int and -9223372036854775808 a long.
      return integerLiteral(v.getBigIntegerValue().negate(), label, pos);
    }
    Node operand = compile(inner);
    if (s.getSign() == '-') {
      return Arithmetic.negate(operand, label, pos, text);
    }
    if (s.getSign() == '+') {
      if (operand.type() != null && !Types.isNumeric(operand.type())) {
        throw error(pos, "unary + needs a number, found " + operand.describe());
      }
      return operand;
    }
    throw error(pos, "unsupported operator '" + s.getSign() + "'");
  }

  private Node dateTimeLiteral(DateTimeLiteralExpression d, String label, int pos) {
    String value = d.getValue();
    if (value.length() >= 2 && value.startsWith("'") && value.endsWith("'")) {
      value = value.substring(1, value.length() - 1);
    }
    switch (d.getType()) {
      case TIMESTAMP, TIMESTAMPTZ -> {
        Object ts = IsoTimestamps.parseTimestamp(value.trim());
        if (ts == null) {
          throw error(
              pos,
              "invalid TIMESTAMP literal '"
                  + value
                  + "'; write ISO-8601 like"
                  + " TIMESTAMP '2026-01-01T00:00:00Z' (no zone means UTC)");
        }
        return Node.constant(PrimitiveType.TIMESTAMP, ts, label, pos);
      }
      case DATE -> {
        Object date = IsoTimestamps.parseDate(value.trim());
        if (date == null) {
          throw error(pos, "invalid DATE literal '" + value + "'; write DATE 'yyyy-MM-dd'");
        }
        return Node.constant(PrimitiveType.DATE, date, label, pos);
      }
      default ->
          throw error(pos, d.getType() + " literals are not supported; use TIMESTAMP or" + " DATE");
    }
  }

  /**
   * Resolves a.b.c through nested structs; exact match first, then a unique case-insensitive one.
   */
  private Node column(Column c, int pos) {
    List<String> parts = nameParts(c.getFullyQualifiedName());
    StructType struct = input;
    int[] path = new int[parts.size()];
    DataType type = null;
    StringBuilder resolved = new StringBuilder();
    for (int k = 0; k < parts.size(); k++) {
      if (struct == null) {
        throw error(
            pos,
            "column '"
                + resolved
                + "' is a "
                + Types.name(type)
                + ", not a struct, so it has no field '"
                + parts.get(k)
                + "'");
      }
      int i = indexOf(struct, parts.get(k));
      if (i < 0) {
        String reason = unknownColumn(String.join(".", parts), struct, resolved.toString());
        throw k == 0
            ? ExpressionException.unknownColumn(text, pos, reason, parts.get(0))
            : error(pos, reason);
      }
      StructField f = struct.fields().get(i);
      path[k] = i;
      type = f.type();
      resolved.append(k == 0 ? "" : ".").append(f.name());
      struct = type instanceof StructType s ? s : null;
    }
    String label = "'" + resolved + "'";
    if (path.length == 1) {
      int i = path[0];
      return new Node(type, row -> row[i], false, label, pos);
    }
    return new Node(
        type,
        row -> {
          Object v = row[path[0]];
          for (int k = 1; k < path.length && v != null; k++) {
            v = ((Object[]) v)[path[k]];
          }
          return v;
        },
        false,
        label,
        pos);
  }

  private static int indexOf(StructType struct, String name) {
    int i = struct.indexOf(name);
    if (i >= 0) {
      return i;
    }
    int found = -1;
    for (int k = 0; k < struct.size(); k++) {
      if (struct.fields().get(k).name().equalsIgnoreCase(name)) {
        if (found >= 0) {
          return -1; // ambiguous: a and A both exist; only the exact spelling resolves
        }
        found = k;
      }
    }
    return found;
  }

  private String unknownColumn(String name, StructType scope, String parent) {
    List<String> candidates = new ArrayList<>();
    collectPaths(input, "", candidates);
    String nearest = Names.nearest(name, candidates);
    String where =
        parent.isEmpty()
            ? ""
            : " (struct '" + parent + "' has fields " + String.join(", ", scope.fieldNames()) + ")";
    if (nearest != null) {
      return "unknown column '" + name + "'" + where + "; did you mean '" + nearest + "'?";
    }
    List<String> shown = candidates.size() > 20 ? candidates.subList(0, 20) : candidates;
    return "unknown column '"
        + name
        + "'"
        + where
        + "; columns are "
        + String.join(", ", shown)
        + (candidates.size() > shown.size() ? ", ..." : "");
  }

  private static void collectPaths(StructType s, String prefix, List<String> out) {
    for (StructField f : s.fields()) {
      out.add(prefix + f.name());
      if (f.type() instanceof StructType child) {
        collectPaths(child, prefix + f.name() + ".", out);
      }
    }
  }

  /** Splits a.`b c`."d" into its unquoted parts. */
  static List<String> nameParts(String qualified) {
    List<String> parts = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < qualified.length(); i++) {
      char ch = qualified.charAt(i);
      if (quote != 0) {
        if (ch == quote) {
          if (i + 1 < qualified.length() && qualified.charAt(i + 1) == quote) {
            cur.append(ch); // a doubled quote inside a quoted name
            i++;
          } else {
            quote = 0;
          }
        } else {
          cur.append(ch);
        }
      } else if (ch == '`' || ch == '"') {
        quote = ch;
      } else if (ch == '.') {
        parts.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(ch);
      }
    }
    parts.add(cur.toString());
    return parts;
  }

  private static Arithmetic.Op arithmeticOp(BinaryExpression b) {
    if (b instanceof Addition) {
      return Arithmetic.Op.ADD;
    }
    if (b instanceof Subtraction) {
      return Arithmetic.Op.SUBTRACT;
    }
    if (b instanceof Multiplication) {
      return Arithmetic.Op.MULTIPLY;
    }
    if (b instanceof Division) {
      return Arithmetic.Op.DIVIDE;
    }
    if (b instanceof Modulo) {
      return Arithmetic.Op.REMAINDER;
    }
    return null;
  }

  private static Comparisons.Op comparisonOp(BinaryExpression b) {
    if (b instanceof EqualsTo) {
      return Comparisons.Op.EQ;
    }
    if (b instanceof NotEqualsTo) {
      return Comparisons.Op.NE;
    }
    if (b instanceof GreaterThan) {
      return Comparisons.Op.GT;
    }
    if (b instanceof GreaterThanEquals) {
      return Comparisons.Op.GE;
    }
    if (b instanceof MinorThan) {
      return Comparisons.Op.LT;
    }
    if (b instanceof MinorThanEquals) {
      return Comparisons.Op.LE;
    }
    return null;
  }

  private Node concat(Concat c, String label, int pos) {
    List<Node> args = List.of(compile(c.getLeftExpression()), compile(c.getRightExpression()));
    List<Casts.Conversion> texts = new ArrayList<>();
    for (Node n : args) {
      DataType t = n.type() == null ? PrimitiveType.STRING : n.type();
      if (t instanceof StructType || t == PrimitiveType.BINARY) {
        throw error(n.position(), "cannot concatenate " + n.describe());
      }
      texts.add(Casts.explicit(t, PrimitiveType.STRING));
    }
    return Functions.concatNode(args, texts, label, operatorPosition(c, pos));
  }

  private Node like(LikeExpression l, String label, int pos) {
    Like.Kind kind =
        switch (l.getLikeKeyWord()) {
          case LIKE -> Like.Kind.LIKE;
          case ILIKE -> Like.Kind.ILIKE;
          case RLIKE, REGEXP -> Like.Kind.RLIKE;
          default ->
              throw error(
                  pos, "unsupported operator " + l.getLikeKeyWord() + "; use LIKE, ILIKE or RLIKE");
        };
    Character escape = null;
    if (l.getEscape() != null) {
      Node esc = compile(l.getEscape());
      Object v = esc.constant() ? esc.eval().eval(null) : null;
      if (!(v instanceof String s) || s.length() != 1) {
        throw error(
            esc.position(), "ESCAPE needs a one-character string literal, found " + esc.describe());
      }
      escape = s.charAt(0);
    }
    return Like.like(
        kind,
        compile(l.getLeftExpression()),
        compile(l.getRightExpression()),
        escape,
        l.isNot(),
        label,
        pos,
        text);
  }

  private Node in(InExpression in, String label, int pos) {
    if (!(in.getRightExpression() instanceof ExpressionList<?> list)) {
      throw error(pos, "IN needs a list of values in parentheses: x IN (1, 2, 3)");
    }
    List<Node> items = new ArrayList<>();
    for (Expression item : list) {
      items.add(compile(item));
    }
    if (items.isEmpty()) {
      throw error(pos, "IN needs at least one value in its list");
    }
    return Comparisons.in(compile(in.getLeftExpression()), items, in.isNot(), label, pos, text);
  }

  private Node caseWhen(CaseExpression c, String label, int pos) {
    Node subject = c.getSwitchExpression() == null ? null : compile(c.getSwitchExpression());
    List<Node> conditions = new ArrayList<>();
    List<Node> results = new ArrayList<>();
    for (WhenClause w : c.getWhenClauses()) {
      Node when = compile(w.getWhenExpression());
      if (subject != null) {
        // CASE x WHEN v THEN ...: the same as CASE WHEN x = v THEN ...
        when =
            Comparisons.compare(
                Comparisons.Op.EQ, subject, when, when.label(), when.position(), text);
      }
      conditions.add(when);
      results.add(compile(w.getThenExpression()));
    }
    Node otherwise = c.getElseExpression() == null ? null : compile(c.getElseExpression());
    return Logic.caseWhen(conditions, results, otherwise, label, pos, text);
  }

  private Node cast(CastExpression c, String label, int pos) {
    Node operand = compile(c.getLeftExpression());
    String typeText = c.getColDataType().toString();
    DataType target = castTarget(typeText, pos);
    if (operand.type() == null) {
      return new Node(target, row -> null, true, label, pos);
    }
    Casts.Conversion conv = Casts.explicit(operand.type(), target);
    if (conv == null) {
      throw error(pos, "cannot cast " + operand.describe() + " to " + Types.name(target));
    }
    Evaluator in = operand.eval();
    Evaluator eval =
        row -> {
          Object v = in.eval(row);
          return v == null ? null : conv.apply(v);
        };
    return Node.of(target, eval, List.of(operand), label, pos);
  }

  /** CAST target names: the pipeline schema's names plus common SQL spellings. */
  private DataType castTarget(String typeText, int pos) {
    Matcher m = TYPE_NAME.matcher(typeText.trim().toLowerCase(Locale.ROOT));
    if (m.matches()) {
      String base = m.group(1);
      if (m.group(2) == null) {
        DataType t =
            switch (base) {
              case "string", "varchar", "text", "char" -> PrimitiveType.STRING;
              case "int", "integer" -> PrimitiveType.INTEGER;
              case "long", "bigint" -> PrimitiveType.LONG;
              case "double", "float", "real" -> PrimitiveType.DOUBLE;
              case "boolean", "bool" -> PrimitiveType.BOOLEAN;
              case "timestamp" -> PrimitiveType.TIMESTAMP;
              case "date" -> PrimitiveType.DATE;
              case "decimal", "numeric" -> new DecimalType(10, 0);
              default -> null;
            };
        if (t != null) {
          return t;
        }
      } else if (base.equals("decimal") || base.equals("numeric")) {
        int precision = Integer.parseInt(m.group(2));
        int scale = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        try {
          return new DecimalType(precision, scale);
        } catch (IllegalArgumentException e) {
          throw error(pos, "invalid type " + typeText + ": " + e.getMessage());
        }
      } else if (base.equals("varchar") || base.equals("char")) {
        return PrimitiveType.STRING;
      }
    }
    throw error(
        pos,
        "unknown type '"
            + typeText
            + "' in CAST; use one of string, int, long,"
            + " double, boolean, timestamp, date, decimal(p,s)");
  }

  private Node function(Function f, String label, int pos) {
    if (f.isDistinct()
        || f.isAllColumns()
        || f.getNamedParameters() != null
        || f.getMultipartName().size() > 1) {
      throw error(pos, "unsupported function call '" + label + "'");
    }
    List<Expression> args = new ArrayList<>();
    if (f.getParameters() != null) {
      for (Expression a : f.getParameters()) {
        args.add(a);
      }
    }
    return function(f.getName(), args, label, pos);
  }

  private Node function(String name, List<Expression> args, String label, int pos) {
    List<Node> compiled = new ArrayList<>();
    for (Expression a : args) {
      compiled.add(compile(a));
    }
    return Functions.compile(new Functions.Call(name, compiled, label, pos, text));
  }
}
