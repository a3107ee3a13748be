package dev.tributary.config;

import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One step of the {@code transform} list, applied in order to parsed rows. Expressions are kept as
 * text; the service compiles them and reports errors with positions.
 */
public sealed interface TransformStep {

  /** Returns the step as a canonical string, for checkpoint identity. */
  String canonical();

  /**
   * {@code - filter: "amount_cents > 0"}: keeps the rows for which the expression is true.
   *
   * @param expression the boolean expression, not blank
   */
  record Filter(String expression) implements TransformStep {
    /** Checks the expression is not blank. */
    public Filter {
      if (Objects.requireNonNull(expression, "expression").isBlank()) {
        throw new IllegalArgumentException("a filter expression cannot be empty");
      }
    }

    @Override
    public String canonical() {
      return "filter(" + expression + ")";
    }
  }

  /**
   * {@code - derive: { amount: "amount_cents / 100.0" }}: adds (or replaces) columns, in order; a
   * later column may use an earlier one.
   *
   * @param columns output column name to expression, in declaration order, at least one
   */
  record Derive(Map<String, String> columns) implements TransformStep {
    /** Copies the columns keeping their order and checks there is at least one. */
    public Derive {
      columns = OrderedMaps.copyOf(columns);
      if (columns.isEmpty()) {
        throw new IllegalArgumentException("a derive step needs at least one column");
      }
    }

    @Override
    public String canonical() {
      return columns.entrySet().stream()
          .map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(", ", "derive(", ")"));
    }
  }
}
