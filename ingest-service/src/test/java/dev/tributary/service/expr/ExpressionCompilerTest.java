package dev.tributary.service.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class ExpressionCompilerTest {
  static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("i", PrimitiveType.INTEGER),
          StructField.nullable("l", PrimitiveType.LONG),
          StructField.nullable("d", PrimitiveType.DOUBLE),
          StructField.nullable("dec", new DecimalType(10, 2)),
          StructField.nullable("s", PrimitiveType.STRING),
          StructField.nullable("b", PrimitiveType.BOOLEAN),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("dt", PrimitiveType.DATE),
          StructField.nullable(
              "customer",
              StructType.of(
                  StructField.nullable("id", PrimitiveType.LONG),
                  StructField.nullable("home city", PrimitiveType.STRING))),
          StructField.nullable("region", PrimitiveType.STRING),
          StructField.nullable("amount_cents", PrimitiveType.LONG),
          StructField.nullable("nul", PrimitiveType.LONG));

  static final Object[] ROW = {
    7,
    10L,
    2.5,
    new BigDecimal("12.34"),
    "Hello World",
    true,
    Instant.parse("2026-03-15T13:45:30.123456Z"),
    LocalDate.of(2026, 3, 15),
    new Object[] {42L, "Paris"},
    "eu-west",
    1999L,
    null
  };

  static Object eval(String expr) {
    return ExpressionCompiler.compile(expr, SCHEMA).eval(ROW);
  }

  static DataType type(String expr) {
    return ExpressionCompiler.compile(expr, SCHEMA).type();
  }

  static ExpressionException error(String expr) {
    try {
      ExpressionCompiler.compile(expr, SCHEMA);
    } catch (ExpressionException e) {
      return e;
    }
    throw new AssertionError("expected a compile error for " + expr);
  }

  @Test
  void expressionsAtTheSizeLimitsCompileAndEvaluate() {
    assertThat(eval("i = 0" + " OR i = 1".repeat(249))).isEqualTo(false); // 499 operators
    assertThat(eval("(".repeat(64) + "i + 1" + ")".repeat(64))).isEqualTo(eval("i + 1"));
    assertThat(error("i = 0" + " OR i = 1".repeat(250)).reason())
        .startsWith("the expression has more than 500 operators");
    assertThat(error("(".repeat(3000) + "i" + ")".repeat(3000)).reason())
        .startsWith("the expression is nested more than 64 parentheses deep");
  }

  @Test
  void literalsAndTheirTypes() {
    assertThat(eval("5")).isEqualTo(5);
    assertThat(eval("-2147483648")).isEqualTo(Integer.MIN_VALUE);
    assertThat(eval("3000000000")).isEqualTo(3_000_000_000L);
    assertThat(eval("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
    assertThat(eval("100.0")).isEqualTo(100.0);
    assertThat(type("100.0")).isEqualTo(PrimitiveType.DOUBLE);
    assertThat(eval("'it''s'")).isEqualTo("it's");
    assertThat(eval("TRUE")).isEqualTo(true);
    assertThat(eval("false")).isEqualTo(false);
    assertThat(eval("TIMESTAMP '2026-01-01T00:00:00Z'"))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(eval("TIMESTAMP '2026-01-01 02:00:00+02:00'"))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(eval("DATE '2026-01-01'")).isEqualTo(LocalDate.of(2026, 1, 1));
    assertThat(eval("CAST(NULL AS long)")).isNull();
    assertThat(type("CAST(NULL AS long)")).isEqualTo(PrimitiveType.LONG);
  }

  @Test
  void columnReferences() {
    assertThat(eval("amount_cents")).isEqualTo(1999L);
    assertThat(eval("customer.id")).isEqualTo(42L);
    assertThat(eval("customer.`home city`")).isEqualTo("Paris");
    assertThat(eval("`region`")).isEqualTo("eu-west");
    assertThat(eval("REGION")).as("case-insensitive fallback").isEqualTo("eu-west");
    Object[] noCustomer = ROW.clone();
    noCustomer[8] = null;
    assertThat(ExpressionCompiler.compile("customer.id", SCHEMA).eval(noCustomer)).isNull();
  }

  @Test
  void arithmeticAndPromotion() {
    assertThat(eval("i + 1")).isEqualTo(8);
    assertThat(type("i + 1")).isEqualTo(PrimitiveType.INTEGER);
    assertThat(eval("i + l")).isEqualTo(17L);
    assertThat(eval("l - 20")).isEqualTo(-10L);
    assertThat(eval("l * d")).isEqualTo(25.0);
    assertThat(eval("amount_cents / 100.0")).isEqualTo(19.99);
    assertThat(type("amount_cents / 100.0")).isEqualTo(PrimitiveType.DOUBLE);
    assertThat(eval("i / 2")).as("int / int is a double").isEqualTo(3.5);
    assertThat(eval("i % 4")).isEqualTo(3);
    assertThat(eval("-i % 4")).isEqualTo(-3);
    assertThat(eval("d % 1")).isEqualTo(0.5);
    assertThat(eval("1 + 2 * 3 - 4")).isEqualTo(3);
    assertThat(eval("(1 + 2) * 3")).isEqualTo(9);
    assertThat(eval("-l")).isEqualTo(-10L);
    assertThat(eval("dec + 1")).isEqualTo(new BigDecimal("13.34"));
    assertThat(type("dec + 1")).isEqualTo(new DecimalType(13, 2));
    assertThat(eval("dec * 2")).isEqualTo(new BigDecimal("24.68"));
    assertThat(type("dec * dec")).isEqualTo(new DecimalType(21, 4));
    assertThat(eval("dec / 4")).isEqualTo(new BigDecimal("3.0850000000000"));
    assertThat(type("dec / 4")).isEqualTo(new DecimalType(21, 13));
    assertThat(eval("dec + 0.5")).isEqualTo(12.84);
    assertThat(eval("dec % 5")).isEqualTo(new BigDecimal("2.34"));
  }

  @Test
  void divisionByZeroAndOverflowGiveNull() {
    assertThat(eval("i / 0")).isNull();
    assertThat(eval("d / 0")).isNull();
    assertThat(eval("i % 0")).isNull();
    assertThat(eval("dec / 0")).isNull();
    assertThat(eval("2147483647 + i")).isNull();
    assertThat(eval("9223372036854775807 + l")).isNull();
    assertThat(eval("-(-9223372036854775807 - 1 + l - l)")).isNull();
    assertThat(eval("abs(-2147483648)")).isNull();
    assertThat(eval("CAST(99999999.99 AS decimal(10,2)) * 1000"))
        .isEqualTo(new BigDecimal("99999999990.00"));
    assertThat(eval("CAST('12345678901234567890123456789012345678' AS decimal(38,0)) * 10"))
        .isNull();
  }

  @Test
  void comparisons() {
    assertThat(eval("amount_cents > 0")).isEqualTo(true);
    assertThat(eval("i = 7")).isEqualTo(true);
    assertThat(eval("i <> 7")).isEqualTo(false);
    assertThat(eval("i != 8")).isEqualTo(true);
    assertThat(eval("i < 7.5")).isEqualTo(true);
    assertThat(eval("i <= l")).isEqualTo(true);
    assertThat(eval("dec >= 12.34")).isEqualTo(true);
    assertThat(eval("dec = 12.340")).isEqualTo(true);
    assertThat(eval("s = 'Hello World'")).isEqualTo(true);
    assertThat(eval("s < 'Z'")).isEqualTo(true);
    assertThat(eval("b = TRUE")).isEqualTo(true);
    assertThat(eval("ts > TIMESTAMP '2026-03-15T13:00:00Z'")).isEqualTo(true);
    assertThat(eval("ts > '2026-03-15T14:00:00Z'"))
        .as("string literal read as a timestamp")
        .isEqualTo(false);
    assertThat(eval("dt = '2026-03-15'")).isEqualTo(true);
    assertThat(eval("dt < ts")).as("a date widens to midnight UTC").isEqualTo(true);
    assertThat(eval("0.0 = -0.0")).isEqualTo(true);
    assertThat(eval("nul = 1")).isNull();
    assertThat(eval("nul <> 1")).isNull();
  }

  @Test
  void booleanLogicIsThreeValued() {
    String[] values = {"TRUE", "FALSE", "NULL"};
    Boolean[] java = {true, false, null};
    for (int x = 0; x < 3; x++) {
      for (int y = 0; y < 3; y++) {
        Boolean and =
            Boolean.FALSE.equals(java[x]) || Boolean.FALSE.equals(java[y])
                ? Boolean.FALSE
                : java[x] == null || java[y] == null ? null : Boolean.TRUE;
        Boolean or =
            Boolean.TRUE.equals(java[x]) || Boolean.TRUE.equals(java[y])
                ? Boolean.TRUE
                : java[x] == null || java[y] == null ? null : Boolean.FALSE;
        assertThat(eval(values[x] + " AND " + values[y]))
            .as(values[x] + " AND " + values[y])
            .isEqualTo(and);
        assertThat(eval(values[x] + " OR " + values[y]))
            .as(values[x] + " OR " + values[y])
            .isEqualTo(or);
      }
    }
    assertThat(eval("NOT b")).isEqualTo(false);
    assertThat(eval("NOT (nul > 1)")).isNull();
    assertThat(eval("nul IS NULL")).isEqualTo(true);
    assertThat(eval("nul IS NOT NULL")).isEqualTo(false);
    assertThat(eval("s IS NULL")).isEqualTo(false);
    assertThat(eval("(nul > 1) IS TRUE")).isEqualTo(false);
    assertThat(eval("(nul > 1) IS NOT FALSE")).isEqualTo(true);
  }

  @Test
  void inBetweenLike() {
    assertThat(eval("region IN ('eu-west', 'us-east')")).isEqualTo(true);
    assertThat(eval("region NOT IN ('eu-west', 'us-east')")).isEqualTo(false);
    assertThat(eval("i IN (1, 2, 3)")).isEqualTo(false);
    assertThat(eval("i IN (1, NULL)")).as("no match but a null: unknown").isNull();
    assertThat(eval("i IN (7, NULL)")).isEqualTo(true);
    assertThat(eval("i NOT IN (1, NULL)")).isNull();
    assertThat(eval("i IN (l - 3, 99)")).isEqualTo(true);
    assertThat(eval("l IN (10.0)")).isEqualTo(true);
    assertThat(eval("nul IN (1)")).isNull();
    assertThat(eval("i BETWEEN 1 AND 7")).isEqualTo(true);
    assertThat(eval("i NOT BETWEEN 1 AND 7")).isEqualTo(false);
    assertThat(eval("i BETWEEN 8 AND nul")).isEqualTo(false);
    assertThat(eval("i BETWEEN 1 AND nul")).isNull();
    assertThat(eval("s LIKE 'Hello%'")).isEqualTo(true);
    assertThat(eval("s LIKE '%World'")).isEqualTo(true);
    assertThat(eval("s LIKE '%lo W%'")).isEqualTo(true);
    assertThat(eval("s LIKE 'H_llo World'")).isEqualTo(true);
    assertThat(eval("s LIKE 'hello%'")).isEqualTo(false);
    assertThat(eval("s ILIKE 'hello%'")).isEqualTo(true);
    assertThat(eval("s NOT LIKE '%x%'")).isEqualTo(true);
    assertThat(eval("'50%' LIKE '50\\%'")).isEqualTo(true);
    assertThat(eval("'50x' LIKE '50\\%'")).isEqualTo(false);
    assertThat(eval("'a_b' LIKE 'a!_b' ESCAPE '!'")).isEqualTo(true);
    assertThat(eval("'a.b' LIKE 'a_b'")).isEqualTo(true);
    assertThat(eval("'a+b' LIKE 'a+b'")).isEqualTo(true);
    assertThat(eval("s LIKE region || '%'")).isEqualTo(false);
    assertThat(eval("s RLIKE 'W.r'")).isEqualTo(true);
    assertThat(eval("s LIKE NULL")).isNull();
  }

  @Test
  void caseCastAndConcat() {
    assertThat(eval("CASE WHEN i > 5 THEN 'big' WHEN i > 0 THEN 'small' ELSE 'none' END"))
        .isEqualTo("big");
    assertThat(eval("CASE WHEN i > 50 THEN 'big' END")).isNull();
    assertThat(eval("CASE WHEN nul > 1 THEN 1 ELSE 2 END")).isEqualTo(2);
    assertThat(eval("CASE WHEN b THEN 1 ELSE 2.5 END")).isEqualTo(1.0);
    assertThat(eval("CASE i WHEN 6 THEN 'six' WHEN 7 THEN 'seven' END")).isEqualTo("seven");
    assertThat(eval("CAST(i AS string)")).isEqualTo("7");
    assertThat(eval("CAST('42' AS int)")).isEqualTo(42);
    assertThat(eval("CAST(' 42 ' AS bigint)")).isEqualTo(42L);
    assertThat(eval("CAST('12x' AS int)")).as("failed casts give null").isNull();
    assertThat(eval("CAST('1.9' AS int)")).isEqualTo(1);
    assertThat(eval("CAST(d AS int)")).isEqualTo(2);
    assertThat(eval("CAST(-2.5 AS long)")).isEqualTo(-2L);
    assertThat(eval("CAST(3000000000 AS int)")).isNull();
    assertThat(eval("CAST(dec AS decimal(4,1))")).isEqualTo(new BigDecimal("12.3"));
    assertThat(eval("CAST(dec AS decimal(3,2))")).isNull();
    assertThat(eval("CAST(dec AS string)")).isEqualTo("12.34");
    assertThat(eval("CAST('2026-01-01T00:00:00Z' AS timestamp)"))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(eval("CAST(ts AS date)")).isEqualTo(LocalDate.of(2026, 3, 15));
    assertThat(eval("CAST(ts AS long)"))
        .isEqualTo(Instant.parse("2026-03-15T13:45:30Z").getEpochSecond());
    assertThat(eval("CAST(0 AS timestamp)")).isEqualTo(Instant.EPOCH);
    assertThat(eval("CAST(dt AS string)")).isEqualTo("2026-03-15");
    assertThat(eval("CAST(ts AS string)")).isEqualTo("2026-03-15T13:45:30.123456Z");
    assertThat(eval("CAST('yes' AS boolean)")).isEqualTo(true);
    assertThat(eval("CAST('maybe' AS boolean)")).isNull();
    assertThat(eval("CAST(b AS int)")).isEqualTo(1);
    assertThat(eval("CAST('2.5' AS double)")).isEqualTo(2.5);
    assertThat(eval("'42'::int + 1")).isEqualTo(43);
    assertThat(eval("TRY_CAST('x' AS int)")).isNull();
    assertThat(eval("CAST(i AS varchar(10))")).isEqualTo("7");
    assertThat(eval("CAST('3.14159' AS numeric(4,2))")).isEqualTo(new BigDecimal("3.14"));
    assertThat(eval("region || '/' || i")).isEqualTo("eu-west/7");
    assertThat(eval("region || nul")).isNull();
  }

  @Test
  void stringFunctions() {
    assertThat(eval("lower(s)")).isEqualTo("hello world");
    assertThat(eval("UPPER(s)")).isEqualTo("HELLO WORLD");
    assertThat(eval("trim('  a b  ')")).isEqualTo("a b");
    assertThat(eval("length(s)")).isEqualTo(11);
    assertThat(eval("length('\uD83D\uDE00x')")).as("characters, not UTF-16 units").isEqualTo(2);
    assertThat(eval("substring(s, 1, 5)")).isEqualTo("Hello");
    assertThat(eval("substring(s, 7)")).isEqualTo("World");
    assertThat(eval("substring(s, -5, 3)")).isEqualTo("Wor");
    assertThat(eval("substring(s, 0, 2)")).isEqualTo("He");
    assertThat(eval("substring(s, 20)")).isEqualTo("");
    assertThat(eval("substring(s, 2, -1)")).isEqualTo("");
    assertThat(eval("concat(region, '-', i, '-', b)")).isEqualTo("eu-west-7-true");
    assertThat(eval("concat(region, nul)")).isNull();
    assertThat(eval("lower(nul || 'x')")).isNull();
  }

  @Test
  void numericFunctions() {
    assertThat(eval("coalesce(nul, l, 5)")).isEqualTo(10L);
    assertThat(eval("coalesce(nul, 5)")).isEqualTo(5L);
    assertThat(eval("coalesce(nul, NULL)")).isNull();
    assertThat(eval("abs(-i)")).isEqualTo(7);
    assertThat(eval("abs(-2.5)")).isEqualTo(2.5);
    assertThat(eval("abs(dec - 20)")).isEqualTo(new BigDecimal("7.66"));
    assertThat(eval("round(2.5)")).isEqualTo(3.0);
    assertThat(eval("round(-2.5)")).isEqualTo(-3.0);
    assertThat(eval("round(1.23456, 2)")).isEqualTo(1.23);
    assertThat(eval("round(dec, 1)")).isEqualTo(new BigDecimal("12.3"));
    assertThat(eval("round(1999, -2)")).isEqualTo(2000);
    assertThat(eval("round(amount_cents, -1)")).isEqualTo(2000L);
    assertThat(eval("floor(d)")).isEqualTo(2L);
    assertThat(eval("ceil(d)")).isEqualTo(3L);
    assertThat(eval("floor(-d)")).isEqualTo(-3L);
    assertThat(eval("ceil(dec)")).isEqualTo(new BigDecimal("13"));
    assertThat(eval("floor(i)")).isEqualTo(7);
    assertThat(eval("greatest(i, l, 3)")).isEqualTo(10L);
    assertThat(eval("least(i, l, 3)")).isEqualTo(3L);
    assertThat(eval("greatest(nul, 3)")).isEqualTo(3L);
    assertThat(eval("least(d, dec)")).isEqualTo(2.5);
  }

  @Test
  void timeFunctions() {
    assertThat(eval("date_trunc('hour', ts)")).isEqualTo(Instant.parse("2026-03-15T13:00:00Z"));
    assertThat(eval("date_trunc('DAY', ts)")).isEqualTo(Instant.parse("2026-03-15T00:00:00Z"));
    assertThat(eval("date_trunc('minute', ts)")).isEqualTo(Instant.parse("2026-03-15T13:45:00Z"));
    assertThat(eval("date_trunc('month', ts)")).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(eval("date_trunc('year', ts)")).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(eval("date_trunc('quarter', ts)")).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(eval("date_trunc('week', ts)"))
        .as("Monday")
        .isEqualTo(Instant.parse("2026-03-09T00:00:00Z"));
    assertThat(eval("date_trunc('day', dt)")).isEqualTo(Instant.parse("2026-03-15T00:00:00Z"));
    assertThat(eval("to_date(ts)")).isEqualTo(LocalDate.of(2026, 3, 15));
    assertThat(eval("to_date('2026-01-02')")).isEqualTo(LocalDate.of(2026, 1, 2));
    assertThat(eval("to_date('nope')")).isNull();
    assertThat(eval("year(ts)")).isEqualTo(2026);
    assertThat(eval("month(ts)")).isEqualTo(3);
    assertThat(eval("day(ts)")).isEqualTo(15);
    assertThat(eval("hour(ts)")).isEqualTo(13);
    assertThat(eval("year(dt)")).isEqualTo(2026);
    assertThat(eval("hour(dt)")).isEqualTo(0);
    assertThat(eval("hour(CAST(nul AS timestamp))")).isNull();
  }

  @Test
  void predicatesKeepOnlyTrue() {
    CompiledPredicate p = ExpressionCompiler.compilePredicate("nul > 0 OR i > 5", SCHEMA);
    assertThat(p.test(ROW)).isTrue();
    assertThat(ExpressionCompiler.compilePredicate("nul > 0", SCHEMA).test(ROW))
        .as("NULL drops the row")
        .isFalse();
    assertThat(ExpressionCompiler.compilePredicate("i > 50", SCHEMA).test(ROW)).isFalse();
    assertThatThrownBy(() -> ExpressionCompiler.compilePredicate("amount_cents", SCHEMA))
        .isInstanceOf(ExpressionException.class)
        .hasMessage(
            "a filter must be a boolean expression, found long 'amount_cents'; compare"
                + " it with something, e.g. amount_cents > 0 at position 1 of \"amount_cents\"");
  }

  @Test
  void typeErrorsCarryPositions() {
    ExpressionException e = error("region > 5");
    assertThat(e.reason())
        .isEqualTo("cannot compare string 'region' with long 5".replace("long", "int"));
    assertThat(e.position()).isEqualTo(8);
    assertThat(e.expression()).isEqualTo("region > 5");
    assertThat(e)
        .hasMessage("cannot compare string 'region' with int 5 at position 8 of \"region > 5\"");
    assertThat(error("region = 3000000000").reason())
        .isEqualTo("cannot compare string 'region' with long 3000000000");
    assertThat(error("i + s").reason())
        .isEqualTo(
            "cannot apply '+' to int 'i' and string 's'; use || or concat() to join strings");
    assertThat(error("i + s").position()).isEqualTo(3);
    assertThat(error("1 + (b AND i)").reason())
        .isEqualTo("AND needs a boolean operand, found int 'i'");
    assertThat(error("1 + (b AND i)").position()).isEqualTo(12);
    assertThat(error("lower(i)").reason())
        .isEqualTo("function lower expects a string as argument 1, found int 'i'");
    assertThat(error("lower(i)").position()).isEqualTo(7);
    assertThat(error("CASE WHEN b THEN 1 ELSE 'x' END").reason())
        .isEqualTo("CASE branches have incompatible types: int 1 and string 'x'");
    assertThat(error("CAST(dt AS int)").reason()).isEqualTo("cannot cast date 'dt' to int");
    assertThat(error("CAST(i AS blob)").reason()).startsWith("unknown type 'blob' in CAST");
    assertThat(error("i LIKE 'x'").reason())
        .startsWith("LIKE needs string operands, found int 'i'");
    assertThat(error("ts > 'yesterday'").reason())
        .isEqualTo("string 'yesterday' is not a timestamp (ISO-8601 like 2026-01-01T00:00:00Z)");
    assertThat(error("ts > 'yesterday'").position()).isEqualTo(6);
    assertThat(error("round(d, i)").reason())
        .startsWith("function round expects an integer literal");
    assertThat(error("date_trunc('fortnight', ts)").reason())
        .startsWith("function date_trunc expects a unit literal");
    assertThat(error("NULL").reason())
        .isEqualTo("the type of NULL cannot be inferred here; write CAST(NULL AS <type>)");
    assertThat(error("TIMESTAMP 'soon'").reason()).startsWith("invalid TIMESTAMP literal 'soon'");
  }

  @Test
  void unknownNamesAreSuggested() {
    ExpressionException e = error("amount_cent / 100.0");
    assertThat(e.reason()).isEqualTo("unknown column 'amount_cent'; did you mean 'amount_cents'?");
    assertThat(e.position()).isEqualTo(1);
    assertThat(error("i + customer.idd").reason())
        .isEqualTo(
            "unknown column 'customer.idd' (struct 'customer' has fields id, home city); did you mean"
                + " 'customer.id'?");
    assertThat(error("i + customer.idd").position()).isEqualTo(5);
    assertThat(error("zzzzzzzz").reason())
        .startsWith("unknown column 'zzzzzzzz'; columns are i, l, d, dec,");
    assertThat(error("i.x").reason())
        .isEqualTo(
            "column 'i' is a int, not a struct, so it has no field 'x'".replace("a int", "a int"));
    assertThat(error("lowr(s)").reason())
        .startsWith("unknown function 'lowr'; did you mean 'lower'? (functions: abs, ceil,");
    assertThat(error("  lowr(s)").position()).isEqualTo(3);
    assertThat(error("substring(s)").reason())
        .isEqualTo("function substring takes 2 or 3 arguments, found 1");
  }

  @Test
  void nonDeterministicFunctionsAreRefused() {
    for (String f :
        new String[] {
          "current_timestamp()", "CURRENT_TIMESTAMP", "now()", "rand()", "uuid()", "current_date"
        }) {
      assertThat(error("ts < " + f).reason())
          .as(f)
          .contains("is not allowed: it is non-deterministic");
    }
  }

  @Test
  void syntaxErrorsCarryPositions() {
    ExpressionException e = error("amount_cents >");
    assertThat(e.reason()).isEqualTo("syntax error: the expression ends too early");
    assertThat(e.position()).isEqualTo(15);
    assertThat(error("a = = b").reason()).isEqualTo("syntax error: unexpected '='");
    assertThat(error("a = = b").position()).isEqualTo(5);
    assertThat(error("i > 1 2").reason())
        .isEqualTo("syntax error: unexpected '2' after a complete expression");
    assertThat(error("i > 1 2").position()).isEqualTo(7);
    assertThat(error("s = 'abc").reason()).isEqualTo("syntax error: unterminated quote or string");
    assertThat(error("").reason()).isEqualTo("the expression is empty");
    assertThat(error("i >\n  ( 2 +").position()).as("just after the end").isEqualTo(12);
    assertThat(error("EXTRACT(year FROM ts) > 1").reason())
        .startsWith("unsupported syntax 'EXTRACT(year FROM ts)'");
    assertThat(error("i & 1").reason()).startsWith("unsupported syntax 'i & 1'");
    assertThat(error("i + day").reason())
        .isEqualTo("'day' is an SQL keyword here; write `day` in back quotes to name a column");
    assertThat(error("i + day").position()).isEqualTo(5);
    assertThat(error("i IN ()").reason()).isEqualTo("IN needs at least one value in its list");
    assertThat(error("\ti >\r\n s").position())
        .as("the operator; a tab counts as one")
        .isEqualTo(4);
    assertThat(error("\ti >\r\n s").reason()).isEqualTo("cannot compare int 'i' with string 's'");
  }

  @Test
  void anUnknownTopLevelColumnIsNamedSoThatAJoinCanSupplyItLater() {
    assertThatThrownBy(() -> ExpressionCompiler.compile("concat(s, segment)", SCHEMA))
        .isInstanceOfSatisfying(
            ExpressionException.class,
            e -> {
              assertThat(e.unknownColumn()).contains("segment");
              assertThat(e.in("sink.kafka.key").unknownColumn()).contains("segment");
            });
    assertThatThrownBy(() -> ExpressionCompiler.compile("customer.name", SCHEMA))
        .as("a missing field of a known struct: no new column fixes it")
        .isInstanceOfSatisfying(
            ExpressionException.class, e -> assertThat(e.unknownColumn()).isEmpty());
    assertThatThrownBy(() -> ExpressionCompiler.compile("s +", SCHEMA))
        .isInstanceOfSatisfying(
            ExpressionException.class, e -> assertThat(e.unknownColumn()).isEmpty());
  }
}
