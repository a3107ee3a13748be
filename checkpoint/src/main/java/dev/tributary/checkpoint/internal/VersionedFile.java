package dev.tributary.checkpoint.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.checkpoint.CorruptCheckpointException;
import java.nio.charset.StandardCharsets;

/**
 * The envelope of every checkpoint log file: a first line {@code v<N>} naming the format version,
 * then exactly one JSON object on one line, then a newline. Example:
 *
 * <pre>
 * v1
 * {"batchId":7,"plannedAt":"2026-11-29T08:00:00Z",...}
 * </pre>
 *
 * <p>Decoding never guesses: an empty or truncated file, a missing or unknown version, or anything
 * that is not exactly one JSON object is a {@link CorruptCheckpointException}.
 */
public final class VersionedFile {
  /** The only version this release writes and the highest it reads. */
  public static final int VERSION = 1;

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private VersionedFile() {}

  /** A fresh JSON object to fill in. */
  public static ObjectNode newObject() {
    return MAPPER.createObjectNode();
  }

  /** The file bytes for {@code body}. */
  public static byte[] encode(ObjectNode body) {
    try {
      return ("v" + VERSION + "\n" + MAPPER.writeValueAsString(body) + "\n")
          .getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize checkpoint entry " + body, e);
    }
  }

  /**
   * The JSON object of a file's bytes.
   *
   * @param location the checkpoint location, for messages
   * @param key the file's key, for messages
   */
  public static ObjectNode decode(String location, String key, byte[] data)
      throws CorruptCheckpointException {
    if (data.length == 0) {
      throw CheckpointErrors.corrupt(
          location, key, "the file is empty (0 bytes), probably left by a crash during a write");
    }
    String text = new String(data, StandardCharsets.UTF_8);
    int newline = text.indexOf('\n');
    if (newline < 0) {
      throw CheckpointErrors.corrupt(
          location, key, "the file ends inside its version header (truncated write?)");
    }
    int version = parseVersion(location, key, text.substring(0, newline));
    if (version > VERSION) {
      throw CheckpointErrors.corrupt(
          location,
          key,
          "format version v"
              + version
              + " is newer than v"
              + VERSION
              + ", the highest this release reads: written by a newer Tributary? Upgrade Tributary"
              + " to read this checkpoint");
    }
    String json = text.substring(newline + 1);
    if (!json.endsWith("\n")) {
      throw CheckpointErrors.corrupt(
          location, key, "the file does not end with a newline (truncated write?)");
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw CheckpointErrors.corrupt(
          location, key, "the content is not one JSON document: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw CheckpointErrors.corrupt(location, key, "the content is not a JSON object");
    }
    return (ObjectNode) node;
  }

  private static int parseVersion(String location, String key, String header)
      throws CorruptCheckpointException {
    if (header.length() >= 2
        && header.length() <= 10
        && header.charAt(0) == 'v'
        && header.substring(1).chars().allMatch(Character::isDigit)) {
      int version = Integer.parseInt(header.substring(1));
      if (version >= 1) {
        return version;
      }
    }
    String shown = header.length() > 40 ? header.substring(0, 40) + "..." : header;
    throw CheckpointErrors.corrupt(
        location,
        key,
        "the first line should be a format version like 'v1', found '" + shown + "'");
  }
}
