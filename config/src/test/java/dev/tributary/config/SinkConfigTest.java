package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The sinks beyond Delta ({@code sink.jdbc}, {@code sink.kafka}), several sinks ({@code sinks}) and
 * the continuous trigger: what they parse to, and the combinations {@code validate} refuses with
 * the reason.
 */
class SinkConfigTest {
  static final String HEAD =
      """
      pipeline: orders
      source:
        kafka:
          bootstrap-servers: broker:9092
          topics: [orders]
      format:
        json:
          schema: { order_id: string, customer_id: string, amount: long, at: timestamp }
      checkpoint: /c/orders
      """;

  static final String JDBC =
      """
      sink:
        jdbc:
          url: jdbc:postgresql://db:5432/shop
          table: shop.orders
          user: app
          password: "s3cr3t-pw"
          create-table: true
      """;

  static final String KAFKA =
      """
      sink:
        kafka:
          topic: clean-events
          key: "customer_id"
          provenance-headers: true
      """;

  static PipelineSpec parse(String yaml) {
    return PipelineParser.parse(yaml, "orders.yaml", Map.of("PG_PASSWORD", "s3cr3t-pw"));
  }

  @Test
  void readsAJdbcSinkWithItsDefaultsAndMasksThePassword() {
    PipelineSpec spec = parse(HEAD + JDBC);
    JdbcSinkSpec jdbc = (JdbcSinkSpec) spec.sinks().get(0);
    assertThat(jdbc.url()).isEqualTo("jdbc:postgresql://db:5432/shop");
    assertThat(jdbc.table()).isEqualTo("shop.orders");
    assertThat(jdbc.user()).contains("app");
    assertThat(jdbc.password()).contains("s3cr3t-pw");
    assertThat(jdbc.write()).isEqualTo(JdbcSinkSpec.Write.APPEND);
    assertThat(jdbc.key()).isEmpty();
    assertThat(jdbc.createTable()).isTrue();
    assertThat(jdbc.toString()).doesNotContain("s3cr3t-pw");
    assertThat(spec.secrets().mask("login with s3cr3t-pw")).isEqualTo("login with ******");
    assertThat(spec.deltaSink()).isEmpty();
    assertThat(spec.partitionBy()).isEmpty();
    assertThat(spec.sinkLocations())
        .containsExactly("jdbc:postgresql://db:5432/shop table shop.orders");
    assertThat(spec.quarantine().path())
        .as("without a Delta sink the quarantine sits beside the checkpoint")
        .isEqualTo("/c/orders-quarantine");
  }

  @Test
  void aPasswordInTheUrlOrTheDriverPropertiesIsASecretToo() {
    PipelineSpec spec =
        parse(
            HEAD
                + JDBC.replace(
                        "jdbc:postgresql://db:5432/shop",
                        "jdbc:postgresql://db:5432/shop?user=app&password=url-secret-1")
                    .replace(
                        "create-table: true",
                        "create-table: true\n    properties: { sslpassword: prop-secret-2 }"));
    assertThat(spec.secrets().mask("url-secret-1 prop-secret-2")).isEqualTo("****** ******");
  }

  @Test
  void readsAKafkaSinkWhoseBrokersDefaultToTheSources() {
    KafkaSinkSpec kafka = (KafkaSinkSpec) parse(HEAD + KAFKA).sinks().get(0);
    assertThat(kafka.bootstrapServers()).isEqualTo("broker:9092");
    assertThat(kafka.topic()).isEqualTo("clean-events");
    assertThat(kafka.key()).contains("customer_id");
    assertThat(kafka.value()).isEqualTo(KafkaSinkSpec.Value.JSON);
    assertThat(kafka.delivery()).isEqualTo(KafkaSinkSpec.Delivery.EXACTLY_ONCE);
    assertThat(kafka.provenanceHeaders()).isTrue();
    KafkaSinkSpec atLeastOnce =
        (KafkaSinkSpec)
            parse(
                    HEAD
                        + KAFKA.replace(
                            "topic: clean-events",
                            "topic: clean-events\n    delivery: at-least-once\n    bootstrap-servers:"
                                + " other:9093"))
                .sinks()
                .get(0);
    assertThat(atLeastOnce.delivery()).isEqualTo(KafkaSinkSpec.Delivery.AT_LEAST_ONCE);
    assertThat(atLeastOnce.bootstrapServers()).isEqualTo("other:9093");
  }

  @Test
  void readsAnAvroKafkaSinkWithItsRegistryAndMasksTheRegistryPassword() {
    PipelineSpec spec =
        PipelineParser.parse(
            HEAD
                + KAFKA
                + "    value: avro\n"
                + "    registry: { url: \"http://registry:8081/\", basic-auth: \"${SR}\","
                + " timeout: 3s }\n",
            "orders.yaml",
            Map.of("SR", "sr-user:sr-s3cret"));
    KafkaSinkSpec kafka = (KafkaSinkSpec) spec.sinks().get(0);
    assertThat(kafka.value()).isEqualTo(KafkaSinkSpec.Value.AVRO);
    assertThat(kafka.valueSubject()).isEqualTo("clean-events-value");
    RegistrySpec registry = kafka.registry().orElseThrow();
    assertThat(registry.url()).isEqualTo("http://registry:8081");
    assertThat(registry.basicAuth()).contains("sr-user:sr-s3cret");
    assertThat(registry.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(kafka.toString()).doesNotContain("s3cret").contains("registry=http://registry:8081");
    assertThat(spec.secrets().mask("auth sr-s3cret")).isEqualTo("auth ******");
    KafkaSinkSpec inList =
        (KafkaSinkSpec)
            parse(
                    HEAD
                        + "sinks:\n"
                        + "  - delta: { path: /t/a }\n"
                        + "  - kafka:\n"
                        + "      topic: out\n"
                        + "      value: avro\n"
                        + "      registry: { url: \"http://r:8081\", tls: { ca-file: /ca.pem } }\n")
                .sinks()
                .get(1);
    assertThat(inList.registry().orElseThrow().caFile()).contains("/ca.pem");
    assertThat(((KafkaSinkSpec) parse(HEAD + KAFKA).sinks().get(0)).registry()).isEmpty();
  }

  @Test
  void refusesAvroWithoutARegistryAndARegistryWithoutAvroNamingTheLineAndKey() {
    assertThat(errors(HEAD + KAFKA + "    value: avro\n"))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:15:")
        .contains(
            "sink.kafka.value: value: avro needs a schema registry to register the value schema"
                + " in; add registry: { url: http://registry:8081 }");
    assertThat(errors(HEAD + KAFKA + "    registry: { url: \"http://r:8081\" }\n"))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:15:")
        .contains(
            "sink.kafka.registry: registry is only used by value: avro (the schema of an Avro"
                + " value is registered there); a json value has no schema to register");
    assertThat(
            errors(
                HEAD
                    + "sinks:\n"
                    + "  - kafka:\n"
                    + "      topic: out\n"
                    + "      value: avro\n"
                    + "      registry: { url: \"ftp://r\", timeot: 3s }\n"))
        .hasSize(2)
        .anySatisfy(e -> assertThat(e).contains("sinks[0].kafka.registry.url: "))
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains("sinks[0].kafka.registry.timeot: ")
                    .contains("did you mean 'timeout'"));
  }

  @Test
  void readsSeveralSinksInOrderAndTheContinuousTrigger() {
    PipelineSpec spec =
        parse(
            HEAD
                + """
                sinks:
                  - delta: { path: /t/orders, partition-by: [customer_id] }
                  - kafka: { topic: clean-events }
                  - jdbc: { url: "jdbc:postgresql://db/shop", table: orders }
                """);
    assertThat(spec.sinks())
        .extracting(SinkSpec::keyword)
        .containsExactly("delta", "kafka", "jdbc");
    assertThat(spec.sink().path()).isEqualTo("/t/orders");
    assertThat(spec.partitionBy()).containsExactly("customer_id");
    assertThat(spec.quarantine().path()).isEqualTo("/t/orders-quarantine");
    assertThat(parse(HEAD + KAFKA + "trigger: { continuous: 1s }\n").trigger())
        .isEqualTo(new TriggerSpec.Continuous(Duration.ofSeconds(1)));
    assertThat(new TriggerSpec.Continuous(Duration.ofSeconds(1)).unbounded()).isTrue();
    assertThat(new TriggerSpec.AvailableNow().unbounded()).isFalse();
  }

  @Test
  void updateModeUpsertsByTheAggregationsKey() {
    String aggregate =
        """
        watermark: { column: at, delay: 1 minute }
        aggregate:
          window: { column: at, size: 1 hour }
          group-by: [customer_id]
          measures: { total: sum(amount) }
        output-mode: update
        """;
    JdbcSinkSpec jdbc =
        (JdbcSinkSpec)
            parse(HEAD + aggregate + JDBC.replace("create-table: true", "write: upsert"))
                .sinks()
                .get(0);
    assertThat(jdbc.write()).isEqualTo(JdbcSinkSpec.Write.UPSERT);
    assertThat(jdbc.key()).containsExactly("window_start", "window_end", "customer_id");
    assertThat(errors(HEAD + aggregate + JDBC))
        .containsExactly(
            "orders.yaml:17:3: sink.jdbc: output-mode update writes a group's changed aggregate"
                + " every batch, so the table must be upserted: write: upsert (its key defaults to"
                + " [window_start, window_end, customer_id])");
    assertThat(
            errors(
                HEAD
                    + aggregate
                    + JDBC.replace("create-table: true", "write: upsert\n    key: [customer_id]")))
        .singleElement()
        .asString()
        .contains(
            "sink.jdbc.key: in output-mode update the key is the aggregation's key [window_start,"
                + " window_end, customer_id], not [customer_id]");
  }

  @Test
  void refusesAnUpsertWithoutKeyAndAKeyThatIsNoColumn() {
    assertThat(errors(HEAD + JDBC.replace("create-table: true", "write: upsert")))
        .singleElement()
        .asString()
        .endsWith(
            "sink.jdbc: write: upsert needs the columns that identify a row: key: [order_id]");
    assertThat(
            errors(HEAD + JDBC.replace("create-table: true", "write: upsert\n    key: [ordr_id]")))
        .singleElement()
        .asString()
        .endsWith(
            "sink.jdbc.key[0]: key column 'ordr_id' is not a column of the pipeline; did you"
                + " mean 'order_id'?");
    assertThat(errors(HEAD + JDBC.replace("create-table: true", "key: [order_id]")))
        .singleElement()
        .asString()
        .endsWith("sink.jdbc.key: key is only used by write: upsert; remove it, or write: upsert");
  }

  @Test
  void refusesWhatCannotWork() {
    assertThat(
            errors(
                HEAD.replace("topics: [orders]", "topics: [orders]\n    assignment: group") + JDBC))
        .singleElement()
        .asString()
        .contains("sink.jdbc: a jdbc sink cannot be written in consumer-group mode");
    assertThat(
            errors(
                HEAD
                    + "aggregate: { group-by: [customer_id], measures: { n: count() } }\n"
                    + "output-mode: complete\n"
                    + KAFKA))
        .singleElement()
        .asString()
        .contains(
            "output-mode complete rewrites the whole result every batch, which a kafka sink"
                + " cannot do atomically");
    assertThat(errors(HEAD + JDBC + "schema-evolution: { mode: add-columns }\n"))
        .singleElement()
        .asString()
        .contains(
            "schema-evolution adds columns to a Delta table; the jdbc sink's columns are fixed");
    assertThat(
            errors(
                HEAD.replace("topics: [orders]", "topics: [orders]\n    starting-offsets: table")
                    + KAFKA))
        .singleElement()
        .asString()
        .contains(
            "starting-offsets: table continues after the offsets a Delta sink table recorded");
    assertThat(errors(HEAD + "sinks:\n  - delta: { path: /t/a }\n  - delta: { path: /t/b }\n"))
        .singleElement()
        .asString()
        .contains("sinks[1].delta: at most one Delta table among the sinks");
    assertThat(errors(HEAD + KAFKA + "sinks:\n  - kafka: { topic: x }\n"))
        .singleElement()
        .asString()
        .contains("declare either sink (one sink) or sinks");
    assertThat(errors(HEAD + "sink: { jdbc: { url: \"jdbc:mysql://db/shop\", table: t } }\n"))
        .singleElement()
        .asString()
        .contains("the JDBC sink supports PostgreSQL only for now");
    assertThat(errors(HEAD + JDBC + "maintenance: { compaction: { schedule: \"0 0 * * * *\" } }\n"))
        .singleElement()
        .asString()
        .contains("maintenance.compaction maintains a Delta sink table; this pipeline writes none");
  }

  @Test
  void theContinuousTriggerIsForStatelessKafkaToKafkaPipelines() {
    assertThat(
            errors(
                HEAD + KAFKA + "deduplicate: { keys: [order_id] }\ntrigger: { continuous: 1s }\n"))
        .singleElement()
        .asString()
        .contains(
            "trigger.continuous: the continuous trigger is for stateless pipelines (filters,"
                + " derives, projections): deduplicate needs state");
    assertThat(errors(HEAD + JDBC + "trigger: { continuous: 1s }\n"))
        .singleElement()
        .asString()
        .contains("a jdbc sink commits per batch");
    assertThat(parse(HEAD + KAFKA + "trigger: { continuous: 500ms }\n").trigger())
        .isEqualTo(new TriggerSpec.Continuous(Duration.ofMillis(500)));
  }

  @Test
  void sinkSpecsNeverPrintSecrets() {
    JdbcSinkSpec jdbc =
        new JdbcSinkSpec(
            "jdbc:postgresql://db/shop",
            "t",
            Optional.of("u"),
            Optional.of("hidden-pw"),
            JdbcSinkSpec.Write.APPEND,
            List.of(),
            false,
            Map.of("password", "hidden-too"));
    assertThat(jdbc.toString()).doesNotContain("hidden");
    KafkaSinkSpec kafka =
        new KafkaSinkSpec(
            "b:9092",
            "t",
            Optional.empty(),
            KafkaSinkSpec.Value.JSON,
            KafkaSinkSpec.Delivery.EXACTLY_ONCE,
            false,
            Map.of("sasl.jaas.config", "hidden-jaas"));
    assertThat(kafka.toString()).doesNotContain("hidden");
  }
}
