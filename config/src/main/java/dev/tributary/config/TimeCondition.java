package dev.tributary.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The time-range condition of a stream-stream join ({@code join[].time}): a conjunction of
 * comparisons between an event-time column of each side, each side's operand optionally shifted by
 * an interval. Parsed by its own small parser (the expression engine has no intervals):
 *
 * <pre>
 * condition := conjunct ( AND conjunct )*
 * conjunct  := operand ( &lt; | &lt;= | &gt; | &gt;= ) operand  |  operand BETWEEN operand AND operand
 * operand   := column [ ( + | - ) INTERVAL [-]n unit ]     (n may be quoted: INTERVAL '30' MINUTES)
 * unit      := microsecond | millisecond | second | minute | hour | day   (singular or plural)
 * </pre>
 *
 * {@code a BETWEEN b AND c} is {@code a >= b AND a <= c}, as in Spark. Keywords are
 * case-insensitive; a column may be quoted with backticks. Months and years are refused: Spark
 * derives no state watermark from them (docs/STREAM_JOINS_SPARK_RULES.md, S2r). A conjunct whose
 * two columns are on the same side, or anything else (OR, =, functions, more than one interval per
 * operand), is refused: every conjunct must relate the two sides, so that each becomes a {@link
 * Bound}.
 *
 * @param text the condition as declared (empty for {@link #NONE})
 * @param bounds the conjuncts, rewritten, in the declared order (BETWEEN gives two)
 */
public record TimeCondition(String text, List<Bound> bounds) {

  /** No time condition: pairs match on the keys alone (an inner join only; its state is kept). */
  public static final TimeCondition NONE = new TimeCondition("", List.of());

  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private static final Map<String, Long> UNITS =
      Map.ofEntries(
          Map.entry("microsecond", 1L),
          Map.entry("millisecond", 1_000L),
          Map.entry("second", 1_000_000L),
          Map.entry("minute", 60_000_000L),
          Map.entry("hour", 3_600_000_000L),
          Map.entry("day", MICROS_PER_DAY));

  /** Copies the bounds. */
  public TimeCondition {
    Objects.requireNonNull(text, "text");
    bounds = List.copyOf(bounds);
  }

  /** Whether the condition has no conjunct. */
  public boolean isEmpty() {
    return bounds.isEmpty();
  }

  /** The conjuncts in their rewritten form, joined with AND: how plans and messages show it. */
  public String canonical() {
    return bounds.stream().map(Bound::canonical).collect(Collectors.joining(" AND "));
  }

  /**
   * Parses a condition.
   *
   * @param text the condition, e.g. {@code p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES}
   * @param sideOf the side a column name belongs to, empty when it is on neither
   * @throws IllegalArgumentException naming what is wrong and where, and how to write it instead
   */
  public static TimeCondition parse(String text, Function<String, Optional<JoinSide>> sideOf) {
    Objects.requireNonNull(sideOf, "sideOf");
    Parser parser = new Parser(text, sideOf);
    List<Bound> bounds = parser.condition();
    return new TimeCondition(text.strip(), bounds);
  }

  /** A column of one side plus an interval. */
  private record Operand(String column, JoinSide side, long offsetMicros) {}

  /** A recursive-descent parser over a simple tokenizer; every method consumes what it reads. */
  private static final class Parser {
    private final String text;
    private final Function<String, Optional<JoinSide>> sideOf;
    private int pos;

    Parser(String text, Function<String, Optional<JoinSide>> sideOf) {
      this.text = Objects.requireNonNull(text, "text");
      this.sideOf = sideOf;
    }

    List<Bound> condition() {
      skipSpaces();
      if (pos == text.length()) {
        throw problem(
            "the condition is empty", "write e.g. p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES");
      }
      List<Bound> bounds = new ArrayList<>(conjunct());
      while (keyword("AND")) {
        bounds.addAll(conjunct());
      }
      skipSpaces();
      if (pos < text.length()) {
        throw problem(
            "unexpected '" + rest() + "'",
            "a time condition is comparisons (<, <=, >, >=, BETWEEN) joined with AND");
      }
      return bounds;
    }

    private List<Bound> conjunct() {
      int start = skipSpaces();
      Operand first = operand();
      if (keyword("BETWEEN")) {
        Operand low = operand();
        if (!keyword("AND")) {
          throw problem("BETWEEN needs AND", "write a BETWEEN b AND c");
        }
        Operand high = operand();
        String written = text.substring(start, pos).strip();
        return List.of(bound(low, first, false, written), bound(first, high, false, written));
      }
      String op = comparison();
      Operand second = operand();
      String written = text.substring(start, pos).strip();
      return switch (op) {
        case "<" -> List.of(bound(first, second, true, written));
        case "<=" -> List.of(bound(first, second, false, written));
        case ">" -> List.of(bound(second, first, true, written));
        default -> List.of(bound(second, first, false, written));
      };
    }

    /** {@code lower (<|<=) upper}, both shifted: the lower side takes the difference. */
    private Bound bound(Operand lower, Operand upper, boolean strict, String written) {
      if (lower.side() == upper.side()) {
        throw new IllegalArgumentException(
            "'"
                + written
                + "' compares two columns of the "
                + lower.side().keyword()
                + " side ("
                + lower.column()
                + ", "
                + upper.column()
                + "); every conjunct of a time condition relates a left column to a right one"
                + " (a filter on one side belongs in transform)");
      }
      long offset;
      try {
        offset = Math.subtractExact(lower.offsetMicros(), upper.offsetMicros());
      } catch (ArithmeticException e) {
        throw problem("the intervals of '" + written + "' are too large", "use smaller intervals");
      }
      return new Bound(lower.side(), lower.column(), upper.side(), upper.column(), offset, strict);
    }

    private Operand operand() {
      skipSpaces();
      int at = pos;
      String column = column();
      if (column == null) {
        throw problem(
            pos == text.length()
                ? "the condition ends early"
                : "expected a column at '" + rest() + "'",
            "an operand is a timestamp column, optionally + or - INTERVAL n unit");
      }
      JoinSide side =
          sideOf
              .apply(column)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "'"
                              + column
                              + "' (at character "
                              + (at + 1)
                              + ") is a column of neither side of the join; name a left column as"
                              + " it is, a right one with the stream's prefix"));
      skipSpaces();
      long offset = 0;
      if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
        boolean minus = text.charAt(pos) == '-';
        pos++;
        offset = interval();
        if (minus) {
          offset = -offset;
        }
      }
      return new Operand(column, side, offset);
    }

    /** {@code INTERVAL [-]n unit} after the sign, in microseconds. */
    private long interval() {
      if (!keyword("INTERVAL")) {
        throw problem(
            "expected INTERVAL at '" + rest() + "'",
            "shift a column by an interval: ts + INTERVAL 30 MINUTES");
      }
      skipSpaces();
      boolean quoted = pos < text.length() && text.charAt(pos) == '\'';
      if (quoted) {
        pos++;
      }
      int start = pos;
      if (pos < text.length() && text.charAt(pos) == '-') {
        pos++;
      }
      while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
        pos++;
      }
      String digits = text.substring(start, pos);
      if (quoted) {
        if (pos >= text.length() || text.charAt(pos) != '\'') {
          throw problem("an interval's quoted number is not closed", "write INTERVAL '30' MINUTES");
        }
        pos++;
      }
      if (digits.isEmpty() || digits.equals("-")) {
        throw problem(
            "expected a whole number after INTERVAL at '" + rest() + "'",
            "write INTERVAL 30 MINUTES");
      }
      skipSpaces();
      int unitStart = pos;
      while (pos < text.length() && Character.isLetter(text.charAt(pos))) {
        pos++;
      }
      String unit = text.substring(unitStart, pos).toLowerCase(Locale.ROOT);
      String singular = unit.endsWith("s") ? unit.substring(0, unit.length() - 1) : unit;
      if (singular.equals("month") || singular.equals("year")) {
        throw new IllegalArgumentException(
            "INTERVAL "
                + digits
                + " "
                + unit.toUpperCase(Locale.ROOT)
                + ": months and years are imprecise (their length varies), so Spark derives no"
                + " state watermark from them; write the interval in days, e.g. INTERVAL 30 DAYS");
      }
      Long size = UNITS.get(singular);
      if (size == null) {
        throw problem(
            unit.isEmpty() ? "an interval needs a unit" : "unknown interval unit '" + unit + "'",
            "use one of microsecond, millisecond, second, minute, hour, day (or their plurals)");
      }
      try {
        return Math.multiplyExact(Long.parseLong(digits), size);
      } catch (NumberFormatException | ArithmeticException e) {
        throw problem(
            "INTERVAL " + digits + " " + unit.toUpperCase(Locale.ROOT) + " is too large",
            "use a smaller interval");
      }
    }

    private String comparison() {
      skipSpaces();
      for (String op : List.of("<=", ">=", "<", ">")) {
        if (text.startsWith(op, pos)) {
          if (op.equals("<") && text.startsWith("<>", pos)) {
            break;
          }
          pos += op.length();
          return op;
        }
      }
      throw problem(
          pos == text.length()
              ? "the condition ends early"
              : "expected <, <=, >, >= or BETWEEN at '" + rest() + "'",
          "a time condition compares the two sides' event times, e.g. p_ts >= ts");
    }

    /** A column name, plain ({@code a.b_c}) or in backticks; null when none is here. */
    private String column() {
      if (pos < text.length() && text.charAt(pos) == '`') {
        int end = text.indexOf('`', pos + 1);
        if (end < 0) {
          throw problem("a backtick-quoted column is not closed", "write `my column`");
        }
        String name = text.substring(pos + 1, end);
        pos = end + 1;
        return name;
      }
      int start = pos;
      if (pos < text.length()
          && (Character.isLetter(text.charAt(pos)) || text.charAt(pos) == '_')) {
        pos++;
        while (pos < text.length()
            && (Character.isLetterOrDigit(text.charAt(pos))
                || text.charAt(pos) == '_'
                || text.charAt(pos) == '.')) {
          pos++;
        }
      }
      String name = text.substring(start, pos);
      if (name.isEmpty()) {
        return null;
      }
      if (List.of("and", "between", "interval", "or", "not")
          .contains(name.toLowerCase(Locale.ROOT))) {
        pos = start;
        return null;
      }
      return name;
    }

    /** Consumes the keyword when it is next (whole word, any case). */
    private boolean keyword(String word) {
      skipSpaces();
      int end = pos + word.length();
      if (text.regionMatches(true, pos, word, 0, word.length())
          && (end == text.length()
              || !(Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_'))) {
        pos = end;
        return true;
      }
      return false;
    }

    private int skipSpaces() {
      while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
        pos++;
      }
      return pos;
    }

    private String rest() {
      String rest = text.substring(pos).strip();
      return rest.length() > 30 ? rest.substring(0, 30) + "..." : rest;
    }

    private IllegalArgumentException problem(String what, String fix) {
      return new IllegalArgumentException(what + " (at character " + (pos + 1) + "); " + fix);
    }
  }
}
