package dev.tributary.config.internal;

import java.util.Collection;
import java.util.List;

/**
 * The messages of the sink and trigger rules ({@link SinkReader}, {@link SinkRules}): what is
 * wrong, why, and what to write instead.
 */
final class SinkMessages {
  private SinkMessages() {}

  static String sinkAndSinks() {
    return "declare either sink (one sink) or sinks (a list of sinks fed by the same batch), not"
        + " both";
  }

  static String noSinks() {
    return "sinks is empty; list at least one sink, e.g. sinks: [ { delta: { path:"
        + " s3://lake/bronze/events } } ]";
  }

  static String sinkKind(Collection<String> found) {
    return "declare exactly one kind of sink in each entry: delta, jdbc or kafka; found "
        + (found.isEmpty() ? "none" : String.join(", ", found))
        + " (several sinks: write sinks: [ {delta: …}, {kafka: …} ])";
  }

  static String badJdbcUrl(String url) {
    return "'" + url + "' is not a JDBC URL; write jdbc:postgresql://host:5432/database";
  }

  static String unsupportedDatabase(String url) {
    String kind = url.strip().split(":", 3).length > 1 ? url.strip().split(":", 3)[1] : url;
    return "the JDBC sink supports PostgreSQL only for now (jdbc:postgresql://…); '"
        + kind
        + "' is not supported yet";
  }

  static String badTableName(String table) {
    return "'"
        + table
        + "' is not a table name; write table or schema.table (each at most 63 characters, no"
        + " double quotes)";
  }

  static String avroWithoutRegistry() {
    return "value: avro needs a schema registry to register the value schema in; add registry: {"
        + " url: http://registry:8081 } beside it, or write value: json";
  }

  static String registryWithoutAvro(String value) {
    return "registry is only used by value: avro (the schema of an Avro value is registered"
        + " there); a "
        + value
        + " value has no schema to register: remove registry, or write value: avro";
  }

  static String twoDeltaSinks() {
    return "at most one Delta table among the sinks: compaction, vacuum and the quarantine's"
        + " default place belong to it; write the second table with a second pipeline";
  }

  static String duplicateSink(String location, int first) {
    return "this sink writes to "
        + location
        + " like sinks["
        + first
        + "]: a sink appears once in the list";
  }

  static String groupAssignment(String kind) {
    return "a "
        + kind
        + " sink cannot be written in consumer-group mode (source.kafka.assignment: group): group"
        + " mode keeps its progress in the Delta sink table's per-partition positions, which a "
        + kind
        + " sink does not have; use the default exclusive assignment";
  }

  static String completeMode(String kind) {
    return "output-mode complete rewrites the whole result every batch, which a "
        + kind
        + " sink cannot do atomically; use output-mode: update (each changed group is "
        + ("jdbc".equals(kind) ? "upserted by its key" : "sent again")
        + ")";
  }

  static String updateNeedsUpsert(List<String> keys) {
    return "output-mode update writes a group's changed aggregate every batch, so the table must"
        + " be upserted: write: upsert (its key defaults to "
        + keys
        + ")";
  }

  static String updateKey(List<String> declared, List<String> keys) {
    return "in output-mode update the key is the aggregation's key "
        + keys
        + ", not "
        + declared
        + "; remove key or write key: "
        + keys;
  }

  static String globalAggregateUpsert() {
    return "a global aggregation (no group-by, no window) has no key to upsert its row by; add"
        + " group-by columns, or write it to a Delta table";
  }

  static String upsertNeedsKey() {
    return "write: upsert needs the columns that identify a row: key: [order_id]";
  }

  static String keyWithoutUpsert() {
    return "key is only used by write: upsert; remove it, or write: upsert";
  }

  static String evolutionNeedsDelta(String kind) {
    return "schema-evolution adds columns to a Delta table; the "
        + kind
        + " sink's columns are fixed: remove schema-evolution or write to a Delta table only";
  }

  static String fromTableNeedsDelta() {
    return "starting-offsets: table continues after the offsets a Delta sink table recorded; this"
        + " pipeline writes no Delta table: use earliest, latest or a timestamp";
  }

  static String maintenanceNeedsDelta(String key) {
    return "maintenance."
        + key
        + " maintains a Delta sink table; this pipeline writes none: remove it";
  }

  static String continuousNeedsKafkaSource() {
    return "the continuous trigger reads Kafka records as they arrive; a Delta source is read in"
        + " batches: use trigger: { processing-time: 1s }";
  }

  static String continuousNeedsKafkaSinks(String kind) {
    return "the continuous trigger sends records to Kafka as they arrive; a "
        + kind
        + " sink commits per batch: use trigger: { processing-time: 1s }, or write only to"
        + " Kafka topics";
  }

  static String continuousStateless(String part) {
    return "the continuous trigger is for stateless pipelines (filters, derives, projections): "
        + part
        + " needs state and a watermark that move per batch; use trigger: { processing-time: 1s"
        + " }";
  }

  static String continuousJoins() {
    return "the continuous trigger cannot join: a dimension table is re-read per batch; use"
        + " trigger: { processing-time: 1s }";
  }

  static String continuousGroup() {
    return "the continuous trigger needs the default exclusive assignment (its progress is the"
        + " checkpoint's log); remove source.kafka.assignment: group";
  }

  static String continuousQuarantineLimit() {
    return "quarantine.max-fraction judges a whole batch before it commits; with the continuous"
        + " trigger records are sent as they arrive: remove max-fraction";
  }
}
