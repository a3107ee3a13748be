package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineParserTest.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code format} section's three kinds: json, avro (with a registry) and protobuf. */
class FormatSpecTest {
  private static final String JSON_FORMAT =
      """
      format:
        json:
          schema:
            id: string
            at: timestamp
      """;

  private static String withFormat(String format) {
    return MINIMAL.replace(JSON_FORMAT, format);
  }

  @Test
  void readsAnAvroFormatWithRegistryKeyAndAuth() {
    String yaml =
        withFormat(
            """
        format:
          avro:
            registry:
              url: http://127.0.0.1:8081/apis/ccompat/v7/
              basic-auth: "${SR_USER}:${SR_PASSWORD}"
              tls: { ca-file: /etc/ssl/registry.pem }
              timeout: 3s
            schema: { id: string, at: timestamp, customer.name: string }
            key: { customer_id: string }
        """);

    PipelineSpec spec =
        PipelineParser.parse(
            yaml, "a.yaml", Map.of("SR_USER", "reader", "SR_PASSWORD", "hunter22"));

    AvroFormatSpec avro = (AvroFormatSpec) spec.format().orElseThrow();
    assertThat(avro.keyword()).isEqualTo("avro");
    assertThat(avro.registry())
        .isEqualTo(
            new RegistrySpec(
                "http://127.0.0.1:8081/apis/ccompat/v7",
                Optional.of("reader:hunter22"),
                Optional.empty(),
                Optional.of("/etc/ssl/registry.pem"),
                Duration.ofSeconds(3)));
    assertThat(avro.valueColumns())
        .extracting(ColumnSpec::name)
        .containsExactly("id", "at", "customer.name");
    assertThat(avro.keyColumns()).extracting(ColumnSpec::name).containsExactly("customer_id");
    assertThat(avro.columns())
        .extracting(ColumnSpec::name)
        .containsExactly("id", "at", "customer.name", "customer_id");
    assertThat(spec.outputColumns())
        .startsWith("id", "at", "customer.name", "customer_id", "_kafka_topic");
    assertThat(spec.secrets().mask("auth reader:hunter22 and hunter22"))
        .isEqualTo("auth ****** and ******");
  }

  @Test
  void aDecimalInAFlowMappingIsOneColumnAsPipelinesMdWritesIt() {
    // YAML ends a plain scalar at a comma inside { }: the reader must rejoin decimal(12 and 2)
    String yaml =
        withFormat(
            """
        format:
          avro:
            registry: { url: http://registry:8081 }
            schema: { order_id: string, event_time: timestamp, amount: decimal(12,2) }
            key: { customer_id: string }
        """);

    AvroFormatSpec avro =
        (AvroFormatSpec) PipelineParser.parse(yaml, "a.yaml", Map.of()).format().orElseThrow();

    assertThat(avro.valueColumns())
        .extracting(ColumnSpec::name)
        .containsExactly("order_id", "event_time", "amount");
    assertThat(avro.valueColumns().get(2).type()).isEqualTo(ColumnType.parse("decimal(12,2)"));
    var json =
        PipelineParser.parse(
            withFormat(
                """
        format:
          json:
            schema: { id: string, price: decimal( 10 , 3 ), at: timestamp }
        """),
            "j.yaml",
            Map.of());
    assertThat(json.format().orElseThrow().columns())
        .extracting(ColumnSpec::name)
        .containsExactly("id", "price", "at");
    assertThat(json.format().orElseThrow().columns().get(1).type())
        .isEqualTo(ColumnType.parse("decimal(10,3)"));
  }

  @Test
  void aHalfDecimalWithoutItsScaleIsStillAnError() {
    assertThat(
            errors(
                withFormat(
                    """
        format:
          json:
            schema: { id: string, amount: decimal(12 }
        """)))
        .anyMatch(e -> e.contains("format.json.schema.amount: unknown column type 'decimal(12'"));
  }

  @Test
  void readsAProtobufFormatWithABearerToken() {
    String yaml =
        withFormat(
            """
        format:
          protobuf:
            message: com.example.Order
            registry: { url: "https://sr.example:8081", bearer-token: "${SR_TOKEN}" }
            schema: { id: string, at: timestamp }
        """);

    PipelineSpec spec = PipelineParser.parse(yaml, "p.yaml", Map.of("SR_TOKEN", "tok-123456"));

    ProtobufFormatSpec protobuf = (ProtobufFormatSpec) spec.format().orElseThrow();
    assertThat(protobuf.message()).isEqualTo("com.example.Order");
    assertThat(protobuf.registry().bearerToken()).contains("tok-123456");
    assertThat(protobuf.registry().timeout()).isEqualTo(RegistrySpec.DEFAULT_TIMEOUT);
    assertThat(protobuf.keyColumns()).isEmpty();
  }

  @Test
  void refusesTwoFormatsOrNone() {
    String two =
        withFormat(
            """
        format:
          json: { schema: { id: string } }
          avro: { registry: { url: "http://127.0.0.1:8081" }, schema: { id: string } }
        """);
    assertThat(errors(two))
        .containsExactly(
            "orders.yaml:7:3: format: declare exactly one format: { json: { schema:"
                + " ... } }, { avro: { registry: ..., schema: ... } } or { protobuf: { message: ..., registry: ..., schema:"
                + " ... } }; found json, avro");

    assertThat(errors(withFormat("format: {}\n")))
        .singleElement()
        .asString()
        .contains("format: declare exactly one format")
        .endsWith("found none");
  }

  @Test
  void refusesABrokenRegistrySectionWithoutShowingTheSecret() {
    String yaml =
        withFormat(
            """
        format:
          avro:
            registry:
              url: "http://user:pw@127.0.0.1:8081"
              basic-auth: "${SR_AUTH}"
              bearer-token: "token-1234"
            schema: { id: string }
            key: { id: string }
        """);

    List<String> errors = errors(yaml, Map.of("SR_AUTH", "nocolonsecret"));

    assertThat(errors)
        .containsExactly(
            "orders.yaml:9:12: format.avro.registry.url: registry url is not an http(s)"
                + " URL without credentials; write it like http://localhost:8081 and put credentials in basic-auth or"
                + " bearer-token",
            "orders.yaml:10:19: format.avro.registry.basic-auth: basic-auth must be written user:password (for example"
                + " \"${SR_USER}:${SR_PASSWORD}\")",
            "orders.yaml:11:21: format.avro.registry.bearer-token: declare either basic-auth or bearer-token, not both",
            "orders.yaml:13:12: format.avro.key.id: key column 'id' has the same top-level name as a column of"
                + " format.avro.schema; rename one of them: key and value columns share the row");
    assertThat(String.join("\n", errors))
        .doesNotContain("nocolonsecret")
        .doesNotContain("token-1234")
        .doesNotContain("pw@");
  }

  @Test
  void requiresTheRegistryAndSuggestsKeys() {
    String yaml =
        withFormat(
            """
        format:
          avro:
            schema: { id: string }
            regstry: { url: "http://127.0.0.1:8081" }
        """);

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:7:3: format.avro.registry: missing required key 'registry'; add it, for example"
                + " registry: { url: http://localhost:8081 }",
            "orders.yaml:9:5: format.avro.regstry: unknown key 'regstry'; did you mean 'registry'?");
  }
}
