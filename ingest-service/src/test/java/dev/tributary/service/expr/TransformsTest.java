package dev.tributary.service.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransformsTest {
  private static final StructType ORDERS = ordersSchema();

  private static StructType ordersSchema() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("order_id", "string");
    columns.put("customer_id", "string");
    columns.put("event_time", "timestamp");
    columns.put("amount_cents", "long");
    return JsonRecordParser.schemaOf(columns);
  }

  private static LinkedHashMap<String, String> columns(String... pairs) {
    LinkedHashMap<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return m;
  }

  @Test
  void thePipelinesExampleEndToEnd() {
    CompiledTransforms t =
        Transforms.compile(
            ORDERS,
            List.of(
                new Step.Filter("amount_cents > 0"),
                new Step.Derive(columns("amount", "amount_cents / 100.0"))));
    assertThat(t.outputSchema().fields())
        .last()
        .isEqualTo(StructField.nullable("amount", PrimitiveType.DOUBLE));
    assertThat(t.outputSchema().size()).isEqualTo(5);

    JsonRecordParser parser = new JsonRecordParser(ORDERS, 1 << 20);
    Object[] row =
        ((ParseResult.Success)
                parser.parse(
                    ("{\"order_id\":\"o1\",\"customer_id\":\"c1\","
                            + "\"event_time\":\"2026-01-01T10:00:00Z\",\"amount_cents\":1250}")
                        .getBytes(StandardCharsets.UTF_8)))
            .row();
    assertThat(t.apply(row))
        .containsExactly("o1", "c1", Instant.parse("2026-01-01T10:00:00Z"), 1250L, 12.5);
    assertThat(row).as("the input row is not modified").hasSize(4);

    assertThat(t.apply(new Object[] {"o2", "c1", null, 0L})).as("filtered out").isNull();
    assertThat(t.apply(new Object[] {"o3", "c1", null, null})).as("NULL > 0 is not TRUE").isNull();
  }

  @Test
  void deriveReplacesInPlaceAndLaterStepsSeeDerivedColumns() {
    CompiledTransforms t =
        Transforms.compile(
            ORDERS,
            List.of(
                new Step.Derive(
                    columns(
                        "customer_id",
                        "upper(customer_id)",
                        "amount",
                        "amount_cents / 100.0",
                        "hour",
                        "hour(event_time)")),
                new Step.Filter("amount >= 10"),
                new Step.Derive(columns("big", "amount > 100", "amount", "round(amount)"))));
    assertThat(t.outputSchema().fieldNames())
        .containsExactly(
            "order_id", "customer_id", "event_time", "amount_cents", "amount", "hour", "big");
    assertThat(t.outputSchema().field("hour").orElseThrow().type())
        .isEqualTo(PrimitiveType.INTEGER);
    Object[] out =
        t.apply(new Object[] {"o1", "c7", Instant.parse("2026-01-01T10:20:00Z"), 15049L});
    assertThat(out)
        .containsExactly(
            "o1", "C7", Instant.parse("2026-01-01T10:20:00Z"), 15049L, 150.0, 10, true);
    assertThat(t.apply(new Object[] {"o1", "c7", null, 5L})).isNull();
  }

  @Test
  void expressionsOfOneDeriveReadTheStepInput() {
    CompiledTransforms t =
        Transforms.compile(
            ORDERS,
            List.of(
                new Step.Derive(
                    columns("amount_cents", "amount_cents * 2", "copy", "amount_cents"))));
    assertThat(t.apply(new Object[] {"o", "c", null, 3L})).containsExactly("o", "c", null, 6L, 3L);
  }

  @Test
  void noStepsIsTheIdentity() {
    CompiledTransforms t = Transforms.compile(ORDERS, List.of());
    Object[] row = {"o", "c", null, 1L};
    assertThat(t.outputSchema()).isEqualTo(ORDERS);
    assertThat(t.apply(row)).isSameAs(row);
  }

  @Test
  void errorsNameTheStep() {
    assertThatThrownBy(
            () ->
                Transforms.compile(
                    ORDERS,
                    List.of(
                        new Step.Filter("amount_cents > 0"),
                        new Step.Derive(columns("x", "1")),
                        new Step.Derive(columns("ok", "2", "amount", "amount_cent / 100.0")))))
        .isInstanceOf(ExpressionException.class)
        .hasMessage(
            "transform[2].derive.amount: unknown column 'amount_cent'; did you mean"
                + " 'amount_cents'? at position 1 of \"amount_cent / 100.0\"");
    assertThatThrownBy(
            () -> Transforms.compile(ORDERS, List.of(new Step.Filter("customer_id > 5"))))
        .hasMessage(
            "transform[0].filter: cannot compare string 'customer_id' with int 5 at"
                + " position 13 of \"customer_id > 5\"");
    assertThatThrownBy(
            () ->
                Transforms.compile(
                    ORDERS, List.of(new Step.Derive(columns("a", "1")), new Step.Filter("a"))))
        .hasMessageStartingWith(
            "transform[1].filter: a filter must be a boolean expression," + " found int 'a'");
    assertThatThrownBy(
            () -> Transforms.compile(ORDERS, List.of(new Step.Derive(columns("a.b", "1")))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "transform[0].derive.a.b: a derived column needs a plain name without dots"
                + " (nested fields cannot be derived)");
    assertThatThrownBy(() -> Transforms.compile(ORDERS, List.of(new Step.Derive(columns()))))
        .hasMessage(
            "transform[0].derive: derive declares no column; declare at least one"
                + " (name: expression)");
  }

  @Test
  void stepsAreValuesWithDefensiveCopies() {
    LinkedHashMap<String, String> m = columns("a", "1");
    Step.Derive d = new Step.Derive(m);
    m.put("b", "2");
    d.columns().put("c", "3");
    assertThat(d.columns()).containsOnlyKeys("a");
    assertThat(new Step.Filter("x")).isEqualTo(new Step.Filter("x"));
  }
}
