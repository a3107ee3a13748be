package dev.tributary.config.internal;

import dev.tributary.config.BackfillSpec;
import dev.tributary.config.CompactionSpec;
import dev.tributary.config.Compression;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.DeltaTableSpec;
import dev.tributary.config.Durations;
import dev.tributary.config.MaintenanceSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.Size;
import dev.tributary.config.StorageSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.VacuumSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads where and when results go: {@code output-mode}, {@code sink}, {@code quarantine},
 * {@code late-events}, {@code checkpoint}, {@code trigger}, {@code maintenance}, {@code backfill} and
 * {@code storage}.
 */
final class OutputReader {

  private final YamlNodes nodes;
  private final QueryReader durations;
  private final SourceReader sizes;

  OutputReader(YamlNodes nodes, QueryReader durations, SourceReader sizes) {
    this.nodes = nodes;
    this.durations = durations;
    this.sizes = sizes;
  }

  OutputMode outputMode(YamlMap root) {
    return root.read("output-mode", n -> keyword(n, "output-mode", "output mode", OutputMode.values(),
        OutputMode::keyword), OutputMode.APPEND);
  }

  DeltaSinkSpec sink(YamlMap root) {
    YamlMap delta = deltaSection(root, "sink", true);
    if (delta == null) {
      return null;
    }
    String path = path(delta);
    List<String> partitionBy = delta.read("partition-by", n -> nodes.textList(n, "sink.delta.partition-by"),
        List.of());
    Size target = delta.read("target-file-size", n -> sizes.positiveSize(n, "sink.delta.target-file-size"),
        DeltaSinkSpec.DEFAULT_TARGET_FILE_SIZE);
    Compression compression = delta.read("compression", n -> keyword(n, "sink.delta.compression",
        "compression", Compression.values(), Compression::keyword), Compression.SNAPPY);
    delta.finish();
    if (path == null || partitionBy == null || target == null || compression == null) {
      return null;
    }
    return new DeltaSinkSpec(path, partitionBy, target, compression);
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
    return id;
  }

  TriggerSpec trigger(YamlMap root) {
    Node node = root.optional("trigger").orElse(null);
    if (node == null) {
      return TriggerSpec.DEFAULT;
    }
    YamlMap map = nodes.map(node, "trigger", "trigger");
    if (map == null) {
      return null;
    }
    List<String> kinds = map.present(Keys.SECTIONS.get("trigger"));
    Node interval = map.optional("processing-time").orElse(null);
    Node availableNow = map.optional("available-now").orElse(null);
    Node once = map.optional("once").orElse(null);
    map.finish();
    if (kinds.isEmpty() && map.hasOtherKeys(kinds)) {
      return null; // only unknown keys, reported by finish() with a suggestion
    }
    if (kinds.size() != 1) {
      nodes.fail(node, "trigger", Messages.triggerKind(kinds));
      return null;
    }
    if (interval != null) {
      Duration duration = durations.positiveDuration(interval, "trigger.processing-time");
      return duration == null ? null : new TriggerSpec.ProcessingTime(duration);
    }
    Node flag = availableNow != null ? availableNow : once;
    if (flag == null) {
      nodes.fail(node, "trigger", Messages.triggerKind(kinds));
      return null;
    }
    String key = availableNow != null ? "available-now" : "once";
    Boolean value = nodes.bool(flag, "trigger." + key);
    if (Boolean.FALSE.equals(value)) {
      nodes.fail(flag, "trigger." + key, Messages.triggerFalse(key));
      return null;
    }
    if (value == null) {
      return null;
    }
    return availableNow != null ? new TriggerSpec.AvailableNow() : new TriggerSpec.Once();
  }

  MaintenanceSpec maintenance(YamlMap root) {
    Node node = root.optional("maintenance").orElse(null);
    if (node == null) {
      return MaintenanceSpec.DEFAULT;
    }
    YamlMap map = nodes.map(node, "maintenance", "maintenance");
    if (map == null) {
      return null;
    }
    Optional<CompactionSpec> compaction = map.read("compaction", n -> compaction(n).map(Optional::of).orElse(null),
        Optional.empty());
    Optional<VacuumSpec> vacuum = map.read("vacuum", n -> vacuum(n).map(Optional::of).orElse(null),
        Optional.empty());
    Long interval = map.read("log-checkpoint-interval",
        n -> nodes.integer(n, "maintenance.log-checkpoint-interval", 1),
        (long) MaintenanceSpec.DEFAULT_LOG_CHECKPOINT_INTERVAL);
    map.finish();
    if (compaction == null || vacuum == null || interval == null) {
      return null;
    }
    if (interval > Integer.MAX_VALUE) {
      nodes.problems().atValue("maintenance.log-checkpoint-interval",
          Messages.tooLarge(interval.toString(), Integer.MAX_VALUE));
      return null;
    }
    return new MaintenanceSpec(compaction, vacuum, interval.intValue());
  }

  private Optional<CompactionSpec> compaction(Node node) {
    YamlMap map = nodes.map(node, "maintenance.compaction", "maintenance.compaction");
    if (map == null) {
      return Optional.empty();
    }
    String schedule = schedule(map, "\"0 0 * * * *\"");
    Long minFiles = map.read("min-files", n -> nodes.integer(n, "maintenance.compaction.min-files", 2),
        (long) CompactionSpec.DEFAULT_MIN_FILES);
    map.finish();
    if (schedule == null || minFiles == null) {
      return Optional.empty();
    }
    return Optional.of(new CompactionSpec(schedule, (int) Math.min(minFiles, Integer.MAX_VALUE)));
  }

  private Optional<VacuumSpec> vacuum(Node node) {
    YamlMap map = nodes.map(node, "maintenance.vacuum", "maintenance.vacuum");
    if (map == null) {
      return Optional.empty();
    }
    String schedule = schedule(map, "\"0 0 3 * * *\"");
    Duration retention = map.read("retention",
        n -> durations.positiveDuration(n, "maintenance.vacuum.retention"), VacuumSpec.DEFAULT_RETENTION);
    map.finish();
    if (schedule == null || retention == null) {
      return Optional.empty();
    }
    return Optional.of(new VacuumSpec(schedule, retention));
  }

  /** Returns the declared backfill, or null when absent or invalid. */
  BackfillSpec backfill(YamlMap root) {
    Node node = root.optional("backfill").orElse(null);
    YamlMap map = node == null ? null : nodes.map(node, "backfill", "backfill");
    if (map == null) {
      return null;
    }
    String schedule = schedule(map, "\"0 0 2 * * *\"");
    map.finish();
    return schedule == null ? null : new BackfillSpec(schedule);
  }

  /** Returns the declared storage settings, or null when absent or invalid. */
  StorageSpec storage(YamlMap root) {
    Node node = root.optional("storage").orElse(null);
    YamlMap storage = node == null ? null : nodes.map(node, "storage", "storage");
    if (storage == null) {
      return null;
    }
    Node s3Node = storage.required("s3", "s3: { endpoint: http://localhost:9000, region: us-east-1 }");
    storage.finish();
    YamlMap s3 = s3Node == null ? null : nodes.map(s3Node, "storage.s3", "storage.s3");
    if (s3 == null) {
      return null;
    }
    Optional<String> endpoint = s3.read("endpoint", n -> endpoint(n).map(Optional::of).orElse(null),
        Optional.empty());
    Optional<String> region = s3.read("region", n -> optionalText(n, "storage.s3.region"), Optional.empty());
    Boolean pathStyle = s3.read("path-style", n -> nodes.bool(n, "storage.s3.path-style"), Boolean.FALSE);
    Optional<String> accessKey = s3.read("access-key", n -> optionalText(n, "storage.s3.access-key"),
        Optional.empty());
    Optional<String> secretKey = s3.read("secret-key", n -> optionalText(n, "storage.s3.secret-key"),
        Optional.empty());
    s3.finish();
    if (endpoint == null || region == null || pathStyle == null || accessKey == null || secretKey == null) {
      return null;
    }
    if (accessKey.isPresent() != secretKey.isPresent()) {
      nodes.problems().atKey(accessKey.isPresent() ? "storage.s3.access-key" : "storage.s3.secret-key",
          Messages.keysTogether());
      return null;
    }
    return new StorageSpec(endpoint, region, pathStyle, accessKey, secretKey);
  }

  private Optional<String> endpoint(Node node) {
    String text = nodes.nonEmptyText(node, "storage.s3.endpoint", "the endpoint");
    if (text == null) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(text.strip());
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return Optional.of(text.strip());
      }
    } catch (URISyntaxException e) {
      // reported below, with the expected form
    }
    nodes.fail(node, "storage.s3.endpoint", Messages.badEndpoint(text));
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

  private String schedule(YamlMap map, String example) {
    Node node = map.required("schedule", "schedule: " + example);
    String text = node == null ? null : nodes.nonEmptyText(node, map.child("schedule"), "the schedule");
    if (text == null) {
      return null;
    }
    return nodes.convertText(node, map.child("schedule"), text, t -> {
      Cron.check(t);
      return t.strip();
    });
  }

  private YamlMap deltaSection(YamlMap root, String key, boolean required) {
    String example = key + ": { delta: { path: s3://tables/" + (required ? "orders" : "orders-" + key) + " } }";
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

  private <E> E keyword(Node node, String path, String what, E[] values, Function<E, String> keyword) {
    String text = nodes.text(node, path);
    if (text == null) {
      return null;
    }
    String wanted = text.strip().toLowerCase(Locale.ROOT);
    for (E value : values) {
      if (keyword.apply(value).equals(wanted)) {
        return value;
      }
    }
    nodes.fail(node, path, Messages.oneOf(what + " '" + text + "'",
        Arrays.stream(values).map(keyword).toList()));
    return null;
  }
}
