package dev.tributary.service.expr;

import java.util.LinkedHashMap;
import java.util.Objects;

/** One step of a pipeline's {@code transform} list, applied in declaration order. */
public sealed interface Step permits Step.Filter, Step.Derive {

  /** Keeps the rows for which {@code expression} is TRUE (FALSE and NULL drop the row). */
  record Filter(String expression) implements Step {
    public Filter {
      Objects.requireNonNull(expression, "expression");
    }
  }

  /**
   * Adds columns (new name: appended after the existing columns, in declaration order) or replaces
   * columns (existing name: the value changes in place, the position stays). All expressions of one
   * step read the step's input row, as in a SQL SELECT list; the next steps see the derived
   * columns.
   */
  record Derive(LinkedHashMap<String, String> columns) implements Step {
    public Derive {
      columns = new LinkedHashMap<>(Objects.requireNonNull(columns, "columns"));
    }

    /** A copy of the declared columns (name to expression), in declaration order. */
    @Override
    public LinkedHashMap<String, String> columns() {
      return new LinkedHashMap<>(columns);
    }
  }
}
