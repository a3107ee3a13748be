package dev.tributary.config.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every key the parser accepts, by section. A section is the key path of a mapping with list
 * indexes written {@code []}: {@code source.kafka}, {@code transform[]}. Mappings whose keys are
 * chosen by the user (the schema columns, derive columns, measures and Kafka properties) are listed
 * in {@link #FREE_FORM} instead. The parser refuses any other key and the JSON Schema is tested
 * against this table, so the two cannot drift apart.
 */
public final class Keys {

  /** The root section. */
  public static final String ROOT = "";

  // before SECTIONS: sections() reads them while the class initialises
  private static final List<String> DELTA_SINK =
      List.of(
          "path",
          "partition-by",
          "target-file-size",
          "compression",
          "write",
          "key",
          "sequence-by",
          "delete-when",
          "merge-strategy",
          "history",
          "route",
          "max-routes");
  private static final List<String> JDBC_SINK =
      List.of("url", "table", "user", "password", "write", "key", "create-table", "properties");

  private static final List<String> KAFKA_SINK =
      List.of(
          "bootstrap-servers",
          "topic",
          "key",
          "value",
          "registry",
          "delivery",
          "provenance-headers",
          "properties");

  /** Accepted keys per section, in documentation order. */
  public static final Map<String, List<String>> SECTIONS = sections();

  /** Sections whose keys are names chosen by the user. */
  public static final Set<String> FREE_FORM =
      Set.of(
          "source.kafka.properties",
          "sink.jdbc.properties",
          "sink.kafka.properties",
          "sinks[].jdbc.properties",
          "sinks[].kafka.properties",
          "format.json.schema",
          "format.avro.schema",
          "format.avro.key",
          "format.protobuf.schema",
          "format.protobuf.key",
          "transform[].derive",
          "aggregate.measures",
          "join[].stream.source.kafka.properties",
          "join[].stream.format.json.schema",
          "join[].stream.format.avro.schema",
          "join[].stream.format.avro.key",
          "join[].stream.format.protobuf.schema",
          "join[].stream.format.protobuf.key");

  private Keys() {}

  private static Map<String, List<String>> sections() {
    Map<String, List<String>> s = new LinkedHashMap<>();
    s.put(
        ROOT,
        List.of(
            "pipeline",
            "source",
            "format",
            "transform",
            "expectations",
            "join",
            "watermark",
            "deduplicate",
            "aggregate",
            "output-mode",
            "sink",
            "sinks",
            "quarantine",
            "late-events",
            "checkpoint",
            "trigger",
            "maintenance",
            "backfill",
            "schema-evolution",
            "storage"));
    s.put("source", List.of("kafka", "delta"));
    s.put(
        "source.kafka",
        List.of(
            "bootstrap-servers",
            "topics",
            "topic-pattern",
            "starting-offsets",
            "max-offsets-per-trigger",
            "fail-on-data-loss",
            "properties",
            "assignment",
            "keyed-by"));
    s.put(
        "source.delta",
        List.of(
            "path",
            "starting-version",
            "max-files-per-trigger",
            "max-bytes-per-trigger",
            "ignore-deletes",
            "skip-change-commits",
            "storage"));
    s.put("source.delta.storage", List.of("s3"));
    s.put(
        "source.delta.storage.s3",
        List.of("endpoint", "region", "path-style", "access-key", "secret-key"));
    s.put("format", List.of("json", "avro", "protobuf"));
    s.put("format.json", List.of("schema", "max-record-size", "envelope", "on-truncate"));
    s.put(
        "format.avro",
        List.of(
            "registry", "schema", "columns", "key", "max-record-size", "envelope", "on-truncate"));
    s.put("format.avro.registry", List.of("url", "basic-auth", "bearer-token", "tls", "timeout"));
    s.put("format.avro.registry.tls", List.of("ca-file"));
    s.put(
        "format.protobuf",
        List.of("message", "registry", "schema", "columns", "key", "max-record-size", "envelope"));
    s.put(
        "format.protobuf.registry", List.of("url", "basic-auth", "bearer-token", "tls", "timeout"));
    s.put("format.protobuf.registry.tls", List.of("ca-file"));
    s.put("transform[]", List.of("filter", "derive"));
    s.put("expectations[]", List.of("name", "check", "on-violation"));
    s.put("join[]", List.of("delta", "stream", "on", "time", "type", "max-size", "columns"));
    s.put("join[].delta", List.of("path", "storage"));
    s.put("join[].delta.storage", List.of("s3"));
    s.put(
        "join[].delta.storage.s3",
        List.of("endpoint", "region", "path-style", "access-key", "secret-key"));
    streamInput(s);
    s.put("watermark", List.of("column", "delay", "policy", "idle-timeout", "multiple"));
    s.put("deduplicate", List.of("keys", "within-watermark"));
    s.put("aggregate", List.of("window", "group-by", "measures"));
    s.put("aggregate.window", List.of("column", "size", "slide", "session-gap"));
    s.put("sink", List.of("delta", "jdbc", "kafka"));
    s.put("sink.delta", DELTA_SINK);
    s.put("sink.jdbc", JDBC_SINK);
    s.put("sink.kafka", KAFKA_SINK);
    s.put("sink.kafka.registry", List.of("url", "basic-auth", "bearer-token", "tls", "timeout"));
    s.put("sink.kafka.registry.tls", List.of("ca-file"));
    s.put("sinks[]", List.of("delta", "jdbc", "kafka"));
    s.put("sinks[].delta", DELTA_SINK);
    s.put("sinks[].jdbc", JDBC_SINK);
    s.put("sinks[].kafka", KAFKA_SINK);
    s.put("sinks[].kafka.registry", List.of("url", "basic-auth", "bearer-token", "tls", "timeout"));
    s.put("sinks[].kafka.registry.tls", List.of("ca-file"));
    s.put("quarantine", List.of("delta", "max-fraction"));
    s.put("schema-evolution", List.of("mode", "rescue"));
    s.put("quarantine.delta", List.of("path"));
    s.put("late-events", List.of("delta"));
    s.put("late-events.delta", List.of("path"));
    s.put("trigger", List.of("processing-time", "available-now", "once", "continuous"));
    s.put("maintenance", List.of("compaction", "vacuum", "log-checkpoint-interval"));
    s.put("maintenance.compaction", List.of("schedule", "min-files"));
    s.put("maintenance.vacuum", List.of("schedule", "retention", "retention-check"));
    s.put("backfill", List.of("schedule"));
    s.put("storage", List.of("s3"));
    s.put("storage.s3", List.of("endpoint", "region", "path-style", "access-key", "secret-key"));
    return Collections.unmodifiableMap(s);
  }

  /**
   * The second input of a stream-stream join ({@code join[].stream}): the main source's keys but
   * {@code assignment} and {@code keyed-by}, the same format sections, a watermark of column and
   * delay. {@code transform} is listed so that it is refused with its reason rather than as an
   * unknown key.
   */
  private static void streamInput(Map<String, List<String>> s) {
    String input = "join[].stream";
    s.put(input, List.of("source", "format", "watermark", "prefix", "transform"));
    s.put(input + ".source", s.get("source"));
    s.put(
        input + ".source.kafka",
        s.get("source.kafka").stream()
            .filter(k -> !k.equals("assignment") && !k.equals("keyed-by"))
            .toList());
    for (String delta :
        List.of("source.delta", "source.delta.storage", "source.delta.storage.s3")) {
      s.put(input + "." + delta, s.get(delta));
    }
    for (String format : List.copyOf(s.keySet())) {
      if (format.equals("format") || format.startsWith("format.")) {
        s.put(input + "." + format, s.get(format));
      }
    }
    s.put(input + ".watermark", List.of("column", "delay"));
  }

  /** Returns the sections other than {@code section} that accept {@code key}. */
  static List<String> sectionsAccepting(String key, String section) {
    return SECTIONS.entrySet().stream()
        // the second input's sections copy the main ones: naming them too would only add noise
        .filter(e -> !e.getKey().startsWith("join[].stream.") || section.startsWith("join[]"))
        .filter(e -> !e.getKey().equals(section) && e.getValue().contains(key))
        .map(Map.Entry::getKey)
        .toList();
  }
}
