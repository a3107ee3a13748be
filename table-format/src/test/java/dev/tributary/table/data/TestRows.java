package dev.tributary.table.data;

import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Schemas and row helpers shared by the data-file tests. */
final class TestRows {
  private TestRows() {}

  static final StructType ADDRESS =
      StructType.of(
          StructField.nullable("city", PrimitiveType.STRING),
          StructField.nullable("zip", PrimitiveType.INTEGER));

  /** One column of every type, all nullable, plus a nested struct and every decimal width. */
  static final StructType ALL_TYPES =
      StructType.of(
          StructField.nullable("s", PrimitiveType.STRING),
          StructField.nullable("i", PrimitiveType.INTEGER),
          StructField.nullable("l", PrimitiveType.LONG),
          StructField.nullable("d", PrimitiveType.DOUBLE),
          StructField.nullable("b", PrimitiveType.BOOLEAN),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("dt", PrimitiveType.DATE),
          StructField.nullable("bin", PrimitiveType.BINARY),
          StructField.nullable("dec9", new DecimalType(9, 2)),
          StructField.nullable("dec18", new DecimalType(18, 4)),
          StructField.nullable("dec38", new DecimalType(38, 10)),
          StructField.nullable("addr", ADDRESS));

  static Object[] row(Object... values) {
    return values;
  }

  /** Rows as lists, so AssertJ compares them element by element (arrays deeply). */
  static List<List<Object>> asLists(List<Object[]> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] row : rows) {
      out.add(deepList(row));
    }
    return out;
  }

  private static List<Object> deepList(Object[] row) {
    List<Object> out = new ArrayList<>();
    for (Object v : row) {
      if (v instanceof Object[] nested) {
        out.add(deepList(nested));
      } else if (v instanceof byte[] bytes) {
        out.add(new ByteArrayValue(bytes));
      } else {
        out.add(v);
      }
    }
    return out;
  }

  /** byte[] with value equality, for comparisons. */
  record ByteArrayValue(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof ByteArrayValue other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return Arrays.toString(bytes);
    }
  }
}
