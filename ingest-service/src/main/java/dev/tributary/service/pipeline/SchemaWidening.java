package dev.tributary.service.pipeline;

import dev.tributary.checkpoint.CompatibleChange;
import dev.tributary.config.PipelineSpec;
import dev.tributary.table.TypeWidening;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which change of a checkpoint's recorded {@code format.schema} leaves the checkpoint usable: in a
 * stateless pipeline, whose checkpoint holds only source positions, the same columns in the same
 * order, some declared with a type Delta's type widening allows (int to long, double or decimal,
 * long to decimal, a decimal with more digits). The sink then widens its table at start ({@code
 * DeltaTableSink.widenDeclared}). A stateful pipeline's state holds typed values, so any change of
 * it stays refused, as does every other change of the declaration.
 */
final class SchemaWidening {
  static final String PART = "format.schema";
  private static final Pattern COLUMN_SEPARATOR = Pattern.compile(",(?![^(]*\\))");
  private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)");

  private SchemaWidening() {}

  /** The judge of a pipeline's checkpoint identity changes. */
  static CompatibleChange judge(PipelineSpec spec) {
    boolean stateless =
        spec.watermark().isEmpty() && spec.deduplicate().isEmpty() && spec.aggregate().isEmpty();
    return (part, recorded, declared) ->
        stateless && PART.equals(part) && widens(recorded, declared);
  }

  /**
   * True if {@code declared} has the columns of {@code recorded}, each the same type or widened.
   */
  static boolean widens(String recorded, String declared) {
    Optional<List<String[]>> from = columns(recorded);
    Optional<List<String[]>> to = columns(declared);
    if (from.isEmpty() || to.isEmpty() || from.get().size() != to.get().size()) {
      return false;
    }
    for (int i = 0; i < from.get().size(); i++) {
      String[] a = from.get().get(i);
      String[] b = to.get().get(i);
      if (!a[0].equals(b[0])) {
        return false;
      }
      if (!a[1].equals(b[1])) {
        Optional<DataType> has = type(a[1]);
        Optional<DataType> wants = type(b[1]);
        if (has.isEmpty() || wants.isEmpty() || !TypeWidening.allowed(has.get(), wants.get())) {
          return false;
        }
      }
    }
    return true;
  }

  /** {@code [name:type,...]} as (name, type) pairs, or empty if it is not a column list. */
  private static Optional<List<String[]>> columns(String canonical) {
    if (canonical == null
        || !canonical.startsWith("[")
        || !canonical.endsWith("]")
        || canonical.length() < 3) {
      return Optional.empty();
    }
    List<String[]> out = new ArrayList<>();
    for (String column : COLUMN_SEPARATOR.split(canonical.substring(1, canonical.length() - 1))) {
      int colon = column.lastIndexOf(':');
      if (colon <= 0) {
        return Optional.empty();
      }
      out.add(new String[] {column.substring(0, colon), column.substring(colon + 1)});
    }
    return Optional.of(out);
  }

  /** The table type of a declared numeric type that may widen; empty for the others. */
  private static Optional<DataType> type(String canonical) {
    Matcher m = DECIMAL.matcher(canonical);
    if (m.matches()) {
      return Optional.of(
          new DecimalType(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
    }
    return switch (canonical) {
      case "int" -> Optional.of(PrimitiveType.INTEGER);
      case "long" -> Optional.of(PrimitiveType.LONG);
      case "double" -> Optional.of(PrimitiveType.DOUBLE);
      default -> Optional.empty();
    };
  }
}
