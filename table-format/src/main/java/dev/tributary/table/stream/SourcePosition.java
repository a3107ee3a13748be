package dev.tributary.table.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Comparator;
import java.util.Objects;

/**
 * A point in a Delta table's history, between two files a stream reads: the next file to read is
 * file {@code index} of {@code version}. Like Delta's {@code DeltaSourceOffset} (reservoirId,
 * reservoirVersion, index, isStartingVersion), with one difference: Delta's offset names the last
 * file read (the range start is exclusive), ours names the next one, so a range is the half-open
 * {@code [from, to)}; the information is the same.
 *
 * <p>Inside the initial snapshot ({@code initialSnapshot}), {@code index} counts the files live at
 * {@code version} sorted by modification time, then path (Delta's {@code DeltaSourceSnapshot}
 * order). Otherwise it counts the {@code add} actions with {@code dataChange: true} of commit
 * {@code version}, in the commit's order (Delta's {@code filterAndGetIndexedFiles}). The position
 * after the last file of a version is {@code (version + 1, 0)}, as Delta bumps the offset to the
 * next version after a version's last file.
 *
 * <p>Ordering: by version, then a snapshot position before a commit position of the same version,
 * then by index. A stream never mixes a snapshot position and a commit position of the same
 * version: the snapshot at {@code v} already holds commit {@code v}, the changes start at {@code v
 * + 1}.
 *
 * @param tableId the table's id ({@code metaData.id}); a position of another table is refused, as
 *     Delta refuses an offset whose reservoirId differs
 * @param version the table version, {@code >= 0}
 * @param index the file index within that version, {@code >= 0}
 * @param initialSnapshot true while reading the snapshot at {@code version}
 */
public record SourcePosition(String tableId, long version, long index, boolean initialSnapshot)
    implements Comparable<SourcePosition> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Comparator<SourcePosition> ORDER =
      Comparator.comparingLong(SourcePosition::version)
          .thenComparing(p -> !p.initialSnapshot())
          .thenComparingLong(SourcePosition::index);

  public SourcePosition {
    Objects.requireNonNull(tableId, "tableId");
    if (version < 0 || index < 0) {
      throw new IllegalArgumentException(
          "A source position needs a version and an index >= 0, not " + version + "/" + index);
    }
  }

  /** The start of the changes of {@code version}: its first data-changing file. */
  public static SourcePosition commitStart(String tableId, long version) {
    return new SourcePosition(tableId, version, 0, false);
  }

  /** The start of the snapshot at {@code version}. */
  public static SourcePosition snapshotStart(String tableId, long version) {
    return new SourcePosition(tableId, version, 0, true);
  }

  /** The same version, another index. */
  SourcePosition withIndex(long newIndex) {
    return new SourcePosition(tableId, version, newIndex, initialSnapshot);
  }

  /**
   * The small JSON form stored in an offsets log, e.g. {@code
   * {"tableId":"…","version":12,"index":0,"initialSnapshot":false}}.
   */
  public String toJson() {
    ObjectNode node = JSON.createObjectNode();
    node.put("tableId", tableId);
    node.put("version", version);
    node.put("index", index);
    node.put("initialSnapshot", initialSnapshot);
    return node.toString();
  }

  /**
   * Parses {@link #toJson()}'s form.
   *
   * @throws IllegalArgumentException naming the text if it is not a position
   */
  public static SourcePosition fromJson(String json) {
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw SourceErrors.badPosition(json, "it is not JSON (" + e.getOriginalMessage() + ")");
    }
    if (node == null
        || !node.isObject()
        || !node.path("tableId").isTextual()
        || !node.path("version").canConvertToExactIntegral()
        || !node.path("index").canConvertToExactIntegral()
        || !node.path("initialSnapshot").isBoolean()) {
      throw SourceErrors.badPosition(
          json,
          "it needs a string tableId, integer version and index, and boolean initialSnapshot");
    }
    try {
      return new SourcePosition(
          node.get("tableId").asText(),
          node.get("version").asLong(),
          node.get("index").asLong(),
          node.get("initialSnapshot").asBoolean());
    } catch (IllegalArgumentException e) {
      throw SourceErrors.badPosition(json, e.getMessage());
    }
  }

  @Override
  public int compareTo(SourcePosition other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return (initialSnapshot ? "snapshot v" : "v") + version + "#" + index;
  }
}
