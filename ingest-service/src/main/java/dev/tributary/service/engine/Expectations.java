package dev.tributary.service.engine;

import dev.tributary.config.ExpectationSpec;
import dev.tributary.config.ExpectationSpec.OnViolation;
import dev.tributary.service.expr.CompiledPredicate;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipeline's {@code expectations}, compiled over the transformed row: each row is checked
 * against every rule, every violation is counted for its rule ({@link BatchOutputs#violated}), and
 * the strongest action among the violated rules decides the row's fate (fail, then quarantine, then
 * drop, then warn). A rule whose check cannot be evaluated on a row (an expression error) counts as
 * violated: the row cannot be shown to meet it. Immutable and thread-safe.
 */
public final class Expectations {
  /** No rules: every row passes. */
  public static final Expectations NONE = new Expectations(List.of());

  /** One compiled rule. */
  public record Rule(ExpectationSpec spec, CompiledPredicate check) {
    /** The rule's name. */
    public String name() {
      return spec.name();
    }

    /** What a violation does. */
    public OnViolation action() {
      return spec.onViolation();
    }

    /** The reason a violating row carries into the quarantine table and failure messages. */
    public String describe() {
      return "expectation '" + spec.name() + "' (" + spec.check() + ") failed";
    }
  }

  private final List<Rule> rules;

  private Expectations(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  /**
   * Compiles {@code specs} against {@code row}, the schema of the transformed rows.
   *
   * @param problems receives one message per rule that does not compile, naming it by its place
   *     ({@code expectations[1] (positive_amount).check: …})
   * @return the rules; {@link #NONE} when there are none or a rule did not compile
   */
  public static Expectations compile(
      List<ExpectationSpec> specs, StructType row, List<String> problems) {
    List<Rule> rules = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      ExpectationSpec spec = specs.get(i);
      try {
        rules.add(new Rule(spec, ExpressionCompiler.compilePredicate(spec.check(), row)));
      } catch (ExpressionException e) {
        problems.add(
            "expectations["
                + i
                + "] ("
                + spec.name()
                + ").check: "
                + e.getMessage()
                + "; the check sees the columns after the transforms: "
                + row.fieldNames());
      }
    }
    return rules.size() == specs.size() && !rules.isEmpty() ? new Expectations(rules) : NONE;
  }

  /** Whether there is no rule. */
  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /** The rules, in declaration order. */
  public List<Rule> rules() {
    return rules;
  }

  /**
   * Checks a row against every rule, counting each violation in {@code outputs}.
   *
   * @return the violated rule whose action is strongest (the first declared among equals), or null
   *     when the row meets every rule
   */
  public Rule check(Object[] row, BatchOutputs outputs) {
    Rule strongest = null;
    for (Rule rule : rules) {
      boolean met;
      try {
        met = rule.check().test(row);
      } catch (RuntimeException e) {
        met = false;
      }
      if (!met) {
        outputs.violated(rule.name());
        if (strongest == null || rule.action().compareTo(strongest.action()) > 0) {
          strongest = rule;
        }
      }
    }
    return strongest;
  }
}
