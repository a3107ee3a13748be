package dev.tributary.config.internal;

import dev.tributary.config.Compression;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.DeltaTableSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.RouteSpec;
import dev.tributary.config.Size;
import dev.tributary.config.StorageSpec;
import dev.tributary.config.UpsertSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the pipeline id and where results go: {@code pipeline}, {@code output-mode}, {@code sink},
 * {@code quarantine}, {@code late-events}, {@code checkpoint} and {@code storage}.
 */
final class OutputReader {

  private final YamlNodes nodes;
  private final SourceReader sizes;

  OutputReader(YamlNodes nodes, SourceReader sizes) {
    this.nodes = nodes;
    this.sizes = sizes;
  }

  OutputMode outputMode(YamlMap root) {
    return root.read(
        "output-mode",
        n -> keyword(n, "output-mode", "output mode", OutputMode.values(), OutputMode::keyword),
        OutputMode.APPEND);
  }

  /**
   * Reads a Delta sink's mapping ({@code sink.delta}, or {@code sinks[i].delta}) and finishes it;
   * null when invalid.
   *
   * @param path the mapping's key path, as errors show it
   */
  DeltaSinkSpec deltaSink(YamlMap delta, String path) {
    String tablePath = path(delta);
    List<String> partitionBy =
        delta.read("partition-by", n -> nodes.textList(n, path + ".partition-by"), List.of());
    Size target =
        delta.read(
            "target-file-size",
            n -> sizes.positiveSize(n, path + ".target-file-size"),
            DeltaSinkSpec.DEFAULT_TARGET_FILE_SIZE);
    Compression compression =
        delta.read(
            "compression",
            n ->
                keyword(
                    n,
                    path + ".compression",
                    "compression",
                    Compression.values(),
                    Compression::keyword),
            Compression.SNAPPY);
    Optional<UpsertSpec> upsert = new UpsertReader(nodes).read(delta);
    Optional<RouteSpec> route = new RouteReader(nodes).read(delta, tablePath);
    delta.finish();
    if (tablePath == null
        || partitionBy == null
        || target == null
        || compression == null
        || upsert == null
        || route == null) {
      return null;
    }
    return new DeltaSinkSpec(tablePath, partitionBy, target, compression, upsert, route);
  }

  /** Returns the declared side table, or null when absent or invalid. */
  DeltaTableSpec sideTable(YamlMap root, String key) {
    YamlMap delta = deltaSection(root, key, false);
    if (delta == null) {
      return null;
    }
    String path = path(delta);
    delta.finish();
    return path == null ? null : new DeltaTableSpec(path);
  }

  /** The path of a side table's {@code delta} map (finished here), or null when invalid. */
  DeltaTableSpec sideTablePath(YamlMap delta) {
    String path = path(delta);
    delta.finish();
    return path == null ? null : new DeltaTableSpec(path);
  }

  String checkpoint(YamlMap root) {
    Node node = root.required("checkpoint", "checkpoint: s3://checkpoints/orders-hourly");
    return node == null ? null : nodes.nonEmptyText(node, "checkpoint", "the checkpoint location");
  }

  String id(YamlMap root) {
    Node node = root.required("pipeline", "pipeline: orders-hourly");
    String id = node == null ? null : nodes.nonEmptyText(node, "pipeline", "the pipeline id");
    if (id != null && !id.matches("[a-z0-9-]+")) {
      nodes.fail(node, "pipeline", Messages.invalidId(id));
      return null;
    }
    if (id != null && id.length() > PipelineSpec.MAX_ID_LENGTH) {
      nodes.fail(node, "pipeline", Messages.idTooLong(id, PipelineSpec.MAX_ID_LENGTH));
      return null;
    }
    return id;
  }

  /** Returns the declared storage settings, or null when absent or invalid. */
  StorageSpec storage(YamlMap root) {
    return storage(root, "storage", "storage");
  }

  /**
   * Returns the storage settings under {@code parent}'s {@code storage} key, or null when absent or
   * invalid.
   *
   * @param path the key path of that {@code storage} key, as errors show it ({@code
   *     join[0].delta.storage})
   * @param section its {@link Keys} section ({@code join[].delta.storage})
   */
  StorageSpec storage(YamlMap parent, String path, String section) {
    Node node = parent.optional("storage").orElse(null);
    YamlMap storage = node == null ? null : nodes.map(node, path, section);
    if (storage == null) {
      return null;
    }
    Node s3Node =
        storage.required("s3", "s3: { endpoint: http://localhost:9000, region: us-east-1 }");
    storage.finish();
    String s3Path = path + ".s3";
    YamlMap s3 = s3Node == null ? null : nodes.map(s3Node, s3Path, section + ".s3");
    if (s3 == null) {
      return null;
    }
    Optional<String> endpoint =
        s3.read(
            "endpoint",
            n -> endpoint(n, s3Path + ".endpoint").map(Optional::of).orElse(null),
            Optional.empty());
    Optional<String> region =
        s3.read("region", n -> optionalText(n, s3Path + ".region"), Optional.empty());
    Boolean pathStyle =
        s3.read("path-style", n -> nodes.bool(n, s3Path + ".path-style"), Boolean.FALSE);
    Optional<String> accessKey =
        s3.read("access-key", n -> optionalText(n, s3Path + ".access-key"), Optional.empty());
    Optional<String> secretKey =
        s3.read("secret-key", n -> optionalText(n, s3Path + ".secret-key"), Optional.empty());
    s3.finish();
    if (endpoint == null
        || region == null
        || pathStyle == null
        || accessKey == null
        || secretKey == null) {
      return null;
    }
    if (accessKey.isPresent() != secretKey.isPresent()) {
      nodes
          .problems()
          .atKey(
              accessKey.isPresent() ? s3Path + ".access-key" : s3Path + ".secret-key",
              Messages.keysTogether());
      return null;
    }
    return new StorageSpec(endpoint, region, pathStyle, accessKey, secretKey);
  }

  private Optional<String> endpoint(Node node, String path) {
    String text = nodes.nonEmptyText(node, path, "the endpoint");
    if (text == null) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(text.strip());
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null) {
        return Optional.of(text.strip());
      }
    } catch (URISyntaxException e) {
      // reported below, with the expected form
    }
    nodes.fail(node, path, Messages.badEndpoint(text));
    return Optional.empty();
  }

  /** An optional text: empty after substitution (e.g. {@code ${KEY:-}}) counts as not given. */
  private Optional<String> optionalText(Node node, String path) {
    String text = nodes.text(node, path);
    if (text == null) {
      return null;
    }
    return text.isBlank() ? Optional.empty() : Optional.of(text);
  }

  private YamlMap deltaSection(YamlMap root, String key, boolean required) {
    String example =
        key + ": { delta: { path: s3://tables/" + (required ? "orders" : "orders-" + key) + " } }";
    Node node = required ? root.required(key, example) : root.optional(key).orElse(null);
    YamlMap section = node == null ? null : nodes.map(node, key, key);
    if (section == null) {
      return null;
    }
    Node deltaNode = section.required("delta", "delta: { path: s3://tables/orders }");
    section.finish();
    return deltaNode == null ? null : nodes.map(deltaNode, key + ".delta", key + ".delta");
  }

  private String path(YamlMap delta) {
    Node node = delta.required("path", "path: s3://bucket/table or a local directory");
    return node == null ? null : nodes.nonEmptyText(node, delta.child("path"), "the table path");
  }

  <E> E keyword(Node node, String path, String what, E[] values, Function<E, String> keyword) {
    return nodes.keyword(node, path, what, values, keyword);
  }
}
