package dev.tributary.service.demo;

import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaParseException;

/**
 * The compatibility levels of {@link LocalSchemaRegistry}, as Confluent defines them, checked with
 * Avro's reader/writer rules: BACKWARD (the new schema reads data written with the last one),
 * FORWARD (the last reads the new one's data), FULL (both); a {@code _TRANSITIVE} level checks
 * every earlier version, not only the last; NONE checks nothing.
 */
final class Compatibility {
  /** The levels a subject may have. */
  static final List<String> LEVELS =
      List.of(
          "NONE",
          "BACKWARD",
          "BACKWARD_TRANSITIVE",
          "FORWARD",
          "FORWARD_TRANSITIVE",
          "FULL",
          "FULL_TRANSITIVE");

  /** How a problem that is not a compatibility one starts: the schema does not parse. */
  static final String INVALID = "Invalid schema";

  private Compatibility() {}

  /**
   * Why {@code text} cannot be registered after {@code earlier} (oldest first) at {@code level}, in
   * the registry's words, or null when it can.
   */
  static String problem(String text, List<String> earlier, String level) {
    Schema candidate;
    try {
      candidate = new Schema.Parser().parse(text);
    } catch (SchemaParseException e) {
      return INVALID + ": " + e.getMessage();
    }
    if (level.equals("NONE") || earlier.isEmpty()) {
      return null;
    }
    List<String> checked =
        level.endsWith("_TRANSITIVE") ? earlier : List.of(earlier.get(earlier.size() - 1));
    boolean backward = level.startsWith("BACKWARD") || level.startsWith("FULL");
    boolean forward = level.startsWith("FORWARD") || level.startsWith("FULL");
    for (String old : checked) {
      Schema previous = new Schema.Parser().parse(old);
      if ((backward && !reads(candidate, previous)) || (forward && !reads(previous, candidate))) {
        return "Schema being registered is incompatible with an earlier schema for this subject"
            + " (compatibility "
            + level
            + ")";
      }
    }
    return null;
  }

  private static boolean reads(Schema reader, Schema writer) {
    return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
        == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE;
  }
}
