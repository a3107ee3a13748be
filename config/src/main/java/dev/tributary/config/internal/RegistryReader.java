package dev.tributary.config.internal;

import dev.tributary.config.Durations;
import dev.tributary.config.RegistrySpec;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads a {@code registry} mapping (a schema registry speaking the Confluent REST API): where the
 * registry formats look writer schemas up ({@code format.avro.registry}, {@code
 * format.protobuf.registry}) and where an Avro Kafka sink registers its schema ({@code
 * sink.kafka.registry}). One reader, so both places accept the same keys and say the same things.
 */
final class RegistryReader {
  private final YamlNodes nodes;

  RegistryReader(YamlNodes nodes) {
    this.nodes = nodes;
  }

  /**
   * Reads the registry mapping at {@code at} ({@code format.avro.registry}, {@code
   * sinks[1].kafka.registry}); null (with the problems recorded) when broken.
   *
   * @param section the section's name among {@link Keys#SECTIONS} ({@code sinks[].kafka.registry})
   */
  RegistrySpec registry(Node node, String at, String section) {
    YamlMap registry = nodes.map(node, at, section);
    if (registry == null) {
      return null;
    }
    Node urlNode = registry.required("url", "url: http://localhost:8081");
    String url =
        urlNode == null ? null : nodes.nonEmptyText(urlNode, at + ".url", "the registry URL");
    if (url != null && !isHttpUrl(url.strip())) {
      nodes.fail(urlNode, at + ".url", Messages.badRegistryUrl(url));
      url = null;
    }
    Node basicNode = registry.optional("basic-auth").orElse(null);
    String basic =
        basicNode == null ? null : nodes.nonEmptyText(basicNode, at + ".basic-auth", "basic-auth");
    boolean ok = basicNode == null || basic != null;
    if (basic != null && basic.indexOf(':') > 0) {
      nodes
          .problems()
          .secret(basic.substring(basic.indexOf(':') + 1)); // the password alone is a secret too
    }
    if (basic != null && basic.indexOf(':') <= 0) {
      nodes.fail(basicNode, at + ".basic-auth", Messages.badBasicAuth());
      ok = false;
    }
    Node bearerNode = registry.optional("bearer-token").orElse(null);
    String bearer =
        bearerNode == null
            ? null
            : nodes.nonEmptyText(bearerNode, at + ".bearer-token", "bearer-token");
    ok &= bearerNode == null || bearer != null;
    if (basic != null && bearer != null) {
      nodes.fail(bearerNode, at + ".bearer-token", Messages.twoRegistryAuths());
      ok = false;
    }
    String caFile = null;
    Optional<Node> tlsNode = registry.optional("tls");
    if (tlsNode.isPresent()) {
      YamlMap tls = nodes.map(tlsNode.get(), at + ".tls", section + ".tls");
      if (tls == null) {
        ok = false;
      } else {
        Node caNode = tls.required("ca-file", "ca-file: /etc/ssl/registry-ca.pem");
        caFile =
            caNode == null ? null : nodes.nonEmptyText(caNode, at + ".tls.ca-file", "the CA file");
        ok &= caFile != null;
        tls.finish();
      }
    }
    Duration timeout =
        registry.read(
            "timeout", n -> positiveDuration(n, at + ".timeout"), RegistrySpec.DEFAULT_TIMEOUT);
    registry.finish();
    if (url == null || !ok || timeout == null) {
      return null;
    }
    return new RegistrySpec(
        stripTrailingSlash(url.strip()),
        Optional.ofNullable(basic),
        Optional.ofNullable(bearer),
        Optional.ofNullable(caFile),
        timeout);
  }

  private Duration positiveDuration(Node node, String path) {
    Duration d = nodes.convert(node, path, Durations::parse);
    if (d != null && (d.isZero() || d.isNegative())) {
      nodes.fail(node, path, Messages.notPositive("the timeout"));
      return null;
    }
    return d;
  }

  private static boolean isHttpUrl(String url) {
    try {
      URI uri = URI.create(url);
      return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null
          && uri.getQuery() == null
          && uri.getUserInfo() == null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static String stripTrailingSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
