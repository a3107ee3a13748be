package dev.tributary.config.internal;

import java.util.Collection;
import java.util.List;

/** Every user-facing message of the parser and validator, so their wording stays consistent. */
final class Messages {

  private Messages() {}

  static String unsetVariable(String name) {
    return "environment variable "
        + name
        + " is not set; set it, or give a default like ${"
        + name
        + ":-value}";
  }

  static String malformedReference(String text) {
    return "malformed environment reference in '"
        + text
        + "'; write ${NAME} or ${NAME:-default} (NAME made"
        + " of letters, digits and _), or $${...} for a literal ${...}";
  }

  static String cronFieldCount(String expression, int count) {
    return "schedule '"
        + expression
        + "' has "
        + count
        + " fields but needs 6 (second minute hour"
        + " day-of-month month day-of-week), like \"0 0 3 * * *\" for 03:00 every day"
        + (count == 5 ? "; a Unix cron expression lacks the leading seconds field" : "");
  }

  static String cronField(String expression, String field) {
    return "schedule '"
        + expression
        + "' has an invalid field '"
        + field
        + "'; fields use digits, names, * ? / , - # only, like \"0 0 3 * * *\"";
  }

  static String unknownKey(
      String key, String suggestion, List<String> valid, List<String> elsewhere) {
    String text = "unknown key '" + key + "'";
    if (suggestion != null) {
      return text + "; did you mean '" + suggestion + "'?";
    }
    if (!elsewhere.isEmpty()) {
      return text
          + " here; it belongs under "
          + String.join(
              " or ",
              elsewhere.stream().map(s -> s.isEmpty() ? "the top level" : "'" + s + "'").toList());
    }
    return text + "; valid keys here are " + String.join(", ", valid);
  }

  static String duplicateKey(String key, int firstLine) {
    return "duplicate key '" + key + "' (first declared on line " + firstLine + "); keep only one";
  }

  static String missingKey(String key, String example) {
    return "missing required key '" + key + "'; add it, for example " + example;
  }

  static String noValue() {
    return "this key has no value; give one or remove the key";
  }

  static String expected(String what, String found) {
    return "expected " + what + ", found " + found;
  }

  static String notWholeNumber(String text) {
    return "cannot parse '" + text + "' as a whole number; write digits only, like 500000";
  }

  static String tooSmall(String text, long min) {
    return "'" + text + "' is too small; the minimum is " + min;
  }

  static String badFraction(String text) {
    return "cannot use '"
        + text
        + "' as a fraction; write a number above 0 and at most 1, e.g. 0.05 (5% of a"
        + " batch's records)";
  }

  static String evolutionWithState(String part) {
    return "schema-evolution works for stateless pipelines only: this pipeline declares "
        + part
        + ", whose output columns (and state) are fixed by the declaration, so neither a new input column nor"
        + " _rescued_data could reach the table. Declare the new field in format.json.schema instead, or"
        + " ingest the raw records with a stateless pipeline that has schema-evolution";
  }

  static String evolutionNeedsRecords() {
    return "schema-evolution applies to decoded records (a Kafka source with a format); a Delta source's rows"
        + " already have the source table's schema. Remove the section";
  }

  static String rescuedColumnTaken(String where) {
    return "the column name _rescued_data is reserved by schema-evolution.rescue: true; rename the "
        + where
        + " or set rescue: false";
  }

  static String notBoolean(String text) {
    return "cannot parse '" + text + "' as a boolean; write true or false";
  }

  static String notPositive(String what) {
    return what + " must be greater than zero";
  }

  static String empty(String what) {
    return what + " cannot be empty";
  }

  static String oneOf(String what, Collection<String> choices) {
    return "unknown " + what + "; use one of " + String.join(", ", choices);
  }

  static String emptyFile() {
    return "the file is empty; a pipeline needs at least the keys pipeline, source, format, sink and"
        + " checkpoint (see docs/PIPELINE_REFERENCE.md)";
  }

  static String multipleDocuments() {
    return "the file holds more than one YAML document (a second '---'); declare one pipeline per file";
  }

  static String syntax(String problem) {
    return "invalid YAML: " + problem + "; check the indentation and quoting at this position";
  }

  static String unreadable(String reason) {
    return "cannot read the pipeline file (" + reason + "); check the path and permissions";
  }

  static String invalidId(String id) {
    return "pipeline id '"
        + id
        + "' may only contain lower-case letters, digits and '-', like orders-hourly";
  }

  static String idTooLong(String id, int max) {
    return "pipeline id '"
        + id
        + "' has "
        + id.length()
        + " characters, more than the limit of "
        + max
        + " (the id names the pipeline's folders, Kafka consumer group and metric tags); choose a shorter id,"
        + " like orders-hourly";
  }

  static String topicsAndPattern() {
    return "declare either topics or topic-pattern, not both";
  }

  static String noTopics() {
    return "missing topics; add topics: [name, ...] or topic-pattern: \"regex\"";
  }

  static String twoSources() {
    return "a pipeline reads one source: declare either source.kafka or source.delta, not both";
  }

  static String noSource() {
    return "declare the source: source: { kafka: { bootstrap-servers: localhost:9092, topics: [orders] } }"
        + " or source: { delta: { path: s3://lake/bronze/events } }";
  }

  static String sourceOverlapsOwnLocation(String source, String key, String text) {
    return "the source table '"
        + source
        + "' overlaps the "
        + key
        + " location '"
        + text
        + "': a pipeline"
        + " cannot read what it writes (each batch would read the previous batch's output again); read another"
        + " table, or move the "
        + key
        + " location";
  }

  static String formatWithDeltaSource() {
    return "a Delta source's rows are already typed: the source table's schema is the input schema;"
        + " remove the format section";
  }

  static String badPattern(String regex, String reason) {
    return "topic-pattern '" + regex + "' is not a valid regular expression: " + reason;
  }

  static String columnConflict(String parent, String child) {
    return "column '"
        + parent
        + "' cannot be both a value and the parent of '"
        + child
        + "'; declare only the nested fields you need";
  }

  static String badColumnName(String name) {
    return "column name '"
        + name
        + "' has an empty path segment; write nested fields like customer.id";
  }

  static String badDerivedName(String role, String name) {
    return role
        + " name '"
        + name
        + "' must start with a letter or _ and contain only letters,"
        + " digits and _";
  }

  static String transformStep(Collection<String> found) {
    return "each transform step must have exactly one key, filter or derive, found "
        + (found.isEmpty() ? "none" : String.join(", ", found));
  }

  static String windowKind() {
    return "declare either size (tumbling, with optional slide for sliding) or session-gap, not both";
  }

  static String windowMissing() {
    return "the window needs a size (tumbling or sliding) or a session-gap; add size: 1 hour";
  }

  static String slideWithoutSize() {
    return "slide applies to sliding windows; it needs a size and cannot go with session-gap";
  }

  static String slideLargerThanSize(String slide, String size) {
    return "slide "
        + slide
        + " is larger than the window size "
        + size
        + "; windows would leave gaps and drop the events between them. Use a slide at most the size";
  }

  static String sizeNotMultipleOfSlide(String size, String slide) {
    return "window size "
        + size
        + " is not a multiple of the slide "
        + slide
        + ", so events would fall into a varying number of windows and windows would not align with"
        + " slide boundaries; choose a slide that divides the size (e.g. 15 minutes for 1 hour)";
  }

  static String formatKind(Collection<String> found) {
    return "declare exactly one format: { json: { schema: ... } }, { avro: { registry: ..., schema: ... } } or"
        + " { protobuf: { message: ..., registry: ..., schema: ... } }; found "
        + (found.isEmpty() ? "none" : String.join(", ", found));
  }

  static String keyColumnClash(String column, String section) {
    return "key column '"
        + column
        + "' has the same top-level name as a column of "
        + section
        + ".schema;"
        + " rename one of them: key and value columns share the row";
  }

  static String badRegistryUrl(String url) {
    // A URL with user info may hold a password: it is not echoed then.
    String shown = url.contains("@") ? "" : " '" + url + "'";
    return "registry url"
        + shown
        + " is not an http(s) URL without credentials; write it like"
        + " http://localhost:8081 and put credentials in basic-auth or bearer-token";
  }

  static String badBasicAuth() {
    return "basic-auth must be written user:password (for example \"${SR_USER}:${SR_PASSWORD}\")";
  }

  static String twoRegistryAuths() {
    return "declare either basic-auth or bearer-token, not both";
  }

  static String triggerKind(Collection<String> found) {
    return "declare exactly one trigger: { processing-time: 30s }, { available-now: true },"
        + " { once: true } or { continuous: 1s }; found "
        + (found.isEmpty() ? "none" : String.join(", ", found));
  }

  static String triggerFalse(String key) {
    return key
        + ": false selects no trigger; remove the trigger section for the default"
        + " (processing-time: 10s) or choose another trigger";
  }

  static String keysTogether() {
    return "access-key and secret-key must be given together (or neither, for the default credential chain)";
  }

  static String badEndpoint(String endpoint) {
    return "endpoint '" + endpoint + "' is not an http(s) URL; write it like http://localhost:9000";
  }

  static String unknownColumn(
      String role, String column, Collection<String> available, String suggestion) {
    return role
        + " '"
        + column
        + "' is not a column of the pipeline"
        + (suggestion != null
            ? "; did you mean '" + suggestion + "'?"
            : "; available columns: " + String.join(", ", available));
  }

  static String notTimestamp(String role, String column, String type) {
    return role
        + " '"
        + column
        + "' has type "
        + type
        + " but must be a timestamp; declare it as"
        + " timestamp in format.json.schema";
  }

  static String duplicateColumn(String role, String column) {
    return role + " lists '" + column + "' twice; list each column once";
  }

  static String joinPicksKey(String column) {
    return "'"
        + column
        + "' is a join key: the output keeps the stream's value of it; remove it from columns";
  }

  static String joinColumnClash(String column, String owner) {
    return "dimension column '"
        + column
        + "' clashes with the column of the same name "
        + (owner.equals("the stream") ? "the stream already has" : "that " + owner + " adds")
        + "; remove it from columns, or rename the stream's column with a derive step";
  }

  static String measureClash(String name) {
    return "measure name '"
        + name
        + "' is already an output column (window_start, window_end or a"
        + " group-by column); rename the measure";
  }

  static String keyedByNeedsGroupStateful(String pipeline, String why) {
    return "pipeline "
        + pipeline
        + ": keyed-by lets a stateful pipeline with assignment: group read each source"
        + " partition's state directly instead of through the repartition topic, but "
        + why
        + "; remove keyed-by (see docs/PIPELINE_REFERENCE.md, \"keyed-by\")";
  }

  static String groupAssignmentNeedsAppend(String pipeline, String mode) {
    return "pipeline "
        + pipeline
        + ": output-mode "
        + mode
        + " is not supported with assignment: group: the"
        + " instances own different keys, and an "
        + mode
        + " of the sink by one of them would rewrite rows or"
        + " files of the others; use output-mode append, or assignment: exclusive (one instance reads every"
        + " partition)";
  }

  static String groupStatefulStartsFromGroupOffsets(String pipeline) {
    return "pipeline "
        + pipeline
        + ": starting-offsets: table is not supported for a stateful pipeline with"
        + " assignment: group: its sink table holds the positions of the repartition topic, not of the source;"
        + " the source's progress is the consumer group's committed offsets. Use earliest, latest or a timestamp";
  }

  static String groupAssignmentNeedsGlobalWatermark(String pipeline) {
    return "pipeline "
        + pipeline
        + ": watermark.policy per-partition is not supported with assignment: group:"
        + " the source partitions are read by different instances and their rows mixed in the repartition"
        + " topic, so the instances agree on one watermark (the slowest repartition partition's); remove"
        + " watermark.policy";
  }

  static String appendNeedsWatermark() {
    return "output-mode append with an aggregation needs a watermark on the window column, so that a"
        + " window is written once it can no longer change; add watermark: { column: ..., delay: ... }"
        + " or use output-mode update or complete";
  }

  static String appendWithRunningAggregate() {
    return "output-mode append (the default) cannot write an aggregation without a window: a running"
        + " aggregation's rows change with every new event and are never final, so there is no time at"
        + " which a row could be written once (Spark refuses it too: append needs a watermark on a"
        + " window). Declare output-mode: update (the table is merged by the group-by columns each batch)"
        + " or output-mode: complete (the whole result is rewritten each batch), or add a window";
  }

  static String appendWatermarkColumn(String window, String watermark) {
    return "the window is on '"
        + window
        + "' but the watermark is on '"
        + watermark
        + "'; in append mode"
        + " windows are only written when the watermark passes their end, so both must use the same column";
  }

  static String completeNeedsAggregate() {
    return "output-mode complete rewrites the whole result each batch and needs an aggregate section;"
        + " use append for pipelines without aggregation";
  }

  static String modeWithDeduplicateOnly(String mode) {
    return "output-mode "
        + mode
        + " is not supported for a deduplication without aggregation (each row"
        + " is written once); use output-mode append";
  }

  static String withinWatermarkNeedsWatermark() {
    return "within-watermark deduplication needs a watermark; add watermark: { column: ..., delay: ... }"
        + " or remove within-watermark";
  }

  static String sameLocation(
      String key,
      String text,
      String otherKey,
      String otherText,
      String canonical,
      String sibling) {
    return "the "
        + key
        + " location '"
        + text
        + "' is the same place as the "
        + otherKey
        + " location '"
        + otherText
        + "' (both are "
        + canonical
        + "); "
        + ownFolder(sibling);
  }

  static String nestedLocation(
      String key, String text, String outerKey, String outerText, String reason, String sibling) {
    return "the "
        + key
        + " location '"
        + text
        + "' is inside the "
        + outerKey
        + " location '"
        + outerText
        + "': "
        + reason
        + "; "
        + ownFolder(sibling);
  }

  private static String ownFolder(String sibling) {
    return "give each its own folder, side by side rather than one inside the other, for example "
        + sibling;
  }

  static String crossPipeline(
      String key,
      String text,
      String relation,
      String otherId,
      String otherFile,
      String otherKey,
      String otherText) {
    return "its "
        + key
        + " '"
        + text
        + "' "
        + relation
        + " the "
        + otherKey
        + " '"
        + otherText
        + "' of pipeline "
        + otherId
        + " ("
        + otherFile
        + ")";
  }

  static String sharedAcrossPipelines(String id, String file, List<String> conflicts) {
    return "Pipeline "
        + id
        + " ("
        + file
        + ") shares storage with another pipeline of the folder: "
        + String.join("; ", conflicts)
        + ". Every table and checkpoint belongs to exactly one pipeline, so that"
        + " one pipeline's vacuum, rewrite or checkpoint reset never touches another's files (to write several"
        + " topics into one table, list them in one pipeline). Give each pipeline its own locations, side by"
        + " side, and restart the service.";
  }

  static String badTopic(String name) {
    return "'"
        + name
        + "' is not a valid Kafka topic name; use 1 to 249 letters, digits, '.', '_' or '-'";
  }

  static String tooLarge(String text, long max) {
    return "'" + text + "' is too large; the maximum is " + max;
  }

  static String retentionBelowFloor(String retention, String floor) {
    return "vacuum retention "
        + retention
        + " is under the minimum of "
        + floor
        + ": vacuum deletes every file"
        + " no snapshot references once it is older than the retention, including Parquet files a running"
        + " batch has written but not committed yet and files an older snapshot a reader still scans uses."
        + " Use a retention of at least "
        + floor
        + ", or, if no batch or read ever takes longer than the"
        + " retention, set maintenance.vacuum.retention-check: false";
  }

  // --- write: upsert (issue 22) ---

  static String upsertKeyOnAppend(String key) {
    return key
        + " applies to write: upsert, but this sink appends (write: append is the default), where it"
        + " would be ignored; add write: upsert with key: [<key columns>], or remove "
        + key;
  }

  static String upsertWithState(String pipeline, String part) {
    return "pipeline "
        + pipeline
        + " declares "
        + part
        + ", but write: upsert is for stateless pipelines (each row is the new value of its key);"
        + " an aggregation already merges its results by key with output-mode: update, so remove"
        + " write: upsert (and its keys) or the "
        + part
        + " section";
  }

  static String upsertWithOutputMode(String mode) {
    return "output-mode "
        + mode
        + " is for aggregations; write: upsert merges the rows of a stateless pipeline by key."
        + " Remove output-mode (or set it to append)";
  }

  static String upsertInGroupMode(String pipeline) {
    return "pipeline "
        + pipeline
        + " shares its partitions (assignment: group), but write: upsert needs one writer per table:"
        + " two instances merging into one table would rewrite each other's files. Use assignment:"
        + " exclusive, or write: append";
  }

  static String historyWithDeletionVectors() {
    return "merge-strategy: deletion-vectors does not apply to history: scd2, whose merges close"
        + " each replaced version by rewriting it; remove merge-strategy (copy-on-write), or"
        + " remove history: scd2 to keep one current row per key";
  }

  static String historyWithoutSequence() {
    return "history: scd2 needs sequence-by naming a timestamp column: each version is valid from"
        + " its change's sequence-by value (_valid_from) to the next change's (_valid_to); add e.g."
        + " sequence-by: _source_ts (envelope: debezium: the time of the change in the database)"
        + " or sequence-by: _kafka_timestamp (the record's timestamp)";
  }

  static String historySequenceNotTimestamp(String column, String type) {
    return "sequence-by column '"
        + column
        + "' is a "
        + type
        + ", but history: scd2 takes each version's _valid_from and _valid_to from it, which are"
        + " timestamps; use a timestamp column (e.g. _source_ts with envelope: debezium, or"
        + " _kafka_timestamp), or derive one (derive: { changed_at: \"CAST(changed_ms AS"
        + " timestamp)\" })";
  }

  static String historyColumnTaken(String column) {
    return "history: scd2 adds the column '"
        + column
        + "' (with _valid_from, _valid_to, _is_current), but the output already has a column of"
        + " that name; rename it (select or derive another name), or remove history: scd2";
  }

  static String truncateWithoutEnvelope() {
    return "on-truncate applies to envelope: debezium, but this format has no envelope (envelope:"
        + " none is the default), where it would be ignored; add envelope: debezium, or remove"
        + " on-truncate";
  }

  static String envelopeColumnTaken(String column) {
    return "column '"
        + column
        + "' is added by envelope: debezium (_op: the operation c/u/d/r, _source_ts: the time of"
        + " the change in the database); rename the declared column";
  }

  static String envelopeFieldDeclared(String column, String rowColumn) {
    return "with envelope: debezium the schema declares the row's columns, which are read from the"
        + " event's after (before for a delete), not the event's fields; declare '"
        + rowColumn
        + "' instead of '"
        + column
        + "'";
  }

  static String envelopeOnProtobuf() {
    return "envelope: debezium is not available for protobuf: Debezium change events are read from"
        + " JSON (format.json) or Avro (format.avro); configure the connector with the JSON or Avro"
        + " converter, or remove envelope";
  }

  static String envelopeWithEvolution() {
    return "schema-evolution is not available with envelope: debezium yet; declare every column of"
        + " the table in the format's schema";
  }

  static String upsertWithEvolution() {
    return "schema-evolution is not available with write: upsert yet; declare every column in the"
        + " format's schema, or write: append";
  }

  static String unorderableSequence(String column, String type) {
    return "sequence-by column '"
        + column
        + "' is a "
        + type
        + ", which cannot order the changes of a key; use an int, long, timestamp or date column"
        + " (derive one, e.g. derive: { version: \"CAST(version_text AS long)\" })";
  }

  static String nestedUpsertKey(String role, String column) {
    return role
        + " '"
        + column
        + "' is a nested field; a key or sequence column must be a top-level column (derive one,"
        + " e.g. derive: { id: \""
        + column
        + "\" })";
  }

  static String columnsNotAll(String found) {
    return "columns takes only all (every field of each record's writer schema), got '"
        + found
        + "'; to pick columns, declare them under schema instead";
  }

  static String columnsAllWithDeclared(String key) {
    return key
        + " cannot be declared with columns: all, which takes every field of each record's writer"
        + " schema; remove "
        + key
        + ", or remove columns: all to declare the columns";
  }

  static String upsertKeyRequired() {
    return missingKey("key", "key: [customer_id]");
  }
}
