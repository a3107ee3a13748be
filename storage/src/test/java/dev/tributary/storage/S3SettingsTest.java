package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class S3SettingsTest {
  @Test
  void defaultsAreAwsUsEast1WithTheDefaultCredentialChain() {
    S3Settings defaults = S3Settings.defaults();

    assertThat(defaults.endpoint()).isNull();
    assertThat(defaults.region()).isEqualTo("us-east-1");
    assertThat(defaults.pathStyle()).isFalse();
    assertThat(defaults.hasStaticCredentials()).isFalse();
    assertThat(defaults.maxAttempts()).isEqualTo(5);
    assertThat(defaults.multipartPartSize()).isEqualTo(8L * 1024 * 1024);
  }

  @Test
  void withMethodsChangeOneFieldEach() {
    S3Settings s =
        S3Settings.defaults()
            .withEndpoint(URI.create("http://127.0.0.1:9000"))
            .withRegion("eu-west-1")
            .withPathStyleAccess()
            .withCredentials("AKIA", "SECRET")
            .withMaxAttempts(3)
            .withMultipartPartSize(16L * 1024 * 1024);

    assertThat(s)
        .isEqualTo(
            new S3Settings(
                URI.create("http://127.0.0.1:9000"),
                "eu-west-1",
                true,
                "AKIA",
                "SECRET",
                3,
                16L * 1024 * 1024));
    assertThat(s.withVirtualHostedAccess().pathStyle()).isFalse();
    assertThat(s.withDefaultCredentials().accessKey()).isNull();
    assertThat(s.withDefaultCredentials().secretKey()).isNull();
  }

  @Test
  void toStringMasksTheSecretKey() {
    String text =
        S3Settings.defaults().withCredentials("AKIAEXAMPLE", "very-secret-value").toString();

    assertThat(text)
        .contains("accessKey=AKIAEXAMPLE")
        .contains("secretKey=****")
        .doesNotContain("very-secret-value");
    assertThat(S3Settings.defaults().toString()).contains("secretKey=null");
  }

  @Test
  void invalidSettingsAreRejectedWithTheReason() {
    assertThatThrownBy(() -> S3Settings.defaults().withMultipartPartSize(1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multipartPartSize must be at least 5242880")
        .hasMessageContaining("got 1024");
    assertThatThrownBy(() -> S3Settings.defaults().withMaxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxAttempts must be at least 1, got 0");
    assertThatThrownBy(
            () ->
                new S3Settings(
                    null, "us-east-1", false, "AKIA", null, 5, S3Settings.DEFAULT_PART_SIZE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("access key and secret key must be given together");
    assertThatThrownBy(() -> S3Settings.defaults().withEndpoint(URI.create("localhost:9000")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'localhost:9000' must be an absolute URL");
    assertThatThrownBy(() -> S3Settings.defaults().withRegion(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("region must not be blank");
  }
}
