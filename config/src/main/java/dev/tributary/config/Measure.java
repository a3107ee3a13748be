package dev.tributary.config;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One measure of an aggregation, written {@code function(column)} or {@code count()}.
 *
 * @param function the aggregate function
 * @param input the input column; empty only for {@code count()}
 */
public record Measure(MeasureFunction function, Optional<String> input) {

  private static final Pattern SYNTAX = Pattern.compile("([a-z_]+)\\s*\\(\\s*([^()\\s]*)\\s*\\)");

  /** Checks that only {@code count} goes without an input column. */
  public Measure {
    Objects.requireNonNull(function, "function");
    Objects.requireNonNull(input, "input");
    if (input.isEmpty() && function != MeasureFunction.COUNT) {
      throw new IllegalArgumentException(
          function.keyword() + "() needs an input column, like " + function.keyword() + "(amount)");
    }
  }

  /** Returns the measure as written in files, e.g. {@code sum(amount_cents)}. */
  public String canonical() {
    return function.keyword() + "(" + input.orElse("") + ")";
  }

  /**
   * Parses {@code sum(amount_cents)}, {@code count()}, ...
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  public static Measure parse(String text) {
    Matcher m = SYNTAX.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "cannot parse '"
              + text
              + "' as a measure; write function(column) like sum(amount) or count()");
    }
    MeasureFunction function = null;
    for (MeasureFunction f : MeasureFunction.values()) {
      if (f.keyword().equals(m.group(1))) {
        function = f;
      }
    }
    if (function == null) {
      throw new IllegalArgumentException(
          "unknown function '"
              + m.group(1)
              + "'; use count, sum, min, max, avg, count_distinct, first, last or approx_count_distinct");
    }
    return new Measure(function, m.group(2).isEmpty() ? Optional.empty() : Optional.of(m.group(2)));
  }
}
