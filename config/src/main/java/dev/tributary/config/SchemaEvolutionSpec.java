package dev.tributary.config;

import java.util.Objects;

/**
 * The {@code schema-evolution} section: what happens to record fields the declaration does not name
 * (docs/SCHEMA_EVOLUTION.md).
 *
 * @param mode {@link Mode#NONE} (default): the sink table's schema never changes; {@link
 *     Mode#ADD_COLUMNS}: a new top-level field becomes a new nullable column of the sink table,
 *     added in the commit of the first rows that carry it
 * @param rescue true: every field a record carries beyond the table's columns, and every value that
 *     does not fit its column, is kept as JSON text in the {@code _rescued_data} column (default
 *     false)
 */
public record SchemaEvolutionSpec(Mode mode, boolean rescue) {
  /** The default: nothing evolves, nothing is rescued (undeclared fields are skipped). */
  public static final SchemaEvolutionSpec DEFAULT = new SchemaEvolutionSpec(Mode.NONE, false);

  /** The name of the column rescued fields go to (Databricks' name for the same idea). */
  public static final String RESCUED_COLUMN = "_rescued_data";

  /** Checks the mode is given. */
  public SchemaEvolutionSpec {
    Objects.requireNonNull(mode, "mode");
  }

  /** Whether the sink table may gain columns. */
  public boolean addsColumns() {
    return mode == Mode.ADD_COLUMNS;
  }

  /** The {@code schema-evolution.mode} values. */
  public enum Mode {
    NONE("none"),
    ADD_COLUMNS("add-columns");

    private final String keyword;

    Mode(String keyword) {
      this.keyword = keyword;
    }

    /** The YAML spelling. */
    public String keyword() {
      return keyword;
    }
  }
}
