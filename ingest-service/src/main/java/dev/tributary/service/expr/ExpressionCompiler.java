package dev.tributary.service.expr;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.util.Objects;

/**
 * Compiles expression text against an input schema. Compilation parses, resolves every column,
 * checks every type and folds constants, so evaluation cannot meet a type error; the results are
 * immutable and thread-safe.
 */
public final class ExpressionCompiler {
  private ExpressionCompiler() {}

  /**
   * Compiles a value expression (a {@code derive} column).
   *
   * @throws ExpressionException for a syntax error, an unknown column or function, a type error, or
   *     an expression whose type cannot be known (a bare {@code NULL}: write {@code CAST(NULL AS
   *     type)})
   */
  public static CompiledExpression compile(String text, StructType input) {
    Node node = compileNode(text, input);
    if (node.type() == null) {
      throw new ExpressionException(
          text,
          node.position(),
          "the type of NULL cannot be inferred here; write CAST(NULL AS <type>)");
    }
    return new Compiled(node.type(), node.eval(), text);
  }

  /**
   * Compiles a boolean expression (a {@code filter}).
   *
   * @throws ExpressionException as {@link #compile}, or when the expression is not boolean
   */
  public static CompiledPredicate compilePredicate(String text, StructType input) {
    Node node = compileNode(text, input);
    if (node.type() != null && node.type() != PrimitiveType.BOOLEAN) {
      throw new ExpressionException(
          text,
          node.position(),
          "a filter must be a boolean expression, found "
              + node.describe()
              + "; compare it with something, e.g. "
              + node.label().replace("'", "")
              + " > 0");
    }
    Evaluator eval = node.eval();
    return new Predicate(eval, text);
  }

  private static Node compileNode(String text, StructType input) {
    Objects.requireNonNull(text, "expression text");
    Objects.requireNonNull(input, "input schema");
    SourceText source = new SourceText(text);
    try {
      return new AstCompiler(source, input).compile(source.parse());
    } catch (StackOverflowError tooDeep) {
      // The limits make this unreachable on an ordinary thread stack; a small one still gets a
      // message.
      throw new ExpressionException(
          text, 1, "the expression is too deeply nested to compile; simplify it");
    }
  }

  private record Compiled(DataType type, Evaluator evaluator, String text)
      implements CompiledExpression {
    @Override
    public Object eval(Object[] row) {
      return evaluator.eval(row);
    }
  }

  private record Predicate(Evaluator evaluator, String text) implements CompiledPredicate {
    @Override
    public boolean test(Object[] row) {
      return evaluator.eval(row) == Boolean.TRUE;
    }
  }
}
