package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Secret values never appear in a validation message, whichever check refuses the file, and a valid
 * declaration carries its secrets so that the service masks them in what it shows at run time. The
 * values of references whose names do not look secret are information, and are shown.
 */
class SecretsTest {
  private static final String PASSWORD = "hunter2-jaas-password";
  private static final String S3_SECRET = "s3-endpoint-secret-host";
  private static final String ENV_SECRET = "substituted-secret-value";
  private static final Map<String, String> ENV =
      Map.of(
          "S3_SECRET_HOST",
          S3_SECRET,
          "TOKEN",
          ENV_SECRET,
          "STYLE_SECRET",
          ENV_SECRET,
          "SK",
          ENV_SECRET,
          "S3_HOST",
          "minio.internal",
          "MAX",
          "plenty",
          "TABLES",
          "/data/tables");

  private static String pipeline(String sourceExtra, String rest) {
    return """
        pipeline: orders
        source:
          kafka:
            bootstrap-servers: localhost:9092
            topics: [orders]
        %s
        format:
          json:
            schema:
              order_id: string
        sink:
          delta: { path: /t/orders }
        checkpoint: /c/orders
        %s
        """
        .formatted(sourceExtra, rest);
  }

  private static void assertNoSecret(List<String> errors) {
    assertThat(errors).isNotEmpty();
    for (String error : errors) {
      assertThat(error).doesNotContain(PASSWORD, S3_SECRET, ENV_SECRET, "hunter2");
    }
  }

  @Test
  void aMalformedReferenceInsideTheJaasConfigDoesNotPrintTheLine() {
    List<String> errors =
        errors(
            pipeline(
                """
            properties:
              sasl.jaas.config: "org.apache.kafka.common.security.plain.PlainLoginModule required username=\\"u\\" password=\\"%s\\" ${BROKEN;"
        """
                    .formatted(PASSWORD)
                    .stripTrailing(),
                ""),
            ENV);
    assertNoSecret(errors);
    assertThat(errors)
        .singleElement()
        .asString()
        .contains(
            "source.kafka.properties.sasl.jaas.config: malformed environment reference in '******'");
  }

  @Test
  void aSecretReferenceIsMaskedInTheEndpointErrorAndAPlainOneIsShown() {
    List<String> secret =
        errors(
            pipeline("", "storage: { s3: { endpoint: \"ftp://${S3_SECRET_HOST}:9000\" } }"), ENV);
    assertNoSecret(secret);
    assertThat(secret)
        .singleElement()
        .asString()
        .contains("storage.s3.endpoint: endpoint 'ftp://******:9000' is not an http(s) URL");

    List<String> plain =
        errors(pipeline("", "storage: { s3: { endpoint: \"ftp://${S3_HOST}:9000\" } }"), ENV);
    assertThat(plain)
        .singleElement()
        .asString()
        .contains(
            "storage.s3.endpoint: endpoint 'ftp://minio.internal:9000' is not an http(s) URL");
  }

  @Test
  void aSecretReferenceIsMaskedUnderAnyKey() {
    List<String> errors =
        errors(pipeline("", "storage: { s3: { path-style: \"${STYLE_SECRET}\" } }"), ENV);
    assertNoSecret(errors);
    assertThat(errors)
        .singleElement()
        .asString()
        .contains("storage.s3.path-style: cannot parse '******' as a boolean");
  }

  @Test
  void aSecretWrittenInTheFileIsMaskedToo() {
    // The access key, written plainly, is also the sink folder: the overlap error names it masked.
    String yaml =
        pipeline("", "storage: { s3: { access-key: " + S3_SECRET + ", secret-key: plain-sk } }")
            .replace("delta: { path: /t/orders }", "delta: { path: /t/" + S3_SECRET + " }")
            .replace("checkpoint: /c/orders", "checkpoint: /t/" + S3_SECRET);
    List<String> errors = errors(yaml, ENV);
    assertNoSecret(errors);
    assertThat(String.join("\n", errors)).contains("/t/******");
  }

  @Test
  void aSecretValueIsMaskedInMessagesAboutOtherKeysAndAPlainValueIsShown() {
    List<String> wrongNumber =
        errors(pipeline("    max-offsets-per-trigger: \"${TOKEN}\"", ""), ENV);
    assertNoSecret(wrongNumber);
    assertThat(wrongNumber)
        .singleElement()
        .asString()
        .contains("cannot parse '******' as a whole number");
    assertThat(errors(pipeline("    max-offsets-per-trigger: \"${MAX}\"", ""), ENV))
        .singleElement()
        .asString()
        .contains("cannot parse 'plenty' as a whole number");

    // The checkpoint (written plainly) is the sink folder, a secret value: the message about the
    // checkpoint names the sink location, masked.
    String sameFolder =
        pipeline("", "")
            .replace("delta: { path: /t/orders }", "delta: { path: \"/t/${TOKEN}\" }")
            .replace("checkpoint: /c/orders", "checkpoint: /t/" + ENV_SECRET);
    List<String> overlap = errors(sameFolder, ENV);
    assertNoSecret(overlap);
    assertThat(String.join("\n", overlap)).contains("/t/******");
  }

  @Test
  void aValidDeclarationCarriesItsSecretsAndItsReferencesForTheService() {
    PipelineSpec spec =
        PipelineParser.parse(
            pipeline(
                    """
            properties:
              security.protocol: SASL_SSL
              sasl.jaas.config: "x password=\\"%s\\";"
              ssl.key.password: keypass-value
              ssl.keystore.location: /etc/kafka/keystore.jks
              client.id: plain-client
        """
                        .formatted(PASSWORD)
                        .stripTrailing(),
                    "storage: { s3: { endpoint: \"http://${S3_HOST}:9000\", access-key: AKIAPLAIN,"
                        + " secret-key: \"${SK}\" } }")
                .replace("path: /t/orders", "path: \"${TABLES}/orders\""),
            "orders.yaml",
            ENV);
    String failure =
        "connect to http://minio.internal:9000 with "
            + ENV_SECRET
            + " failed; jaas x password=\""
            + PASSWORD
            + "\"; keypass-value; AKIAPLAIN; client plain-client; SASL_SSL;"
            + " /etc/kafka/keystore.jks; /data/tables/orders";
    assertThat(spec.secrets().mask(failure))
        .isEqualTo(
            "connect to http://minio.internal:9000 with ****** failed; jaas ******"
                + " ******; ******; client plain-client; SASL_SSL; /etc/kafka/keystore.jks;"
                + " /data/tables/orders");
    // SK is no secret name, but it is the value of secret-key.
    assertThat(spec.secrets().references())
        .containsExactly(
            Map.entry("TABLES", "/data/tables"),
            Map.entry("S3_HOST", "minio.internal"),
            Map.entry("SK", Secrets.MASK));
    assertThat(spec.secrets().toString()).doesNotContain(PASSWORD, S3_SECRET, ENV_SECRET);
    assertThat(spec.toString()).doesNotContain(PASSWORD, S3_SECRET, ENV_SECRET, "keypass-value");
    assertThat(spec.storage().orElseThrow().toString())
        .contains("endpoint=Optional[http://minio.internal:9000]")
        .doesNotContain("AKIAPLAIN");
  }

  @Test
  void aShortSecretReferenceIsShownMaskedInTheReferences() {
    PipelineSpec spec =
        PipelineParser.parse(
            pipeline(
                """
            properties:
              client.id: "${DB_PASS}"
        """
                    .stripTrailing(),
                ""),
            "orders.yaml",
            Map.of("DB_PASS", "abc"));
    assertThat(spec.secrets().references()).containsExactly(Map.entry("DB_PASS", Secrets.MASK));
  }

  @Test
  void variableNamesThatLookSecret() {
    for (String secret :
        List.of(
            "S3_ACCESS_KEY",
            "S3_SECRET_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "API_KEY",
            "APIKEY",
            "apiKey",
            "s3AccessKey",
            "SSL_KEYS",
            "KAFKA_PASSWORD",
            "DBPASSWORD",
            "DB_PASSWD",
            "DB_PASS",
            "DB_PWD",
            "TLS_PASSPHRASE",
            "REGISTRY_BASIC_AUTH",
            "GCP_CREDENTIALS",
            "KAFKA_CREDS",
            "JAAS_CONFIG",
            "TRIBUTARY_API_TOKEN",
            "SECRET_HOST",
            "client_secret")) {
      assertThat(Secrets.isSecretVariable(secret)).as(secret).isTrue();
    }
    for (String plain :
        List.of(
            "KAFKA_BOOTSTRAP",
            "KAFKA_BOOTSTRAP_SERVERS",
            "ORDERS_TOPIC",
            "DEMO_DIR",
            "TRIBUTARY_DATA",
            "S3_ENDPOINT",
            "S3_HOST",
            "AWS_REGION",
            "KEYSPACE",
            "SSL_KEYSTORE_LOCATION",
            "REGISTRY_URL",
            "AUTHOR",
            "PASSTHROUGH_MODE",
            "MAX")) {
      assertThat(Secrets.isSecretVariable(plain)).as(plain).isFalse();
    }
  }

  @Test
  void propertyAndKeyNamesThatLookSecret() {
    assertThat(Secrets.isSecretProperty("sasl.oauthbearer.token.endpoint.url")).isTrue();
    assertThat(Secrets.isSecretProperty("ssl.key.password")).isTrue();
    assertThat(Secrets.isSecretProperty("ssl.keystore.key")).isTrue();
    assertThat(Secrets.isSecretProperty("ssl.truststore.password")).isTrue();
    assertThat(Secrets.isSecretProperty("sasl.oauthbearer.client.credentials.client.secret"))
        .isTrue();
    assertThat(Secrets.isSecretProperty("basic.auth.user.info")).isTrue();
    assertThat(Secrets.isSecretProperty("ssl.keystore.location")).isFalse();
    assertThat(Secrets.isSecretProperty("ssl.keystore.type")).isFalse();
    assertThat(Secrets.isSecretProperty("ssl.endpoint.identification.algorithm")).isFalse();
    assertThat(Secrets.isSecretPath("storage.s3.secret-key")).isTrue();
    assertThat(Secrets.isSecretPath("storage.s3.access-key")).isTrue();
    assertThat(Secrets.isSecretPath("join[0].delta.storage.s3.secret-key")).isTrue();
    assertThat(Secrets.isSecretPath("format.avro.registry.basic-auth")).isTrue();
    assertThat(Secrets.isSecretPath("format.protobuf.registry.bearer-token")).isTrue();
    assertThat(Secrets.isSecretPath("source.kafka.properties.sasl.jaas.config")).isTrue();
    assertThat(Secrets.isSecretPath("storage")).as("a value in place of the section").isTrue();
    assertThat(Secrets.isSecretPath("storage.s3.endpoint")).isFalse();
    assertThat(Secrets.isSecretPath("storage.s3.region")).isFalse();
    assertThat(Secrets.isSecretPath("source.kafka.properties.client.id")).isFalse();
    assertThat(Secrets.isSecretPath("source.kafka.bootstrap-servers")).isFalse();
    assertThat(Secrets.isSecretPath("sink.delta.path")).isFalse();
  }

  @Test
  void masksLongestFirstAndLeavesShortValues() {
    Secrets secrets = Secrets.of(List.of("abcd", "abcdefgh", "on"));
    assertThat(secrets.mask("abcdefgh abcd on")).isEqualTo("****** ****** on");
    assertThat(Secrets.NONE.mask("abcd")).isEqualTo("abcd");
  }
}
