package dev.tributary.service.compare;

import dev.tributary.service.expr.CompiledPredicate;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * {@code tributary compare}'s checks before the comparison: the same columns (by name, in any
 * order) of the same types on both sides, key columns that exist, a {@code --where} that compiles;
 * then {@link TableComparison} over the two tables' rows, B's columns put in A's order.
 */
public final class Comparisons {
  private Comparisons() {}

  /**
   * Compares {@code a} with {@code b}.
   *
   * @param key the key columns, or empty
   * @param where a SQL predicate (our expression language) both tables' rows must pass
   * @throws CompareRefusal if the columns differ, a key column is unknown or {@code where} does not
   *     compile
   */
  public static ComparisonResult compare(
      ComparedTable a,
      ComparedTable b,
      List<String> key,
      Optional<String> where,
      CompareOptions options)
      throws IOException {
    StructType schema = a.schema();
    List<String> columns = schema.fieldNames();
    checkSameColumns(a, b);
    for (String k : key) {
      if (!columns.contains(k)) {
        throw new CompareRefusal(CompareErrors.unknownKey(k, columns));
      }
    }
    Predicate<Object[]> filter = row -> true;
    if (where.isPresent()) {
      try {
        CompiledPredicate predicate = ExpressionCompiler.compilePredicate(where.get(), schema);
        filter = predicate::test;
      } catch (ExpressionException e) {
        throw new CompareRefusal(CompareErrors.badWhere(e.getMessage()), e);
      }
    }
    return TableComparison.compare(
        a.rows(columns, filter), b.rows(columns, filter), columns, key, options);
  }

  private static void checkSameColumns(ComparedTable a, ComparedTable b) {
    List<String> onlyA = new ArrayList<>(a.schema().fieldNames());
    onlyA.removeAll(b.schema().fieldNames());
    List<String> onlyB = new ArrayList<>(b.schema().fieldNames());
    onlyB.removeAll(a.schema().fieldNames());
    if (!onlyA.isEmpty() || !onlyB.isEmpty()) {
      throw new CompareRefusal(CompareErrors.columnsDiffer(a.name(), b.name(), onlyA, onlyB));
    }
    for (StructField fa : a.schema().fields()) {
      DataType tb = b.schema().field(fa.name()).orElseThrow().type();
      if (!sameType(fa.type(), tb)) {
        throw new CompareRefusal(
            CompareErrors.typesDiffer(
                fa.name(), a.name(), fa.type().deltaName(), b.name(), tb.deltaName()));
      }
    }
  }

  /** Equal types, nullability aside (a nullable column may hold the same values). */
  static boolean sameType(DataType x, DataType y) {
    if (x instanceof StructType sx && y instanceof StructType sy) {
      if (sx.size() != sy.size()) {
        return false;
      }
      for (int i = 0; i < sx.size(); i++) {
        StructField fx = sx.fields().get(i);
        StructField fy = sy.fields().get(i);
        if (!fx.name().equals(fy.name()) || !sameType(fx.type(), fy.type())) {
          return false;
        }
      }
      return true;
    }
    if (x instanceof ArrayType ax && y instanceof ArrayType ay) {
      return sameType(ax.elementType(), ay.elementType());
    }
    if (x instanceof MapType mx && y instanceof MapType my) {
      return sameType(mx.keyType(), my.keyType()) && sameType(mx.valueType(), my.valueType());
    }
    return x.equals(y);
  }
}
