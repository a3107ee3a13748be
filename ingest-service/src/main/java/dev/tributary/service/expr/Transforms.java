package dev.tributary.service.expr;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Compiles a pipeline's {@code transform} steps. */
public final class Transforms {
  private Transforms() {}

  /**
   * Compiles {@code steps} in order, each against the schema the previous ones produce.
   *
   * @throws ExpressionException whose message starts with the step's location, e.g. {@code
   *     transform[1].derive.amount: unknown column 'amount_cent'; did you mean 'amount_cents'? at
   *     position 1 of "amount_cent / 100.0"} (indexes count from 0)
   * @throws IllegalArgumentException for an invalid derived column name, with its location
   */
  public static CompiledTransforms compile(StructType input, List<Step> steps) {
    StructType schema = input;
    List<Stage> stages = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      Step step = steps.get(i);
      String where = "transform[" + i + "]";
      if (step instanceof Step.Filter f) {
        try {
          stages.add(new FilterStage(ExpressionCompiler.compilePredicate(f.expression(), schema)));
        } catch (ExpressionException e) {
          throw e.in(where + ".filter");
        }
      } else if (step instanceof Step.Derive d) {
        DeriveStage stage = derive(schema, d, where + ".derive");
        stages.add(stage);
        schema = stage.output;
      }
    }
    return new Compiled(schema, stages.toArray(Stage[]::new));
  }

  private static DeriveStage derive(StructType schema, Step.Derive d, String where) {
    List<StructField> fields = new ArrayList<>(schema.fields());
    List<CompiledExpression> exprs = new ArrayList<>();
    List<Integer> targets = new ArrayList<>();
    if (d.columns().isEmpty()) {
      throw new IllegalArgumentException(
          where + ": derive declares no column; declare at least" + " one (name: expression)");
    }
    for (Map.Entry<String, String> c : d.columns().entrySet()) {
      String name = c.getKey();
      if (name == null || name.isBlank() || name.contains(".")) {
        throw new IllegalArgumentException(
            where
                + "."
                + name
                + ": a derived column needs a"
                + " plain name without dots (nested fields cannot be derived)");
      }
      CompiledExpression e;
      try {
        e = ExpressionCompiler.compile(c.getValue(), schema);
      } catch (ExpressionException ex) {
        throw ex.in(where + "." + name);
      }
      DataType type = e.type();
      int at = indexOf(fields, name);
      if (at >= 0) {
        fields.set(at, StructField.nullable(name, type));
      } else {
        at = fields.size();
        fields.add(StructField.nullable(name, type));
      }
      exprs.add(e);
      targets.add(at);
    }
    return new DeriveStage(
        new StructType(fields),
        exprs.toArray(CompiledExpression[]::new),
        targets.stream().mapToInt(Integer::intValue).toArray());
  }

  private static int indexOf(List<StructField> fields, String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private interface Stage {
    /** The transformed row, or null to drop it. */
    Object[] apply(Object[] row);
  }

  private record FilterStage(CompiledPredicate predicate) implements Stage {
    @Override
    public Object[] apply(Object[] row) {
      return predicate.test(row) ? row : null;
    }
  }

  private static final class DeriveStage implements Stage {
    final StructType output;
    private final int width;
    private final CompiledExpression[] exprs;
    private final int[] targets;

    DeriveStage(StructType output, CompiledExpression[] exprs, int[] targets) {
      this.output = output;
      this.width = output.size();
      this.exprs = exprs;
      this.targets = targets;
    }

    @Override
    public Object[] apply(Object[] row) {
      Object[] out = new Object[width];
      System.arraycopy(row, 0, out, 0, row.length);
      for (int k = 0; k < exprs.length; k++) {
        out[targets[k]] = exprs[k].eval(row); // reads the input row: SELECT-list semantics
      }
      return out;
    }
  }

  private record Compiled(StructType outputSchema, Stage[] stages) implements CompiledTransforms {
    @Override
    public Object[] apply(Object[] row) {
      Object[] current = row;
      for (Stage s : stages) {
        current = s.apply(current);
        if (current == null) {
          return null;
        }
      }
      return current;
    }
  }
}
