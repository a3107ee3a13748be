package dev.tributary.service.engine;

import dev.tributary.service.expr.CompiledExpression;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.table.TableRules;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The row rules of a sink table another engine made ({@link TableRules}: CHECK constraints,
 * invariants, generated and identity columns), compiled once, when the pipeline starts, with our
 * expression compiler over the table's columns. The pipeline's output may leave out the table's
 * generated and identity columns: {@link #tableRow} places an output row in the table's column
 * order and computes the missing generated values; {@link #problem} says why the table refuses a
 * row (the processor quarantines it, never writing it); the sink assigns the missing identity
 * values when it writes the row ({@link #assignedIdentities}) and moves their high-water marks in
 * the batch's commit.
 *
 * <p>Semantics are Delta's (Spark's {@code CheckDeltaInvariant}): a CHECK constraint or an
 * invariant refuses a row on which its expression is false or null; a generated column present in
 * the output must equal its expression (null-safe equality, as Spark's generated-column
 * constraint). An expression we cannot compile, an output column the table lacks, a table column
 * the output lacks that is neither generated nor an identity, an explicit value for an identity
 * column that does not allow one, and a rule reading an identity column whose values we assign are
 * refused when the pipeline starts, naming the rule, before any batch.
 */
public final class TableRowRules {
  private final String location;
  private final TableRules rules;
  private final StructType tableSchema;

  /** For each table column, its index in the output row, or -1: generated here or by the sink. */
  private final int[] fromOutput;

  private final List<Check> checks;
  private final List<Generation> generations;
  private final List<Assigned> assigned;

  private record Check(TableRules.Check rule, CompiledExpression expression) {}

  /**
   * A generated column: computed when the output lacks it ({@code present} false), else compared.
   */
  private record Generation(
      String column, int index, boolean present, String text, CompiledExpression expression) {}

  /** An identity column whose values the sink assigns: its index in the table row. */
  public record Assigned(TableRules.Identity identity, int index) {}

  private TableRowRules(
      String location,
      TableRules rules,
      StructType tableSchema,
      int[] fromOutput,
      List<Check> checks,
      List<Generation> generations,
      List<Assigned> assigned) {
    this.location = location;
    this.rules = rules;
    this.tableSchema = tableSchema;
    this.fromOutput = fromOutput;
    this.checks = List.copyOf(checks);
    this.generations = List.copyOf(generations);
    this.assigned = List.copyOf(assigned);
  }

  /**
   * Compiles {@code rules} of the table at {@code location} (whose schema is {@code tableSchema})
   * for a pipeline writing {@code output}.
   *
   * @throws IllegalStateException naming the pipeline, the table and every rule it cannot honour
   */
  public static TableRowRules compile(
      String pipelineId,
      String location,
      TableRules rules,
      StructType tableSchema,
      StructType output) {
    List<String> problems = new ArrayList<>();
    int[] fromOutput = new int[tableSchema.size()];
    for (int i = 0; i < tableSchema.size(); i++) {
      StructField column = tableSchema.fields().get(i);
      fromOutput[i] = output.indexOf(column.name());
      TableRules.Identity identity = rules.identity(column.name());
      boolean generated =
          rules.generated().stream().anyMatch(g -> g.column().equals(column.name()));
      if (fromOutput[i] < 0 && identity == null && !generated) {
        problems.add(
            "the table's column "
                + column.name()
                + " is neither generated nor an identity column, and the pipeline does not write"
                + " it");
      } else if (fromOutput[i] >= 0
          && !output.fields().get(fromOutput[i]).type().equals(column.type())) {
        problems.add(
            "the pipeline writes column "
                + column.name()
                + " as "
                + output.fields().get(fromOutput[i]).type().deltaName()
                + " but the table holds "
                + column.type().deltaName());
      } else if (fromOutput[i] >= 0 && identity != null && !identity.allowExplicitInsert()) {
        problems.add(
            "the pipeline writes identity column "
                + column.name()
                + ", which is GENERATED ALWAYS (delta.identity.allowExplicitInsert = false); leave"
                + " it out of the output and Tributary assigns its values");
      }
    }
    for (StructField f : output.fields()) {
      if (tableSchema.indexOf(f.name()) < 0) {
        problems.add("the pipeline writes column " + f.name() + ", which the table does not have");
      }
    }
    // Rules are evaluated before the sink assigns identity values, so they must not read them: the
    // rules compile against the table's columns with each assigned identity renamed to a name no
    // expression can spell (positions unchanged), and a rule naming it fails to compile.
    List<StructField> visible = new ArrayList<>();
    List<Assigned> assigned = new ArrayList<>();
    for (int i = 0; i < tableSchema.size(); i++) {
      StructField column = tableSchema.fields().get(i);
      TableRules.Identity identity = rules.identity(column.name());
      if (identity != null && fromOutput[i] < 0) {
        assigned.add(new Assigned(identity, i));
        visible.add(column.withName("\u0000identity " + column.name()));
      } else {
        visible.add(column);
      }
    }
    StructType ruleInput = new StructType(visible);
    List<Check> checks = new ArrayList<>();
    for (TableRules.Check c : rules.checks()) {
      CompiledExpression e =
          compile(c.expression(), ruleInput, tableSchema, problems, c.describe());
      if (e != null && e.type() != PrimitiveType.BOOLEAN) {
        problems.add(c.describe() + " is not a boolean expression (" + e.type().deltaName() + ")");
      } else if (e != null) {
        checks.add(new Check(c, e));
      }
    }
    List<Generation> generations = new ArrayList<>();
    for (TableRules.Generated g : rules.generated()) {
      int index = tableSchema.indexOf(g.column());
      StructField column = tableSchema.fields().get(index);
      String what = "generated column " + g.column() + " (" + g.expression() + ")";
      CompiledExpression e = compile(g.expression(), ruleInput, tableSchema, problems, what);
      if (e != null && !e.type().equals(column.type())) {
        // Spark casts the expression's value to the column's type, as for an insert
        e =
            compile(
                "CAST((" + g.expression() + ") AS " + column.type().deltaName() + ")",
                ruleInput,
                tableSchema,
                problems,
                what);
      }
      if (e != null) {
        generations.add(
            new Generation(g.column(), index, fromOutput[index] >= 0, g.expression(), e));
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "Pipeline "
              + pipelineId
              + " cannot append to the Delta table at "
              + location
              + ": "
              + String.join("; ", problems)
              + ". Tributary evaluates the table's CHECK constraints, invariants and generation"
              + " expressions itself (docs/PROTOCOL_SUPPORT.md); change the pipeline's output,"
              + " or the table's rules. Nothing was written.");
    }
    return new TableRowRules(
        location, rules, tableSchema, fromOutput, checks, generations, assigned);
  }

  private static CompiledExpression compile(
      String text, StructType input, StructType table, List<String> problems, String what) {
    try {
      return ExpressionCompiler.compile(text, input);
    } catch (ExpressionException e) {
      boolean readsIdentity;
      try {
        ExpressionCompiler.compile(text, table);
        readsIdentity = true;
      } catch (ExpressionException again) {
        readsIdentity = false;
      }
      problems.add(
          what
              + (readsIdentity
                  ? " reads an identity column whose values Tributary assigns only when it writes"
                      + " the row, after the rules are checked"
                  : " cannot be compiled by Tributary: " + e.getMessage()));
      return null;
    }
  }

  /** The rules as read from the table, which the batch's commit declares it enforced. */
  public TableRules rules() {
    return rules;
  }

  /** The table's columns: the rows {@link #tableRow} gives and the sink writes. */
  public StructType tableSchema() {
    return tableSchema;
  }

  /** The identity columns whose values the sink assigns as it writes each row. */
  public List<Assigned> assignedIdentities() {
    return assigned;
  }

  /**
   * The output row in the table's column order: the generated columns the output lacks computed,
   * the identity columns it lacks null (the sink assigns them).
   */
  public Object[] tableRow(Object[] output) {
    Object[] row = new Object[fromOutput.length];
    for (int i = 0; i < row.length; i++) {
      if (fromOutput[i] >= 0) {
        row[i] = output[fromOutput[i]];
      }
    }
    for (Generation g : generations) {
      if (!g.present()) {
        row[g.index()] = g.expression().eval(row);
      }
    }
    return row;
  }

  /**
   * Why the table refuses {@code row} (from {@link #tableRow}): the first CHECK constraint or
   * invariant false or null on it, or a generated column whose value differs from its expression's;
   * null if it may be written.
   */
  public String problem(Object[] row) {
    for (Generation g : generations) {
      if (g.present()) {
        Object expected = g.expression().eval(row);
        if (!same(expected, row[g.index()])) {
          return "the table at "
              + location
              + " generates column "
              + g.column()
              + " as ("
              + g.text()
              + ") = "
              + expected
              + " but the row has "
              + row[g.index()];
        }
      }
    }
    for (Check c : checks) {
      if (c.expression().eval(row) != Boolean.TRUE) {
        return "violates the "
            + c.rule().describe()
            + " of the table at "
            + location
            + " (false or null on the row)";
      }
    }
    return null;
  }

  private static boolean same(Object a, Object b) {
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      return x.compareTo(y) == 0;
    }
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.equals(x, y);
    }
    return Objects.equals(a, b);
  }
}
