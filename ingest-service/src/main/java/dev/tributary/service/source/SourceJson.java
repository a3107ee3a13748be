package dev.tributary.service.source;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JSON the Kafka source writes into the offsets log's extras and the commits' {@code
 * commitInfo}: data gaps and topic ids. String-valued fields there hold JSON text, as the Delta
 * source's positions do.
 */
final class SourceJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SourceJson() {}

  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** JSON objects, each already written, as one array. */
  static String array(List<String> objects) {
    return "[" + String.join(",", objects) + "]";
  }

  /** Topic ids as a JSON object by topic name, sorted. */
  static String topicIds(Map<String, String> ids) {
    return write(new TreeMap<>(ids));
  }

  /**
   * The topic ids a {@link #topicIds} value holds; empty for none or for a value it cannot read (a
   * checkpoint written by an older version has none: the ids are then only recorded, not compared).
   */
  static Map<String, String> parseTopicIds(String json) {
    if (json == null || json.isBlank()) {
      return Map.of();
    }
    try {
      return Map.copyOf(MAPPER.readValue(json, new TypeReference<Map<String, String>>() {}));
    } catch (JsonProcessingException e) {
      return Map.of();
    }
  }
}
