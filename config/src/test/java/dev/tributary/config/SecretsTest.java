package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Secret values never appear in a validation message, whichever check refuses the file, and a valid
 * declaration carries its secrets so that the service masks them in what it shows at run time.
 */
class SecretsTest {
  private static final String PASSWORD = "hunter2-jaas-password";
  private static final String S3_SECRET = "s3-endpoint-secret-host";
  private static final String ENV_SECRET = "substituted-secret-value";
  private static final Map<String, String> ENV =
      Map.of("S3_HOST", S3_SECRET, "TOKEN", ENV_SECRET, "STYLE", ENV_SECRET, "SK", ENV_SECRET);

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
  void aSubstitutedEndpointIsMaskedInTheEndpointError() {
    List<String> errors =
        errors(pipeline("", "storage: { s3: { endpoint: \"ftp://${S3_HOST}:9000\" } }"), ENV);
    assertNoSecret(errors);
    assertThat(errors)
        .singleElement()
        .asString()
        .contains("storage.s3.endpoint: endpoint '******' is not an http(s) URL");
  }

  @Test
  void aSubstitutedPathStyleIsMasked() {
    List<String> errors =
        errors(pipeline("", "storage: { s3: { path-style: \"${STYLE}\" } }"), ENV);
    assertNoSecret(errors);
    assertThat(errors)
        .singleElement()
        .asString()
        .contains("storage.s3.path-style: cannot parse '******' as a boolean");
  }

  @Test
  void aSecretWrittenInTheFileIsMaskedToo() {
    List<String> errors =
        errors(pipeline("", "storage: { s3: { endpoint: \"" + S3_SECRET + "\" } }"), ENV);
    assertNoSecret(errors);
  }

  @Test
  void aSubstitutedValueIsMaskedUnderAnyKeyAndInMessagesAboutOtherKeys() {
    List<String> wrongNumber =
        errors(pipeline("    max-offsets-per-trigger: \"${TOKEN}\"", ""), ENV);
    assertNoSecret(wrongNumber);
    assertThat(wrongNumber)
        .singleElement()
        .asString()
        .contains("cannot parse '******' as a whole number");

    // The checkpoint (written plainly) is the sink folder, a substituted value: the message about
    // the
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
  void aValidDeclarationCarriesItsSecretsForTheService() {
    PipelineSpec spec =
        PipelineParser.parse(
            pipeline(
                """
            properties:
              security.protocol: SASL_SSL
              sasl.jaas.config: "x password=\\"%s\\";"
              ssl.key.password: keypass-value
              client.id: plain-client
        """
                    .formatted(PASSWORD)
                    .stripTrailing(),
                "storage: { s3: { endpoint: \"http://${S3_HOST}:9000\", access-key: AKIAPLAIN, secret-key: \"${SK}\" } }"),
            "orders.yaml",
            ENV);
    String failure =
        "connect to http://"
            + S3_SECRET
            + ":9000 with "
            + ENV_SECRET
            + " failed; jaas x password=\""
            + PASSWORD
            + "\"; keypass-value; AKIAPLAIN; client plain-client; SASL_SSL";
    assertThat(spec.secrets().mask(failure))
        .isEqualTo(
            "connect to ****** with ****** failed; jaas ******"
                + " ******; ******; client plain-client; SASL_SSL");
    assertThat(spec.secrets().toString()).doesNotContain(PASSWORD, S3_SECRET, ENV_SECRET);
    assertThat(spec.toString()).doesNotContain(PASSWORD, S3_SECRET, ENV_SECRET, "keypass-value");
  }

  @Test
  void namesThatLookSecret() {
    assertThat(Secrets.isSecretProperty("sasl.oauthbearer.token.endpoint.url")).isTrue();
    assertThat(Secrets.isSecretProperty("ssl.key.password")).isTrue();
    assertThat(Secrets.isSecretProperty("ssl.keystore.key")).isTrue();
    assertThat(Secrets.isSecretProperty("ssl.endpoint.identification.algorithm")).isFalse();
    assertThat(Secrets.isSecretPath("storage.s3.region")).isTrue();
    assertThat(Secrets.isSecretPath("source.kafka.properties.sasl.jaas.config")).isTrue();
    assertThat(Secrets.isSecretPath("source.kafka.properties.client.id")).isFalse();
    assertThat(Secrets.isSecretPath("sink.delta.path")).isFalse();
  }

  @Test
  void masksLongestFirstAndLeavesShortValues() {
    Secrets secrets = Secrets.of(List.of("abcd", "abcdefgh", "on"));
    assertThat(secrets.mask("abcdefgh abcd on")).isEqualTo("****** ****** on");
    assertThat(Secrets.NONE.mask("abcd")).isEqualTo("abcd");
  }
}
