package dev.tributary.config;

import java.util.Locale;
import java.util.Objects;

/**
 * One data-quality rule of the {@code expectations} list: a SQL condition every row must meet after
 * the transforms, and what happens to a row that does not (docs/PIPELINE_REFERENCE.md,
 * "Expectations").
 *
 * @param name names the rule in counts, metrics, commit history and quarantine errors: letters,
 *     digits and underscores, unique within the pipeline
 * @param check a boolean SQL expression over the transformed row; a row meets it only when it is
 *     true (false and null both violate it, as a filter keeps only true rows)
 * @param onViolation what happens to a row that violates it
 */
public record ExpectationSpec(String name, String check, OnViolation onViolation) {

  /** The longest expectation name, in characters (it becomes a metric tag). */
  public static final int MAX_NAME_LENGTH = 64;

  /** What happens to a row that violates the rule ({@code on-violation}). */
  public enum OnViolation {
    /** Counted; the row is kept. The default. */
    WARN,
    /** Counted; the row is dropped (also counted as filtered). */
    DROP,
    /** Counted; the record goes to the quarantine table with the rule as its error. */
    QUARANTINE,
    /** The batch fails before any commit; the pipeline stops, naming the rule and the record. */
    FAIL;

    /** The name as written in files. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks that no part is null. */
  public ExpectationSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(onViolation, "onViolation");
  }
}
