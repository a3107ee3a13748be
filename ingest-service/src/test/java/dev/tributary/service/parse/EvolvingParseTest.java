package dev.tributary.service.parse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.types.PrimitiveType;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import org.junit.jupiter.api.Test;

/**
 * The JSON parser under schema evolution: what is rescued, what is reported as a new field, what
 * fails.
 */
class EvolvingParseTest {
  private static final JsonRecordParser PLAIN = parser();

  private static JsonRecordParser parser() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "string");
    columns.put("amount", "long");
    columns.put("customer.name", "string");
    return JsonRecordParser.forColumns(columns, JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
  }

  private static ParseResult.Success ok(JsonRecordParser p, String json) {
    ParseResult r = p.parse(json.getBytes(StandardCharsets.UTF_8));
    assertThat(r).as("result of %s", json).isInstanceOf(ParseResult.Success.class);
    return (ParseResult.Success) r;
  }

  @Test
  void withoutEvolutionTheParserIsTheSameAndReportsNothing() {
    assertThat(PLAIN.withEvolution(false, false)).isSameAs(PLAIN);
    ParseResult.Success s =
        ok(PLAIN, "{\"id\":\"a\",\"extra\":1,\"customer\":{\"name\":\"n\",\"tier\":2}}");
    assertThat(s.extras()).isNull();
    assertThat(s.row()).containsExactly("a", null, new Object[] {"n"});
  }

  @Test
  void rescueKeepsUndeclaredFieldsAtTopLevelAndInsideStructsInTheRecordsShape() {
    JsonRecordParser p = PLAIN.withEvolution(true, false);
    ParseResult.Success s =
        ok(
            p,
            "{\"id\":\"a\",\"Amount\":3,\"tags\":[1,{\"x\":null}],"
                + "\"customer\":{\"name\":\"n\",\"tier\":\"gold\",\"address\":{\"city\":\"Oslo\"}},\"gone\":null}");
    assertThat(s.row()).containsExactly("a", null, new Object[] {"n"});
    // a differently cased name is another field (rescued); an explicit null loses nothing and is
    // not kept
    assertThat(s.extras().rescued().toString())
        .isEqualTo(
            "{\"Amount\":3,\"tags\":[1,{\"x\":null}],\"customer\":{\"tier\":\"gold\",\"address\":{\"city\":\"Oslo\"}}}");
    assertThat(s.extras().newFields()).isEmpty();
    assertThat(ok(p, "{\"id\":\"a\",\"amount\":1}").extras()).isNull();
  }

  @Test
  void rescueKeepsAValueThatDoesNotFitItsColumnAndLeavesTheColumnNull() {
    JsonRecordParser p = PLAIN.withEvolution(true, false);
    ParseResult.Success s = ok(p, "{\"id\":7,\"amount\":\"12$\",\"customer\":\"bob\"}");
    assertThat(s.row()).containsExactly(null, null, null);
    assertThat(s.extras().rescued().toString())
        .isEqualTo("{\"id\":7,\"amount\":\"12$\",\"customer\":\"bob\"}");
    ParseResult.Success nested =
        ok(p, "{\"amount\":1.5,\"customer\":{\"name\":{\"first\":\"b\"}}}");
    assertThat(nested.row()).containsExactly(null, null, new Object[] {null});
    assertThat(nested.extras().rescued().toString())
        .isEqualTo("{\"amount\":1.5,\"customer\":{\"name\":{\"first\":\"b\"}}}");
  }

  @Test
  void withoutRescueAMisfitStillFailsTheRecord() {
    ParseResult r =
        PLAIN
            .withEvolution(false, true)
            .parse("{\"amount\":\"x\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(r).isInstanceOf(ParseResult.Failure.class);
    assertThat(((ParseResult.Failure) r).error()).contains("amount");
  }

  @Test
  void newTopLevelFieldsAreReportedWithConservativelyInferredTypes() {
    JsonRecordParser p = PLAIN.withEvolution(false, true);
    ParseResult.Success s =
        ok(
            p,
            "{\"id\":\"a\",\"n\":5,\"ratio\":0.5,\"flag\":true,\"at\":\"2026-01-01T00:00:00Z\","
                + "\"obj\":{\"k\":[1,2]},\"big\":123456789012345678901234567890,\"nothing\":null,"
                + "\"customer\":{\"name\":\"c\",\"tier\":1}}");
    assertThat(s.extras().newFields())
        .containsExactly(
            new DecodedExtras.NewField("n", PrimitiveType.LONG, 5L, false),
            new DecodedExtras.NewField("ratio", PrimitiveType.DOUBLE, 0.5, false),
            new DecodedExtras.NewField("flag", PrimitiveType.BOOLEAN, true, false),
            // a timestamp-looking string stays a string: no guessing of formats
            new DecodedExtras.NewField("at", PrimitiveType.STRING, "2026-01-01T00:00:00Z", false),
            new DecodedExtras.NewField("obj", PrimitiveType.STRING, "{\"k\":[1,2]}", true));
    // a number no long holds and nested fields are not columns; without rescue they are skipped
    assertThat(s.extras().rescued()).isNull();
    ParseResult.Success both =
        ok(
            PLAIN.withEvolution(true, true),
            "{\"big\":123456789012345678901234567890," + "\"customer\":{\"tier\":1},\"n\":1}");
    assertThat(both.extras().rescued().toString())
        .isEqualTo("{\"big\":123456789012345678901234567890,\"customer\":{\"tier\":1}}");
    assertThat(both.extras().newFields())
        .extracting(DecodedExtras.NewField::name)
        .containsExactly("n");
  }
}
