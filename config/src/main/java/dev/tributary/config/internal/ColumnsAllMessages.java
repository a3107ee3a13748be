package dev.tributary.config.internal;

/** The messages of {@code columns: all}'s checks ({@link ColumnsAllChecks}). */
final class ColumnsAllMessages {
  private ColumnsAllMessages() {}

  static String notRouted(String pipeline) {
    return "pipeline "
        + pipeline
        + ": columns: all needs one routed Delta sink (sink.delta.path ending in /{route}, with"
        + " route: _kafka_topic for one table per topic): each table is created with the columns of"
        + " its first record's writer schema and follows its own schema changes, which one fixed"
        + " table, a JDBC or Kafka sink, or several sinks cannot. For a single topic, route by"
        + " _kafka_topic too (it lands in <folder>/<topic>)";
  }

  static String withQueryPart(String pipeline, String part) {
    return "pipeline "
        + pipeline
        + ": "
        + part
        + " cannot be used with columns: all, whose columns differ per writer schema and are known"
        + " only when records arrive; land the topics with a stateless pipeline (bronze), then "
        + part
        + " from the landed tables with a Delta source";
  }

  static String keyRequired() {
    return Messages.upsertKeyRequired();
  }
}
