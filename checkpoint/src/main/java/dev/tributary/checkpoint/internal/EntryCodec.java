package dev.tributary.checkpoint.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.checkpoint.CheckpointMetadata;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.CorruptCheckpointException;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * JSON mapping of the three log entry kinds, written by hand (not by reflection) so that the file
 * format is fixed by this class and documented in {@code docs/CHECKPOINT_FORMAT.md}, whatever the
 * records' Java shape becomes. Optional numbers are omitted when empty.
 */
public final class EntryCodec {
  private EntryCodec() {}

  public static byte[] encode(OffsetsEntry e) {
    ObjectNode root = VersionedFile.newObject();
    root.put("batchId", e.batchId());
    root.put("plannedAt", e.plannedAt().toString());
    e.watermarkMicros().ifPresent(w -> root.put("watermarkMicros", w));
    e.lateWatermarkMicros().ifPresent(w -> root.put("lateWatermarkMicros", w));
    ArrayNode ranges = root.putArray("ranges");
    e.ranges()
        .forEach(
            (p, r) ->
                ranges
                    .addObject()
                    .put("topic", p.topic())
                    .put("partition", p.partition())
                    .put("start", r.start())
                    .put("end", r.end()));
    putStrings(root, "extras", e.extras());
    return VersionedFile.encode(root);
  }

  public static OffsetsEntry decodeOffsets(String location, String key, byte[] data)
      throws CorruptCheckpointException {
    JsonFields f = new JsonFields(location, key, VersionedFile.decode(location, key, data));
    long batchId = f.longValue("batchId");
    Map<SourcePartition, OffsetRange> ranges = new LinkedHashMap<>();
    int i = 0;
    for (JsonNode element : f.array("ranges")) {
      JsonFields r = f.nested("ranges[" + i++ + "]", element);
      SourcePartition partition;
      OffsetRange range;
      try {
        partition = new SourcePartition(r.text("topic"), r.intValue("partition"));
        range = new OffsetRange(r.longValue("start"), r.longValue("end"));
      } catch (IllegalArgumentException invalid) {
        throw r.invalid("range", invalid);
      }
      if (ranges.put(partition, range) != null) {
        throw r.error("topic", "repeats partition " + partition);
      }
    }
    OptionalLong watermark = f.optionalLong("watermarkMicros");
    OptionalLong late = f.optionalLong("lateWatermarkMicros");
    try {
      return new OffsetsEntry(
          batchId,
          ranges,
          watermark,
          late.isPresent() ? late : watermark, // written before the field existed: the same one
          f.instant("plannedAt"),
          f.stringMap("extras"));
    } catch (IllegalArgumentException invalid) {
      throw f.invalid("offsets entry", invalid);
    }
  }

  public static byte[] encode(CommitEntry e) {
    ObjectNode root = VersionedFile.newObject();
    root.put("batchId", e.batchId());
    root.put("committedAt", e.committedAt().toString());
    e.nextWatermarkMicros().ifPresent(w -> root.put("nextWatermarkMicros", w));
    putStrings(root, "extras", e.extras());
    return VersionedFile.encode(root);
  }

  public static CommitEntry decodeCommit(String location, String key, byte[] data)
      throws CorruptCheckpointException {
    JsonFields f = new JsonFields(location, key, VersionedFile.decode(location, key, data));
    try {
      return new CommitEntry(
          f.longValue("batchId"),
          f.optionalLong("nextWatermarkMicros"),
          f.instant("committedAt"),
          f.stringMap("extras"));
    } catch (IllegalArgumentException invalid) {
      throw f.invalid("commit entry", invalid);
    }
  }

  public static byte[] encode(CheckpointMetadata m) {
    ObjectNode root = VersionedFile.newObject();
    root.put("formatVersion", m.formatVersion());
    root.put("version", m.version());
    root.put("pipelineId", m.pipelineId());
    root.put("createdAt", m.createdAt().toString());
    root.put("writtenAt", m.writtenAt().toString());
    putStrings(root, "identity", m.identity());
    m.checkpointId().ifPresent(id -> root.put("checkpointId", id));
    return VersionedFile.encode(root);
  }

  public static CheckpointMetadata decodeMetadata(String location, String key, byte[] data)
      throws CorruptCheckpointException {
    JsonFields f = new JsonFields(location, key, VersionedFile.decode(location, key, data));
    try {
      return new CheckpointMetadata(
          f.intValue("formatVersion"),
          f.longValue("version"),
          f.text("pipelineId"),
          f.instant("createdAt"),
          f.instant("writtenAt"),
          f.stringMap("identity"),
          f.optionalText("checkpointId"));
    } catch (IllegalArgumentException invalid) {
      throw f.invalid("metadata", invalid);
    }
  }

  private static void putStrings(ObjectNode root, String field, Map<String, String> values) {
    ObjectNode node = root.putObject(field);
    values.forEach(node::put);
  }
}
