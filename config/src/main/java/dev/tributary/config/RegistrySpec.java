package dev.tributary.config;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code registry} section of {@code format.avro} / {@code format.protobuf}: a schema registry
 * that speaks the Confluent Schema Registry REST API, where writer schemas are looked up by the id
 * each record carries.
 *
 * @param url the registry's base URL ({@code http://registry:8081}; a path prefix such as {@code
 *     /apis/ccompat/v7} is kept)
 * @param basicAuth {@code user:password} for HTTP basic authentication, if declared (a secret)
 * @param bearerToken a token sent as {@code Authorization: Bearer}, if declared (a secret); never
 *     together with {@code basicAuth}
 * @param caFile PEM file of the certificate authorities an {@code https} registry is trusted by, if
 *     declared (else the JVM's default trust store)
 * @param timeout how long one request may take (connect + answer), default 10 seconds
 */
public record RegistrySpec(
    String url,
    Optional<String> basicAuth,
    Optional<String> bearerToken,
    Optional<String> caFile,
    Duration timeout) {

  /** The default of {@code timeout}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** Checks that no part is null and that at most one kind of authentication is declared. */
  public RegistrySpec {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(basicAuth, "basicAuth");
    Objects.requireNonNull(bearerToken, "bearerToken");
    Objects.requireNonNull(caFile, "caFile");
    Objects.requireNonNull(timeout, "timeout");
    if (basicAuth.isPresent() && bearerToken.isPresent()) {
      throw new IllegalArgumentException("basic-auth and bearer-token cannot both be declared");
    }
  }

  /** A registry at {@code url} without authentication, TLS settings or timeout of its own. */
  public static RegistrySpec at(String url) {
    return new RegistrySpec(
        url, Optional.empty(), Optional.empty(), Optional.empty(), DEFAULT_TIMEOUT);
  }
}
