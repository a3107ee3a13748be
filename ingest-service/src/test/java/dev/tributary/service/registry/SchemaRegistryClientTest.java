package dev.tributary.service.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.RegistrySpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.storage.retry.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against a registry speaking the Confluent REST API in a child process. */
class SchemaRegistryClientTest {
  private static final RetryPolicy FAST =
      SchemaRegistryClient.DEFAULT_RETRY
          .withMaxAttempts(3)
          .withBackoff(Duration.ofMillis(10), Duration.ofMillis(20));
  private static final String ADDRESS =
      """
      {"type": "record", "name": "Address", "namespace": "shop", "fields": [{"name": "city", "type": "string"}]}""";
  private static final String CUSTOMER =
      """
      {"type": "record", "name": "Customer", "namespace": "shop", "fields": [{"name": "home", "type": "Address"}]}""";

  @TempDir Path dir;
  private TestSchemaRegistry registry;

  @AfterEach
  void stop() throws Exception {
    if (registry != null) {
      registry.close();
    }
  }

  private SchemaRegistryClient client(RegistrySpec spec, Secrets secrets) {
    return new SchemaRegistryClient("orders", spec, secrets, FAST);
  }

  @Test
  void fetchesASchemaByIdWithItsReferencesResolvedDepthFirst() throws Exception {
    registry = TestSchemaRegistry.start(dir);
    registry.registerAvro("address", ADDRESS);
    registry.register(
        "customer", "AVRO", CUSTOMER, Map.of("shop.Address", Map.entry("address", 1)));
    String order =
        "{\"type\": \"record\", \"name\": \"Order\", \"namespace\": \"shop\", \"fields\": ["
            + "{\"name\": \"buyer\", \"type\": \"Customer\"}]}";
    int id =
        registry.register(
            "orders-value", "AVRO", order, Map.of("shop.Customer", Map.entry("customer", 1)));

    RegisteredSchema schema = client(RegistrySpec.at(registry.url()), Secrets.NONE).schemaById(id);

    assertThat(schema.type()).isEqualTo("AVRO");
    assertThat(schema.text()).isEqualTo(order);
    assertThat(schema.references())
        .extracting(RegisteredSchema.Reference::name)
        .containsExactly("shop.Address", "shop.Customer");
  }

  @Test
  void anUnknownIdIsAnUnknownSchemaNamingTheId() throws Exception {
    registry = TestSchemaRegistry.start(dir);

    assertThatThrownBy(() -> client(RegistrySpec.at(registry.url()), Secrets.NONE).schemaById(4242))
        .isInstanceOf(UnknownSchemaException.class)
        .hasMessage(
            "schema id 4242 is not in the schema registry at "
                + registry.url()
                + " (404); the producer wrote"
                + " it with another registry, or the schema was deleted");
  }

  @Test
  void fiveHundredsAndADownRegistryAreRetriedThenUnavailable() throws Exception {
    registry = TestSchemaRegistry.start(dir);
    int id = registry.registerAvro("e", "\"string\"");
    SchemaRegistryClient client = client(RegistrySpec.at(registry.url()), Secrets.NONE);
    registry.failWith(503);

    assertThatThrownBy(() -> client.schemaById(id))
        .isInstanceOf(SchemaRegistryUnavailableException.class)
        .hasMessage(
            "Pipeline orders: the schema registry at "
                + registry.url()
                + " did not answer schema id "
                + id
                + " after 3 attempts (last: HTTP 503); it is retried with the same offsets, nothing is quarantined. Check"
                + " that the registry is up and format.*.registry.url is right");

    registry.stop();
    assertThatThrownBy(() -> client.schemaById(id))
        .isInstanceOf(SchemaRegistryUnavailableException.class)
        .hasMessageContaining("after 3 attempts (last: ConnectException");

    registry.start(); // same port, same schemas; the failure injection is gone with the old process
    assertThat(client.schemaById(id).text()).isEqualTo("\"string\"");
  }

  @Test
  void registersASchemaIdempotentlyAndRefusesAnIncompatibleOneNamingTheSubject() throws Exception {
    registry = TestSchemaRegistry.startWith(dir, List.of("basic=writer:s3cret-pw"));
    RegistrySpec spec =
        new RegistrySpec(
            registry.url(),
            Optional.of("writer:s3cret-pw"),
            Optional.empty(),
            Optional.empty(),
            Duration.ofSeconds(5));
    SchemaRegistryClient client =
        new SchemaRegistryClient(
            "orders", spec, Secrets.of(List.of("s3cret-pw")), FAST, "sink.kafka.registry");
    String v1 =
        "{\"type\":\"record\",\"name\":\"Row\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}";
    String v2 =
        v1.replace("}]}", "},{\"name\":\"b\",\"type\":[\"null\",\"string\"],\"default\":null}]}");
    String breaking = v1.replace("\"long\"", "\"string\"");
    registry.setCompatibility("out-value", "BACKWARD");

    int id = client.register("out-value", v1);
    assertThat(client.register("out-value", v1)).as("the same schema: the same id").isEqualTo(id);
    assertThat(registry.schemaText(id)).isEqualTo(v1);
    int id2 = client.register("out-value", v2);
    assertThat(id2).as("a nullable column added: a new version").isNotEqualTo(id);
    assertThat(registry.versionIds("out-value")).containsExactly(id, id2);

    assertThatThrownBy(() -> client.register("out-value", breaking))
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageStartingWith(
            "Pipeline orders: the schema registry at "
                + registry.url()
                + " refused the value schema for subject out-value (HTTP 409: Schema being"
                + " registered is incompatible with an earlier schema for this subject"
                + " (compatibility BACKWARD)): the schema derived from the output columns is"
                + " incompatible")
        .hasMessageContaining("PUT /config/out-value");
    assertThat(registry.versionIds("out-value")).containsExactly(id, id2);

    registry.failWith(503);
    assertThatThrownBy(() -> client.register("out-value", v2))
        .isInstanceOf(SchemaRegistryUnavailableException.class)
        .hasMessage(
            "Pipeline orders: the schema registry at "
                + registry.url()
                + " did not answer the schema of subject out-value after 3 attempts (last: HTTP"
                + " 503); it is retried with the same offsets, nothing is quarantined. Check that"
                + " the registry is up and sink.kafka.registry.url is right");
    registry.failWith(0);

    SchemaRegistryClient anonymous =
        new SchemaRegistryClient(
            "orders", RegistrySpec.at(registry.url()), Secrets.NONE, FAST, "sink.kafka.registry");
    assertThatThrownBy(() -> anonymous.register("out-value", v1))
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageContaining("refused the schema of subject out-value with HTTP 401")
        .hasMessageEndingWith("; check sink.kafka.registry.basic-auth / bearer-token");
  }

  @Test
  void answersFromTheCacheOnceFetched() throws Exception {
    registry = TestSchemaRegistry.start(dir);
    int id = registry.registerAvro("e", "\"long\"");
    SchemaRegistryClient client = client(RegistrySpec.at(registry.url()), Secrets.NONE);
    client.schemaById(id);

    registry.stop();

    assertThat(client.schemaById(id).text()).isEqualTo("\"long\"");
  }

  @Test
  void sendsBasicAuthAndMasksTheSecretWhenRefused() throws Exception {
    registry = TestSchemaRegistry.startWith(dir, List.of("basic=reader:s3cret-pw"));
    int id = registry.registerAvro("e", "\"int\"");
    RegistrySpec good =
        new RegistrySpec(
            registry.url(),
            Optional.of("reader:s3cret-pw"),
            Optional.empty(),
            Optional.empty(),
            Duration.ofSeconds(5));
    RegistrySpec wrong =
        new RegistrySpec(
            registry.url(),
            Optional.of("reader:wrong-pw"),
            Optional.empty(),
            Optional.empty(),
            Duration.ofSeconds(5));

    assertThat(client(good, Secrets.NONE).schemaById(id).text()).isEqualTo("\"int\"");
    assertThatThrownBy(() -> client(wrong, Secrets.of(List.of("reader:wrong-pw"))).schemaById(id))
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageStartingWith(
            "Pipeline orders: the schema registry at "
                + registry.url()
                + " refused schema id "
                + id
                + " with HTTP 401")
        .hasMessageEndingWith("; check format.*.registry.basic-auth / bearer-token");
  }

  @Test
  void sendsABearerToken() throws Exception {
    registry = TestSchemaRegistry.startWith(dir, List.of("bearer=tok-98765"));
    int id = registry.registerAvro("e", "\"int\"");
    RegistrySpec spec =
        new RegistrySpec(
            registry.url(),
            Optional.empty(),
            Optional.of("tok-98765"),
            Optional.empty(),
            Duration.ofSeconds(5));

    assertThat(client(spec, Secrets.NONE).schemaById(id).text()).isEqualTo("\"int\"");
    assertThatThrownBy(() -> client(RegistrySpec.at(registry.url()), Secrets.NONE).schemaById(id))
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageContaining("with HTTP 401");
  }

  @Test
  void trustsAnHttpsRegistryThroughTheDeclaredCaFileOnly() throws Exception {
    Path pem = dir.resolve("registry-ca.pem");
    String tls = TestSchemaRegistry.selfSignedTls(dir.resolve("tls"), pem);
    registry = TestSchemaRegistry.startWith(dir.resolve("registry"), List.of(tls));
    int id = registry.registerAvro("e", "\"boolean\"");
    RegistrySpec trusting =
        new RegistrySpec(
            registry.url(),
            Optional.empty(),
            Optional.empty(),
            Optional.of(pem.toString()),
            Duration.ofSeconds(5));

    assertThat(registry.url()).startsWith("https://");
    assertThat(client(trusting, Secrets.NONE).schemaById(id).text()).isEqualTo("\"boolean\"");
    assertThatThrownBy(() -> client(RegistrySpec.at(registry.url()), Secrets.NONE).schemaById(id))
        .as("the JVM's default trust store does not know the self-signed certificate")
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageStartingWith(
            "Pipeline orders: the TLS handshake with the schema registry at " + registry.url())
        .hasMessageEndingWith("declare it in format.*.registry.tls.ca-file");
  }

  @Test
  void refusesACaFileThatHoldsNoCertificate() throws Exception {
    Path pem = dir.resolve("ca.pem");
    Files.writeString(pem, "not a certificate");
    RegistrySpec spec =
        new RegistrySpec(
            "https://127.0.0.1:1",
            Optional.empty(),
            Optional.empty(),
            Optional.of(pem.toString()),
            Duration.ofSeconds(5));

    assertThatThrownBy(() -> client(spec, Secrets.NONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Pipeline orders: cannot read the registry's CA certificates from " + pem);
  }
}
