package dev.tributary.service.expr;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The built-in functions. Each takes compiled arguments and returns a node; all are deterministic
 * and return null when any argument is null, except {@code coalesce}, {@code greatest} and {@code
 * least} (which skip nulls). Time functions work in UTC.
 */
final class Functions {
  private Functions() {}

  /** A function call being compiled. */
  record Call(String name, List<Node> args, String label, int position, String text) {
    Node arg(int i) {
      return args.get(i);
    }

    ExpressionException error(int at, String reason) {
      return new ExpressionException(text, at, reason);
    }
  }

  private interface Compiler {
    Node compile(Call call);
  }

  private record Spec(int minArgs, int maxArgs, Compiler compiler) {}

  private static final Map<String, Spec> FUNCTIONS = new TreeMap<>();

  /** Functions users may expect but which would make replays differ. */
  private static final Set<String> NON_DETERMINISTIC =
      Set.of(
          "current_timestamp",
          "current_date",
          "current_time",
          "now",
          "localtimestamp",
          "sysdate",
          "getdate",
          "unix_timestamp",
          "rand",
          "random",
          "uuid",
          "monotonically_increasing_id");

  static {
    FUNCTIONS.put("lower", new Spec(1, 1, c -> stringToString(c, s -> s.toLowerCase(Locale.ROOT))));
    FUNCTIONS.put("upper", new Spec(1, 1, c -> stringToString(c, s -> s.toUpperCase(Locale.ROOT))));
    FUNCTIONS.put("trim", new Spec(1, 1, c -> stringToString(c, Functions::trimSpaces)));
    FUNCTIONS.put("length", new Spec(1, 1, Functions::length));
    FUNCTIONS.put("size", new Spec(1, 1, Functions::size));
    FUNCTIONS.put("element_at", new Spec(2, 2, Functions::elementAt));
    FUNCTIONS.put("substring", new Spec(2, 3, Functions::substring));
    FUNCTIONS.put("concat", new Spec(1, Integer.MAX_VALUE, Functions::concat));
    FUNCTIONS.put(
        "coalesce",
        new Spec(
            1,
            Integer.MAX_VALUE,
            c -> Logic.coalesce(c.args(), c.label(), c.position(), c.text())));
    FUNCTIONS.put("abs", new Spec(1, 1, Functions::abs));
    FUNCTIONS.put("round", new Spec(1, 2, Functions::round));
    FUNCTIONS.put("floor", new Spec(1, 1, c -> floorCeil(c, RoundingMode.FLOOR)));
    FUNCTIONS.put("ceil", new Spec(1, 1, c -> floorCeil(c, RoundingMode.CEILING)));
    FUNCTIONS.put("greatest", new Spec(2, Integer.MAX_VALUE, c -> extreme(c, 1)));
    FUNCTIONS.put("least", new Spec(2, Integer.MAX_VALUE, c -> extreme(c, -1)));
    FUNCTIONS.put("date_trunc", new Spec(2, 2, Temporal::dateTrunc));
    FUNCTIONS.put("to_date", new Spec(1, 1, Temporal::toDate));
    FUNCTIONS.put("year", new Spec(1, 1, c -> Temporal.field(c, Temporal.Field.YEAR)));
    FUNCTIONS.put("month", new Spec(1, 1, c -> Temporal.field(c, Temporal.Field.MONTH)));
    FUNCTIONS.put("day", new Spec(1, 1, c -> Temporal.field(c, Temporal.Field.DAY)));
    FUNCTIONS.put("hour", new Spec(1, 1, c -> Temporal.field(c, Temporal.Field.HOUR)));
    FUNCTIONS.put("minute", new Spec(1, 1, c -> Temporal.field(c, Temporal.Field.MINUTE)));
    FUNCTIONS.put("second", new Spec(1, 1, c -> Temporal.field(c, Temporal.Field.SECOND)));
  }

  /** Names of all functions, for messages and docs. */
  static Set<String> names() {
    return FUNCTIONS.keySet();
  }

  static Node compile(Call call) {
    String name = call.name().toLowerCase(Locale.ROOT);
    if (NON_DETERMINISTIC.contains(name)) {
      throw call.error(call.position(), nonDeterministic(name));
    }
    Spec spec = FUNCTIONS.get(name);
    if (spec == null) {
      String nearest = Names.nearest(name, FUNCTIONS.keySet());
      throw call.error(
          call.position(),
          "unknown function '"
              + call.name()
              + "'"
              + (nearest == null ? "" : "; did you mean '" + nearest + "'?")
              + " (functions: "
              + String.join(", ", FUNCTIONS.keySet())
              + ")");
    }
    int n = call.args().size();
    if (n < spec.minArgs() || n > spec.maxArgs()) {
      throw call.error(
          call.position(), "function " + name + " takes " + arity(spec) + ", found " + n);
    }
    return spec.compiler().compile(call);
  }

  static String nonDeterministic(String name) {
    return "function '"
        + name
        + "' is not allowed: it is non-deterministic, and a replayed batch"
        + " must produce exactly the rows of the first run; use a timestamp column of the record"
        + " instead";
  }

  private static String arity(Spec s) {
    if (s.maxArgs() == Integer.MAX_VALUE) {
      return "at least " + s.minArgs() + " argument" + (s.minArgs() == 1 ? "" : "s");
    }
    if (s.minArgs() == s.maxArgs()) {
      return s.minArgs() + " argument" + (s.minArgs() == 1 ? "" : "s");
    }
    return s.minArgs() + " or " + s.maxArgs() + " arguments";
  }

  /** Checks that argument i has one of the accepted kinds ("a string", "a number", ...). */
  static Node expect(Call c, int i, boolean ok, String what) {
    Node n = c.arg(i);
    if (n.type() != null && !ok) {
      throw c.error(
          n.position(),
          "function "
              + c.name().toLowerCase(Locale.ROOT)
              + " expects "
              + what
              + " as argument "
              + (i + 1)
              + ", found "
              + n.describe());
    }
    return n;
  }

  /** A node applying {@code f} to the non-null value of one argument. */
  static Node unary(Call c, DataType type, Function<Object, Object> f) {
    Evaluator in = c.arg(0).eval();
    Evaluator eval =
        row -> {
          Object v = in.eval(row);
          return v == null ? null : f.apply(v);
        };
    return Node.of(type, eval, c.args(), c.label(), c.position());
  }

  private static Node stringToString(Call c, Function<String, String> f) {
    expect(c, 0, c.arg(0).type() == PrimitiveType.STRING, "a string");
    return unary(c, PrimitiveType.STRING, v -> f.apply((String) v));
  }

  /** Spark's trim removes spaces only, not tabs or newlines. */
  private static String trimSpaces(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && s.charAt(start) == ' ') {
      start++;
    }
    while (end > start && s.charAt(end - 1) == ' ') {
      end--;
    }
    return s.substring(start, end);
  }

  private static Node length(Call c) {
    expect(c, 0, c.arg(0).type() == PrimitiveType.STRING, "a string");
    return unary(
        c,
        PrimitiveType.INTEGER,
        v -> {
          String s = (String) v;
          return s.codePointCount(0, s.length());
        });
  }

  /** {@code size(array or map)}: the number of elements or entries. */
  private static Node size(Call c) {
    DataType t = c.arg(0).type();
    expect(c, 0, t instanceof ArrayType || t instanceof MapType, "an array or a map");
    return unary(
        c, PrimitiveType.INTEGER, v -> v instanceof List<?> l ? l.size() : ((Map<?, ?>) v).size());
  }

  /**
   * {@code element_at(array, i)}: the i-th element, 1-based, a negative i counting from the end;
   * null when i is 0 or beyond the array (as Spark's try_element_at). {@code element_at(map, key)}:
   * the key's value, or null.
   */
  private static Node elementAt(Call c) {
    DataType t = c.arg(0).type();
    if (t == null) {
      throw c.error(
          c.arg(0).position(), "function element_at expects an array or a map as argument 1");
    }
    Evaluator container = c.arg(0).eval();
    if (t instanceof ArrayType array) {
      expect(c, 1, Types.isIntegral(c.arg(1).type()), "an integer index");
      Evaluator index = c.arg(1).eval();
      Evaluator eval =
          row -> {
            Object a = container.eval(row);
            Object i = index.eval(row);
            if (a == null || i == null) {
              return null;
            }
            List<?> list = (List<?>) a;
            long at = ((Number) i).longValue();
            long zeroBased = at > 0 ? at - 1 : list.size() + at;
            return at == 0 || zeroBased < 0 || zeroBased >= list.size()
                ? null
                : list.get((int) zeroBased);
          };
      return Node.of(array.elementType(), eval, c.args(), c.label(), c.position());
    }
    expect(c, 0, t instanceof MapType, "an array or a map");
    MapType map = (MapType) t;
    expect(
        c,
        1,
        c.arg(1).isNullLiteral() || map.keyType().equals(c.arg(1).type()),
        "a key of type " + Types.name(map.keyType()));
    Evaluator key = c.arg(1).eval();
    Evaluator eval =
        row -> {
          Object m = container.eval(row);
          Object k = key.eval(row);
          return m == null || k == null ? null : ((Map<?, ?>) m).get(k);
        };
    return Node.of(map.valueType(), eval, c.args(), c.label(), c.position());
  }

  /**
   * {@code substring(s, pos[, len])} in characters (code points), 1-based; pos 0 acts as 1, a
   * negative pos counts from the end, a missing len means "to the end" (Spark's rules).
   */
  private static Node substring(Call c) {
    expect(c, 0, c.arg(0).type() == PrimitiveType.STRING, "a string");
    for (int i = 1; i < c.args().size(); i++) {
      expect(c, i, Types.isIntegral(c.arg(i).type()), "an integer");
    }
    Evaluator s = c.arg(0).eval();
    Evaluator pos = c.arg(1).eval();
    Evaluator len = c.args().size() == 3 ? c.arg(2).eval() : row -> Integer.MAX_VALUE;
    Evaluator eval =
        row -> {
          Object sv = s.eval(row);
          Object pv = pos.eval(row);
          Object lv = len.eval(row);
          if (sv == null || pv == null || lv == null) {
            return null;
          }
          return substring((String) sv, ((Number) pv).longValue(), ((Number) lv).longValue());
        };
    return Node.of(PrimitiveType.STRING, eval, c.args(), c.label(), c.position());
  }

  static String substring(String s, long pos, long len) {
    int chars = s.codePointCount(0, s.length());
    long start = pos > 0 ? pos - 1 : pos < 0 ? chars + pos : 0;
    long end = start + len;
    start = Math.max(start, 0);
    end = Math.min(end, chars);
    if (start >= end) {
      return "";
    }
    int from = s.offsetByCodePoints(0, (int) start);
    int to = s.offsetByCodePoints(from, (int) (end - start));
    return s.substring(from, to);
  }

  private static Node concat(Call c) {
    List<Casts.Conversion> texts = new ArrayList<>();
    for (int i = 0; i < c.args().size(); i++) {
      Node n = c.arg(i);
      DataType t = n.type() == null ? PrimitiveType.STRING : n.type();
      expect(c, i, !(t instanceof StructType) && t != PrimitiveType.BINARY, "a scalar value");
      texts.add(Casts.explicit(t, PrimitiveType.STRING));
    }
    return concatNode(c.args(), texts, c.label(), c.position());
  }

  /** Concatenation of the text forms of the arguments; null if any is null (Spark's concat). */
  static Node concatNode(
      List<Node> args, List<Casts.Conversion> texts, String label, int position) {
    Evaluator[] evals = args.stream().map(Node::eval).toArray(Evaluator[]::new);
    Casts.Conversion[] conv = texts.toArray(Casts.Conversion[]::new);
    Evaluator eval =
        row -> {
          StringBuilder b = new StringBuilder();
          for (int i = 0; i < evals.length; i++) {
            Object v = evals[i].eval(row);
            if (v == null) {
              return null;
            }
            b.append((String) conv[i].apply(v));
          }
          return b.toString();
        };
    return Node.of(PrimitiveType.STRING, eval, args, label, position);
  }

  private static Node abs(Call c) {
    DataType t = expect(c, 0, Types.isNumeric(c.arg(0).type()), "a number").type();
    if (t == null) {
      return c.arg(0);
    }
    return unary(
        c,
        t,
        v -> {
          if (v instanceof Integer i) {
            return i == Integer.MIN_VALUE ? null : Math.abs(i);
          }
          if (v instanceof Long l) {
            return l == Long.MIN_VALUE ? null : Math.abs(l);
          }
          if (v instanceof Double d) {
            return Math.abs(d);
          }
          return ((BigDecimal) v).abs();
        });
  }

  /** round(x[, d]): half away from zero at d decimal places (d may be negative), as Spark. */
  private static Node round(Call c) {
    DataType t = expect(c, 0, Types.isNumeric(c.arg(0).type()), "a number").type();
    int digits = 0;
    if (c.args().size() == 2) {
      Node d = c.arg(1);
      if (!d.constant() || !Types.isIntegral(d.type()) || d.eval().eval(null) == null) {
        throw c.error(
            d.position(),
            "function round expects an integer literal as its second"
                + " argument (the number of decimal places), found "
                + d.describe());
      }
      digits = ((Number) d.eval().eval(null)).intValue();
    }
    if (t == null) {
      return c.arg(0);
    }
    int places = digits;
    if (t == PrimitiveType.DOUBLE) {
      return unary(
          c,
          t,
          v -> {
            double x = (Double) v;
            return Double.isFinite(x)
                ? BigDecimal.valueOf(x).setScale(places, RoundingMode.HALF_UP).doubleValue()
                : x;
          });
    }
    if (Types.isIntegral(t)) {
      if (places >= 0) {
        return c.arg(0);
      }
      boolean isInt = t == PrimitiveType.INTEGER;
      return unary(
          c,
          t,
          v -> {
            BigDecimal r =
                BigDecimal.valueOf(((Number) v).longValue()).setScale(places, RoundingMode.HALF_UP);
            Long l = r.precision() - r.scale() > 19 ? null : r.longValue();
            return l == null || (isInt && l != l.intValue())
                ? null
                : isInt ? (Object) l.intValue() : (Object) l;
          });
    }
    DecimalType d = (DecimalType) t;
    int scale = Math.max(0, Math.min(d.scale(), places));
    DecimalType result = Types.bounded(d.precision() - d.scale() + scale + 1, scale);
    return unary(
        c, result, v -> Casts.fit(((BigDecimal) v).setScale(places, RoundingMode.HALF_UP), result));
  }

  /** floor/ceil: a double gives a long (Spark), a decimal gives decimal(p-s+1, 0). */
  private static Node floorCeil(Call c, RoundingMode mode) {
    DataType t = expect(c, 0, Types.isNumeric(c.arg(0).type()), "a number").type();
    if (t == null || Types.isIntegral(t)) {
      return c.arg(0);
    }
    if (t == PrimitiveType.DOUBLE) {
      return unary(
          c,
          PrimitiveType.LONG,
          v -> {
            double x = mode == RoundingMode.FLOOR ? Math.floor((Double) v) : Math.ceil((Double) v);
            return Double.isNaN(x) || x < -9.223372036854776E18 || x >= 9.223372036854776E18
                ? null
                : (Object) (long) x;
          });
    }
    DecimalType d = (DecimalType) t;
    DecimalType result = Types.bounded(d.precision() - d.scale() + 1, 0);
    return unary(c, result, v -> Casts.fit(((BigDecimal) v).setScale(0, mode), result));
  }

  /** greatest (sign 1) / least (sign -1): skips nulls; null only when all are null. */
  private static Node extreme(Call c, int sign) {
    DataType type =
        Logic.commonType(c.name().toLowerCase(Locale.ROOT) + " arguments", c.args(), c.text());
    if (type instanceof StructType) {
      throw c.error(c.position(), "function " + c.name() + " cannot compare struct values");
    }
    DataType t = type == null ? PrimitiveType.INTEGER : type;
    Comparisons.Cmp cmp = Comparisons.comparator(t);
    Evaluator[] evals = c.args().stream().map(n -> n.as(t).eval()).toArray(Evaluator[]::new);
    Evaluator eval =
        row -> {
          Object best = null;
          for (Evaluator e : evals) {
            Object v = e.eval(row);
            if (v != null && (best == null || cmp.compare(v, best) * sign > 0)) {
              best = v;
            }
          }
          return best;
        };
    return Node.of(type, eval, c.args(), c.label(), c.position());
  }

  /** Time functions, in UTC. */
  static final class Temporal {
    private Temporal() {}

    enum Field {
      YEAR,
      MONTH,
      DAY,
      HOUR,
      MINUTE,
      SECOND
    }

    private static final Map<String, String> UNITS =
        new TreeMap<>(
            Map.ofEntries(
                Map.entry("year", "year"),
                Map.entry("yyyy", "year"),
                Map.entry("yy", "year"),
                Map.entry("quarter", "quarter"),
                Map.entry("month", "month"),
                Map.entry("mon", "month"),
                Map.entry("mm", "month"),
                Map.entry("week", "week"),
                Map.entry("day", "day"),
                Map.entry("dd", "day"),
                Map.entry("hour", "hour"),
                Map.entry("minute", "minute"),
                Map.entry("second", "second"),
                Map.entry("millisecond", "millisecond")));

    static Node field(Call c, Field f) {
      DataType t = expect(c, 0, Types.isTemporal(c.arg(0).type()), "a timestamp or a date").type();
      if (t == PrimitiveType.DATE && f.compareTo(Field.HOUR) >= 0) {
        return unary(c, PrimitiveType.INTEGER, v -> 0);
      }
      return unary(
          c,
          PrimitiveType.INTEGER,
          v -> {
            if (v instanceof LocalDate d) {
              return switch (f) {
                case YEAR -> d.getYear();
                case MONTH -> d.getMonthValue();
                default -> d.getDayOfMonth();
              };
            }
            var z = ((Instant) v).atOffset(ZoneOffset.UTC);
            return switch (f) {
              case YEAR -> z.getYear();
              case MONTH -> z.getMonthValue();
              case DAY -> z.getDayOfMonth();
              case HOUR -> z.getHour();
              case MINUTE -> z.getMinute();
              case SECOND -> z.getSecond();
            };
          });
    }

    static Node toDate(Call c) {
      DataType t = c.arg(0).type();
      expect(
          c,
          0,
          t == PrimitiveType.TIMESTAMP || t == PrimitiveType.DATE || t == PrimitiveType.STRING,
          "a timestamp, a date or a string");
      if (t == null || t == PrimitiveType.DATE) {
        return new Node(
            PrimitiveType.DATE, c.arg(0).eval(), c.arg(0).constant(), c.label(), c.position());
      }
      Casts.Conversion conv = Casts.explicit(t, PrimitiveType.DATE);
      return unary(c, PrimitiveType.DATE, conv::apply);
    }

    /** date_trunc('hour', ts): the timestamp rounded down to the unit, in UTC. */
    static Node dateTrunc(Call c) {
      Node unitNode = c.arg(0);
      Object unitValue = unitNode.constant() ? unitNode.eval().eval(null) : null;
      String unit = unitValue instanceof String s ? UNITS.get(s.toLowerCase(Locale.ROOT)) : null;
      if (unit == null) {
        throw c.error(
            unitNode.position(),
            "function date_trunc expects a unit literal as its"
                + " first argument, one of '"
                + String.join("', '", UNITS.keySet())
                + "'; found "
                + unitNode.describe());
      }
      DataType t = expect(c, 1, Types.isTemporal(c.arg(1).type()), "a timestamp or a date").type();
      Evaluator in = t == null ? c.arg(1).eval() : c.arg(1).as(PrimitiveType.TIMESTAMP).eval();
      Evaluator eval =
          row -> {
            Object v = in.eval(row);
            return v == null ? null : truncate((Instant) v, unit);
          };
      return Node.of(PrimitiveType.TIMESTAMP, eval, c.args(), c.label(), c.position());
    }

    private static Instant truncate(Instant i, String unit) {
      return switch (unit) {
        case "millisecond" -> i.truncatedTo(ChronoUnit.MILLIS);
        case "second" -> i.truncatedTo(ChronoUnit.SECONDS);
        case "minute" -> i.truncatedTo(ChronoUnit.MINUTES);
        case "hour" -> i.truncatedTo(ChronoUnit.HOURS);
        case "day" -> i.truncatedTo(ChronoUnit.DAYS);
        default -> {
          LocalDate d = LocalDate.ofInstant(i, ZoneOffset.UTC);
          LocalDate start =
              switch (unit) {
                case "week" -> d.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
                case "month" -> d.withDayOfMonth(1);
                case "quarter" -> d.with(IsoFields.DAY_OF_QUARTER, 1);
                default -> d.withDayOfYear(1);
              };
          yield start.atStartOfDay(ZoneOffset.UTC).toInstant();
        }
      };
    }
  }
}
