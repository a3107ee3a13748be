package dev.tributary.service.parse.debezium;

import java.util.Locale;

/** Every message of a Debezium event that cannot become a row, in one place. */
final class DebeziumErrors {
  private DebeziumErrors() {}

  static String noOp(String at) {
    return "Debezium change event: "
        + at
        + "op is missing or null; a change event has op c, u, d, r or t (is this topic written by"
        + " a Debezium connector, with envelope: debezium meant for it?)";
  }

  static String unknownOp(String at, String op) {
    return "Debezium change event: "
        + at
        + "op '"
        + op
        + "' is not one of c (create), u (update), d (delete), r (snapshot read), t (truncate)";
  }

  static String noAfter(String at, String op) {
    return "Debezium change event: "
        + at
        + "after is missing or null for op '"
        + op
        + "'; a create, update or snapshot read carries the new row in after";
  }

  static String noBefore(String at) {
    return "Debezium change event: "
        + at
        + "before is missing or null for op 'd', so the delete does not name its key (the source"
        + " table does not log old rows, e.g. PostgreSQL REPLICA IDENTITY NOTHING); set the"
        + " table's replica identity to DEFAULT or FULL (the tombstone that follows a delete still"
        + " deletes the key)";
  }

  static String truncate(String pipeline, String topic, int partition, long offset, String path) {
    return "Pipeline "
        + pipeline
        + ": "
        + topic
        + "/"
        + partition
        + " offset "
        + offset
        + " is a Debezium truncate event (op t): the source table was emptied, which this table"
        + " cannot follow row by row; to go on, set "
        + path
        + ".on-truncate: skip (the event is skipped and counted, the table keeps its rows), or"
        + " empty the table and restart the pipeline from a new snapshot";
  }

  static String skippedTruncate(String topic, int partition, long offset) {
    return String.format(
        Locale.ROOT,
        "truncate event at %s/%d offset %d (on-truncate: skip)",
        topic,
        partition,
        offset);
  }

  static String tombstone() {
    return "tombstone (a null value after a delete event: the delete event carries the change)";
  }
}
