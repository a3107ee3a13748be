package dev.tributary.table.log;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.table.TableErrors;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps actions to Delta's JSON lines and back: one action per line, {@code {"<kind>":{fields}}},
 * with the protocol's exact field names. Null optional fields are omitted; fields readers require
 * even when empty ({@code partitionValues}, {@code partitionColumns}, {@code configuration}, {@code
 * format.options}) are always written.
 *
 * <p>Reading is lenient where the protocol allows it (unknown fields and unknown action kinds are
 * skipped) and strict where a wrong guess would corrupt the table (a missing path, size or version;
 * a deletion vector without its location, size or cardinality).
 */
public final class ActionCodec {
  // Decimal statistics must keep all their digits: never parse JSON fractions as doubles.
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final JsonFactory FACTORY = MAPPER.getFactory();

  private ActionCodec() {}

  /** One commit file's bytes: the actions as JSON lines, separated by {@code \n}. */
  public static byte[] encodeCommit(List<? extends Action> actions) {
    StringBuilder out = new StringBuilder(256 * actions.size());
    for (Action a : actions) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(encode(a));
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One action as a single JSON line (no line break). */
  public static String encode(Action action) {
    StringWriter sw = new StringWriter(256);
    try (JsonGenerator g = FACTORY.createGenerator(sw)) {
      g.writeStartObject();
      g.writeFieldName(action.kind());
      g.writeStartObject();
      if (action instanceof AddFile a) {
        writeAdd(g, a);
      } else if (action instanceof RemoveFile r) {
        writeRemove(g, r);
      } else if (action instanceof SetTransaction t) {
        writeTxn(g, t);
      } else if (action instanceof Metadata m) {
        writeMetadata(g, m);
      } else if (action instanceof Protocol p) {
        writeProtocol(g, p);
      } else if (action instanceof DomainMetadata d) {
        g.writeStringField("domain", d.domain());
        g.writeStringField("configuration", d.configuration());
        g.writeBooleanField("removed", d.removed());
      } else if (action instanceof CommitInfo c) {
        for (Map.Entry<String, Object> e : c.values().entrySet()) {
          g.writeFieldName(e.getKey());
          MAPPER.writeValue(g, e.getValue());
        }
      }
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize " + action.kind() + " action", e);
    }
    return sw.toString();
  }

  private static void writeAdd(JsonGenerator g, AddFile a) throws IOException {
    g.writeStringField("path", PathCodec.encode(a.path()));
    writeStringMap(g, "partitionValues", a.partitionValues());
    g.writeNumberField("size", a.size());
    g.writeNumberField("modificationTime", a.modificationTime());
    g.writeBooleanField("dataChange", a.dataChange());
    if (a.stats() != null) {
      g.writeStringField("stats", a.stats());
    }
    if (!a.tags().isEmpty()) {
      writeStringMap(g, "tags", a.tags());
    }
    writeFileExtras(g, a.deletionVector(), a.baseRowId(), a.defaultRowCommitVersion());
  }

  /** The optional fields add and remove share: deletion vector and row tracking. */
  private static void writeFileExtras(
      JsonGenerator g, DeletionVectorDescriptor dv, Long baseRowId, Long defaultRowCommitVersion)
      throws IOException {
    if (dv != null) {
      g.writeObjectFieldStart("deletionVector");
      g.writeStringField("storageType", dv.storageType().code());
      g.writeStringField("pathOrInlineDv", dv.pathOrInlineDv());
      if (dv.offset() != null) {
        g.writeNumberField("offset", dv.offset());
      }
      g.writeNumberField("sizeInBytes", dv.sizeInBytes());
      g.writeNumberField("cardinality", dv.cardinality());
      g.writeEndObject();
    }
    if (baseRowId != null) {
      g.writeNumberField("baseRowId", baseRowId);
    }
    if (defaultRowCommitVersion != null) {
      g.writeNumberField("defaultRowCommitVersion", defaultRowCommitVersion);
    }
  }

  private static void writeRemove(JsonGenerator g, RemoveFile r) throws IOException {
    g.writeStringField("path", PathCodec.encode(r.path()));
    if (r.deletionTimestamp() != null) {
      g.writeNumberField("deletionTimestamp", r.deletionTimestamp());
    }
    g.writeBooleanField("dataChange", r.dataChange());
    if (r.extendedFileMetadata()) {
      g.writeBooleanField("extendedFileMetadata", true);
      writeStringMap(g, "partitionValues", r.partitionValues());
      if (r.size() != null) {
        g.writeNumberField("size", r.size());
      }
    }
    writeFileExtras(g, r.deletionVector(), r.baseRowId(), r.defaultRowCommitVersion());
  }

  private static void writeTxn(JsonGenerator g, SetTransaction t) throws IOException {
    g.writeStringField("appId", t.appId());
    g.writeNumberField("version", t.version());
    if (t.lastUpdated() != null) {
      g.writeNumberField("lastUpdated", t.lastUpdated());
    }
  }

  private static void writeMetadata(JsonGenerator g, Metadata m) throws IOException {
    g.writeStringField("id", m.id());
    if (m.name() != null) {
      g.writeStringField("name", m.name());
    }
    if (m.description() != null) {
      g.writeStringField("description", m.description());
    }
    g.writeObjectFieldStart("format");
    g.writeStringField("provider", m.format().provider());
    writeStringMap(g, "options", m.format().options());
    g.writeEndObject();
    g.writeStringField("schemaString", m.schemaString());
    g.writeArrayFieldStart("partitionColumns");
    for (String c : m.partitionColumns()) {
      g.writeString(c);
    }
    g.writeEndArray();
    writeStringMap(g, "configuration", m.configuration());
    if (m.createdTime() != null) {
      g.writeNumberField("createdTime", m.createdTime());
    }
  }

  private static void writeProtocol(JsonGenerator g, Protocol p) throws IOException {
    g.writeNumberField("minReaderVersion", p.minReaderVersion());
    g.writeNumberField("minWriterVersion", p.minWriterVersion());
    if (p.minReaderVersion() >= 3) {
      writeStringArray(g, "readerFeatures", Protocol.sorted(p.readerFeatures()));
    }
    if (p.minWriterVersion() >= 7) {
      writeStringArray(g, "writerFeatures", Protocol.sorted(p.writerFeatures()));
    }
  }

  private static void writeStringArray(JsonGenerator g, String name, Collection<String> values)
      throws IOException {
    g.writeArrayFieldStart(name);
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }

  private static void writeStringMap(JsonGenerator g, String name, Map<String, String> map)
      throws IOException {
    g.writeObjectFieldStart(name);
    for (Map.Entry<String, String> e : map.entrySet()) {
      if (e.getValue() == null) {
        g.writeNullField(e.getKey());
      } else {
        g.writeStringField(e.getKey(), e.getValue());
      }
    }
    g.writeEndObject();
  }

  /**
   * Parses a commit file. Blank lines are skipped; so are action kinds we do not model.
   *
   * @param location the table location, for error messages
   * @param file the file's key, for error messages
   * @throws dev.tributary.table.TableException naming the file and line if a line is not a valid
   *     action
   */
  public static List<Action> decodeCommit(String location, String file, byte[] content) {
    String text = new String(content, StandardCharsets.UTF_8);
    List<Action> actions = new ArrayList<>();
    int lineNo = 0;
    int start = 0;
    while (start <= text.length()) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = text.length();
      }
      lineNo++;
      String line = text.substring(start, end).strip();
      start = end + 1;
      if (line.isEmpty()) {
        continue;
      }
      JsonNode node;
      try {
        node = MAPPER.readTree(line);
      } catch (JsonProcessingException e) {
        throw TableErrors.corruptLogLine(location, file, lineNo, e.getOriginalMessage());
      }
      if (node == null || !node.isObject() || node.size() != 1) {
        throw TableErrors.corruptLogLine(
            location, file, lineNo, "expected one object with a single action key");
      }
      String kind = node.fieldNames().next();
      JsonNode body = node.get(kind);
      if (body.isNull()) {
        continue;
      }
      if (!body.isObject()) {
        throw TableErrors.corruptLogLine(location, file, lineNo, "'" + kind + "' is not an object");
      }
      Action action = decode(kind, body, location, file + " line " + lineNo);
      if (action != null) {
        actions.add(action);
      }
    }
    return actions;
  }

  /**
   * The sidecar files a V2 checkpoint in JSON names ({@code {"sidecar":{"path":...}}} lines), as
   * their paths relative to {@code _delta_log/_sidecars/}.
   */
  static List<String> sidecars(byte[] content) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : new String(content, StandardCharsets.UTF_8).split("\n")) {
      if (line.contains("\"sidecar\"")) {
        JsonNode sidecar = MAPPER.readTree(line).get("sidecar");
        if (sidecar != null && sidecar.isObject()) {
          out.add(requiredText(sidecar, "path"));
        }
      }
    }
    return out;
  }

  /** One action from its JSON body; null for a kind we skip. */
  static Action decode(String kind, JsonNode b, String location, String where) {
    try {
      return switch (kind) {
        case "add" -> decodeAdd(b, location, where);
        case "remove" ->
            new RemoveFile(
                path(b, location, where),
                optLong(b, "deletionTimestamp"),
                b.path("dataChange").asBoolean(true),
                b.path("extendedFileMetadata").asBoolean(false),
                stringMap(b.get("partitionValues")),
                optLong(b, "size"),
                deletionVector(b.get("deletionVector")),
                optLong(b, "baseRowId"),
                optLong(b, "defaultRowCommitVersion"));
        case "txn" ->
            new SetTransaction(
                requiredText(b, "appId"), requiredLong(b, "version"), optLong(b, "lastUpdated"));
        case "metaData" -> decodeMetadata(b);
        case "protocol" ->
            new Protocol(
                (int) requiredLong(b, "minReaderVersion"),
                (int) requiredLong(b, "minWriterVersion"),
                stringSet(b.get("readerFeatures")),
                stringSet(b.get("writerFeatures")));
        case "commitInfo" ->
            new CommitInfo(
                MAPPER.convertValue(
                    b,
                    MAPPER
                        .getTypeFactory()
                        .constructMapType(LinkedHashMap.class, String.class, Object.class)));
        case "domainMetadata" ->
            new DomainMetadata(
                requiredText(b, "domain"),
                requiredText(b, "configuration"),
                b.path("removed").asBoolean(false));
        default -> null; // cdc, checkpointMetadata, sidecar...: no effect on live files
      };
    } catch (IllegalArgumentException e) {
      throw TableErrors.badAction(location, where, kind + ": " + e.getMessage());
    }
  }

  private static AddFile decodeAdd(JsonNode b, String location, String where) {
    JsonNode stats = b.get("stats");
    return new AddFile(
        path(b, location, where),
        stringMap(b.get("partitionValues")),
        requiredLong(b, "size"),
        requiredLong(b, "modificationTime"),
        b.path("dataChange").asBoolean(true),
        stats == null || stats.isNull() ? null : stats.asText(),
        stringMap(b.get("tags")),
        deletionVector(b.get("deletionVector")),
        optLong(b, "baseRowId"),
        optLong(b, "defaultRowCommitVersion"));
  }

  /** A {@code deletionVector} object, or null when absent or null. */
  static DeletionVectorDescriptor deletionVector(JsonNode dv) {
    if (dv == null || dv.isNull()) {
      return null;
    }
    if (!dv.isObject()) {
      throw new IllegalArgumentException("field 'deletionVector' is not an object");
    }
    Long offset = optLong(dv, "offset");
    return new DeletionVectorDescriptor(
        DeletionVectorDescriptor.StorageType.ofCode(requiredText(dv, "storageType")),
        requiredText(dv, "pathOrInlineDv"),
        offset == null ? null : Math.toIntExact(offset),
        Math.toIntExact(requiredLong(dv, "sizeInBytes")),
        requiredLong(dv, "cardinality"));
  }

  private static Metadata decodeMetadata(JsonNode b) {
    JsonNode format = b.path("format");
    List<String> partitionColumns = new ArrayList<>(stringSetOrdered(b.get("partitionColumns")));
    Long created = optLong(b, "createdTime");
    return new Metadata(
        requiredText(b, "id"),
        optText(b, "name"),
        optText(b, "description"),
        new Metadata.Format(
            format.path("provider").asText("parquet"), nonNullMap(format.get("options"))),
        requiredText(b, "schemaString"),
        partitionColumns,
        nonNullMap(b.get("configuration")),
        created);
  }

  private static String path(JsonNode b, String location, String where) {
    String path = PathCodec.decode(requiredText(b, "path"));
    if (PathCodec.isAbsolute(path)) {
      throw TableErrors.unsupported(
          location,
          "the absolute file path '" + path + "' in " + where,
          "Tributary reads only tables whose files live under the table root.");
    }
    return path;
  }

  private static String requiredText(JsonNode b, String field) {
    JsonNode n = b.get(field);
    if (n == null || !n.isTextual()) {
      throw new IllegalArgumentException("field '" + field + "' is missing or not a string");
    }
    return n.asText();
  }

  private static String optText(JsonNode b, String field) {
    JsonNode n = b.get(field);
    return n == null || n.isNull() ? null : n.asText();
  }

  private static long requiredLong(JsonNode b, String field) {
    JsonNode n = b.get(field);
    if (n == null || !n.canConvertToLong()) {
      throw new IllegalArgumentException("field '" + field + "' is missing or not an integer");
    }
    return n.asLong();
  }

  private static Long optLong(JsonNode b, String field) {
    JsonNode n = b.get(field);
    return n == null || n.isNull() ? null : n.asLong();
  }

  private static Map<String, String> stringMap(JsonNode n) {
    Map<String, String> out = new LinkedHashMap<>();
    if (n != null && n.isObject()) {
      n.fields()
          .forEachRemaining(
              e -> out.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
    }
    return out;
  }

  private static Map<String, String> nonNullMap(JsonNode n) {
    Map<String, String> out = new LinkedHashMap<>();
    stringMap(n)
        .forEach(
            (k, v) -> {
              if (v != null) {
                out.put(k, v);
              }
            });
    return out;
  }

  private static Set<String> stringSet(JsonNode n) {
    return new HashSet<>(stringSetOrdered(n));
  }

  private static List<String> stringSetOrdered(JsonNode n) {
    List<String> out = new ArrayList<>();
    if (n != null && n.isArray()) {
      n.forEach(e -> out.add(e.asText()));
    }
    return out;
  }
}
