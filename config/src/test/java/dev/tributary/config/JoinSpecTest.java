package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code join} list: parsed with its defaults, and refused with the line of the mistake. */
class JoinSpecTest {

  /** {@link PipelineValidationTest#BASE} without partitioning; the join starts at line 19. */
  static final String BASE = PipelineValidationTest.BASE.replace(", partition-by: [day]", "");

  static String withJoin(String join) {
    return BASE + "join:\n" + join;
  }

  @Test
  void readsAJoinWithItsDefaults() {
    JoinSpec join =
        parse(withJoin("  - delta: { path: /dims/customers }\n    on: [order_id]\n"))
            .joins()
            .get(0);

    assertThat(join)
        .isEqualTo(
            new JoinSpec(
                "/dims/customers",
                Optional.empty(),
                List.of("order_id"),
                JoinType.INNER,
                JoinSpec.DEFAULT_MAX_SIZE,
                Optional.empty()));
    assertThat(parse(BASE).joins()).isEmpty();
  }

  @Test
  void readsEveryKeyAndAddsPickedColumnsToTheOutput() {
    PipelineSpec spec =
        parse(
            withJoin(
                """
          - delta:
              path: s3://lake/dims/customers
              storage: { s3: { endpoint: http://127.0.0.1:9000, access-key: a, secret-key: hidden } }
            on: [order_id, event_time]
            type: LEFT
            max-size: 1GB
            columns: [segment, region]
        """));

    JoinSpec join = spec.joins().get(0);
    assertThat(join.type()).isEqualTo(JoinType.LEFT);
    assertThat(join.maxSize()).isEqualTo(Size.parse("1GB"));
    assertThat(join.on()).containsExactly("order_id", "event_time");
    assertThat(join.storage().orElseThrow().endpoint()).hasValue("http://127.0.0.1:9000");
    assertThat(spec.outputColumns()).endsWith("_kafka_timestamp", "segment", "region");
    assertThat(join.canonical())
        .isEqualTo(
            "left join s3://lake/dims/customers on [order_id, event_time]"
                + " columns [segment, region]");
  }

  @Test
  void refusesAMissingKeyListAndABadType() {
    assertThat(errors(withJoin("  - delta: { path: /dims/c }\n    type: outer\n")))
        .containsExactly(
            "orders.yaml:20:5: join[0].on: missing required key 'on'; add it, for example on: [customer_id]",
            "orders.yaml:21:11: join[0].type: unknown join type 'outer'; use one of inner, left");
  }

  @Test
  void refusesAnUnknownKeyColumnListingTheStreamColumns() {
    assertThat(errors(withJoin("  - delta: { path: /dims/c }\n    on: [order]\n")))
        .containsExactly(
            "orders.yaml:21:10: join[0].on[0]: join key 'order' is not a column of the pipeline; available columns:"
                + " order_id, customer.id, event_time, amount_cents, day, amount, _kafka_topic, _kafka_partition,"
                + " _kafka_offset, _kafka_timestamp");
  }

  @Test
  void refusesAPickedColumnTheStreamAlreadyHasNamingIt() {
    assertThat(
            errors(
                withJoin(
                    "  - delta: { path: /dims/c }\n    on: [order_id]\n"
                        + "    columns: [segment, amount, order_id]\n")))
        .containsExactly(
            "orders.yaml:22:24: join[0].columns[1]: dimension column 'amount' clashes with the column of the same"
                + " name the stream already has; remove it from columns, or rename the stream's column with a derive step",
            "orders.yaml:22:32: join[0].columns[2]: 'order_id' is a join key: the output keeps the stream's value of"
                + " it; remove it from columns");
  }

  @Test
  void refusesAColumnThatAnEarlierJoinAddsAndLetsALaterJoinUseItAsKey() {
    String two =
        "  - delta: { path: /dims/a }\n    on: [order_id]\n    columns: [segment]\n"
            + "  - delta: { path: /dims/b }\n    on: [segment]\n    columns: [segment_name]\n";
    assertThat(parse(withJoin(two)).joins()).hasSize(2);
    assertThat(
            errors(
                withJoin(
                    two.replace("[segment_name]", "[segment_name, segment]")
                        .replace("on: [segment]", "on: [order_id]"))))
        .singleElement()
        .asString()
        .startsWith(
            "orders.yaml:25:29: join[1].columns[1]: dimension column 'segment' clashes with the column of"
                + " the same name that join[0] adds");
  }

  @Test
  void refusesAZeroMaxSizeAndUnknownKeys() {
    assertThat(
            errors(
                withJoin(
                    "  - delta: { path: /dims/c, paht: x }\n    on: [order_id]\n    max-size: 0MB\n")))
        .containsExactly(
            "orders.yaml:20:29: join[0].delta.paht: unknown key 'paht'; valid keys here are path, storage",
            "orders.yaml:22:15: join[0].max-size: the size must be greater than zero");
  }

  @Test
  void checksPartitionColumnsAgainstPickedColumnsOnly() {
    String join = "  - delta: { path: /dims/c }\n    on: [order_id]\n";
    assertThat(
            parse(
                    withJoin(join)
                        .replace("path: /t/orders", "path: /t/orders, partition-by: [region]"))
                .sink()
                .partitionBy())
        .containsExactly("region"); // checked when the dimension is read
    assertThat(
            errors(
                withJoin(join + "    columns: [segment]\n")
                    .replace("path: /t/orders", "path: /t/orders, partition-by: [region]")))
        .singleElement()
        .asString()
        .contains("partition column 'region' is not a column of the pipeline");
  }

  @Test
  void checksAJoinsStorageShowingItsEndpoint() {
    assertThat(
            errors(
                withJoin(
                    """
          - delta: { path: /dims/c, storage: { s3: { endpoint: "ftp://dims-host", access-key: a } } }
            on: [order_id]
        """)))
        .containsExactly(
            "orders.yaml:20:56: join[0].delta.storage.s3.endpoint: endpoint 'ftp://dims-host' is not an"
                + " http(s) URL; write it like http://localhost:9000");
  }

  /**
   * A stateful part after the join: deduplicated, then counted per hour and per a picked dimension
   * column.
   */
  private static final String STATEFUL =
      """
      watermark: { column: event_time, delay: 10 minutes }
      deduplicate: { keys: [order_id, segment] }
      aggregate:
        window: { column: event_time, size: 1 hour }
        group-by: [region]
        measures: { orders: count(), segments: count_distinct(segment) }
      output-mode: append
      """;

  @Test
  void acceptsStatefulColumnsThatAJoinPicks() {
    PipelineSpec spec =
        parse(
            withJoin(
                    "  - delta: { path: /dims/c }\n    on: [order_id]\n"
                        + "    columns: [segment, region]\n")
                + STATEFUL);

    assertThat(spec.aggregate().orElseThrow().groupBy()).containsExactly("region");
    assertThat(spec.deduplicate().orElseThrow().keys()).containsExactly("order_id", "segment");
  }

  @Test
  void refusesAStatefulColumnNeitherTheStreamNorAJoinHas() {
    assertThat(
            errors(
                withJoin(
                        "  - delta: { path: /dims/c }\n    on: [order_id]\n    columns: [segment]\n")
                    + STATEFUL))
        .singleElement()
        .asString()
        .contains(
            "aggregate.group-by[0]: group-by column 'region' is not a column of the pipeline");
  }

  @Test
  void leavesStatefulColumnsToTheStartWhenAJoinAddsEveryDimensionColumn() {
    // the dimension's columns are known once its table is read: the service checks them then
    assertThat(
            parse(withJoin("  - delta: { path: /dims/c }\n    on: [order_id]\n") + STATEFUL)
                .aggregate()
                .orElseThrow()
                .groupBy())
        .containsExactly("region");
  }
}
