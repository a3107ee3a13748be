package dev.tributary.service.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code size} and {@code element_at} over the array and map columns a Delta source can carry
 * (issue 23), with Spark's 1-based and from-the-end indexing.
 */
class CollectionFunctionsTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("tags", new ArrayType(PrimitiveType.STRING, true)),
          StructField.nullable(
              "scores", new MapType(PrimitiveType.STRING, PrimitiveType.LONG, true)),
          StructField.nullable("none", new ArrayType(PrimitiveType.LONG, true)),
          StructField.nullable("b", PrimitiveType.BYTE),
          StructField.nullable("sh", PrimitiveType.SHORT),
          StructField.nullable("f", PrimitiveType.FLOAT),
          StructField.nullable("t", PrimitiveType.TIMESTAMP_NTZ));
  private static final Object[] ROW = {
    Arrays.asList("a", null, "c"),
    Map.of("x", 1L, "y", 2L),
    null,
    (byte) -7,
    (short) 300,
    0.5f,
    LocalDateTime.parse("2026-01-01T10:00")
  };

  private static Object eval(String expr) {
    return ExpressionCompiler.compile(expr, SCHEMA).eval(ROW);
  }

  @Test
  void sizeCountsElementsAndEntries() {
    assertThat(eval("size(tags)")).isEqualTo(3);
    assertThat(eval("size(scores)")).isEqualTo(2);
    assertThat(eval("size(none)")).isNull();
    assertThat(ExpressionCompiler.compile("size(tags)", SCHEMA).type())
        .isEqualTo(PrimitiveType.INTEGER);
  }

  @Test
  void elementAtIndexesFromOneOrFromTheEndAndGivesNullOutside() {
    assertThat(
            List.of("element_at(tags, 1)", "element_at(tags, -1)", "element_at(tags, 2)").stream()
                .map(CollectionFunctionsTest::eval)
                .toList())
        .containsExactly("a", "c", null);
    assertThat(eval("element_at(tags, 4)")).isNull();
    assertThat(eval("element_at(tags, 0)")).isNull();
    assertThat(eval("element_at(scores, 'y')")).isEqualTo(2L);
    assertThat(eval("element_at(scores, 'z')")).isNull();
    assertThat(eval("element_at(none, 1)")).isNull();
    assertThat(ExpressionCompiler.compile("element_at(scores, 'x') + 1", SCHEMA).type())
        .isEqualTo(PrimitiveType.LONG);
  }

  @Test
  void theNarrowAndZonelessTypesAreReachedThroughCast() {
    assertThat(eval("CAST(b AS int) + 1")).isEqualTo(-6);
    assertThat(eval("CAST(sh AS long) * 2")).isEqualTo(600L);
    assertThat(eval("CAST(f AS double)")).isEqualTo(0.5);
    assertThat(eval("CAST(t AS timestamp)")).isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
    assertThat(eval("CAST(t AS string)")).isEqualTo("2026-01-01T10:00:00");
    assertThat(eval("CAST(b AS string)")).isEqualTo("-7");
    assertThatThrownBy(() -> ExpressionCompiler.compile("CAST(t AS boolean)", SCHEMA))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("timestamp_ntz");
  }

  @Test
  void wrongArgumentsAreRefusedNamingTheFunctionAndTheTypes() {
    assertThatThrownBy(() -> ExpressionCompiler.compile("size('abc')", SCHEMA))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("function size expects an array or a map as argument 1");
    assertThatThrownBy(() -> ExpressionCompiler.compile("element_at(scores, 1)", SCHEMA))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("function element_at expects a key of type string as argument 2");
    assertThatThrownBy(() -> ExpressionCompiler.compile("element_at(tags, 'a')", SCHEMA))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("an integer index");
  }
}
