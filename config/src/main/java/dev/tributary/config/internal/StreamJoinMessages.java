package dev.tributary.config.internal;

import dev.tributary.config.StreamJoinType;
import java.util.Collection;

/**
 * The messages of stream-stream joins ({@code join[].stream}), in one place. Where Spark refuses a
 * query, the message quotes Spark's sentence (docs/STREAM_JOINS_SPARK_RULES.md gives the rule id)
 * and then says how to fix the pipeline; every message names the join ({@code join[0]}).
 */
final class StreamJoinMessages {

  private StreamJoinMessages() {}

  static String joinKind(boolean both) {
    return both
        ? "a join entry has either delta (a stream-static join with a Delta table) or stream (a"
            + " stream-stream join with a second input), not both"
        : "a join entry needs delta: { path: ... } (a Delta dimension table) or stream: { source:"
            + " ..., format: ..., prefix: ... } (a second stream)";
  }

  static String staticJoinWithTime(String join) {
    return join
        + " joins a Delta table (delta:), which matches on its keys only: time is the time"
        + " condition of a stream-stream join (stream:); remove time";
  }

  static String streamJoinWith(String join, String key) {
    return join
        + " is a stream-stream join: "
        + key
        + " belongs to a join with a Delta table (a stream join outputs every column of its input,"
        + " named prefix + column, and its state is bounded by time and watermarks); remove "
        + key;
  }

  static String leftAnti(String join) {
    return join
        + ": LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported"
        + " (Spark, rule J1); use inner, left, right, full or left-semi";
  }

  static String unknownMultiple(String text) {
    return "Could not recognize watermark policy '"
        + text.strip()
        + "': valid values are 'min' and 'max' (Spark's spark.sql.streaming.multipleWatermarkPolicy;"
        + " rule R6). min (default): the slower input holds the watermark back; max: the faster"
        + " input drives it";
  }

  static String multipleWithoutStreamJoin() {
    return "multiple chooses the global watermark among several inputs, but this pipeline has one"
        + " input (no join with stream:); remove multiple";
  }

  static String inputTransform(String join) {
    return "the second input of "
        + join
        + " has no transform of its own (not built yet, issue 25: its rows are joined as decoded);"
        + " remove transform";
  }

  static String oneStreamJoin(String join, String first) {
    return join
        + " is a second stream-stream join; a pipeline has at most one for now ("
        + first
        + " is one; issue 25): remove it, or chain two pipelines through a table";
  }

  static String streamJoinAfterStatic(String join, String staticJoin) {
    return staticJoin
        + " (a join with a Delta table) comes after the stream-stream join "
        + join
        + ", but a stream join applies to the main input after every stream-static join; list the"
        + " delta entries first";
  }

  static String badPrefix(String prefix) {
    return "prefix '"
        + prefix
        + "' is not a column name start; use letters, digits and _ (not starting with a digit),"
        + " e.g. p_";
  }

  static String prefixClash(String join, String column, String right) {
    return join
        + ": the second input's column "
        + right
        + " becomes "
        + column
        + " with the prefix, which the main input already has; choose another prefix";
  }

  static String inputTakesAllColumns(String join, String path) {
    return "the second input of "
        + join
        + " declares its columns: "
        + path
        + ".columns: all is not supported there (the join's keys and time columns are checked"
        + " against the schema); declare schema instead";
  }

  static String inputEnvelope(String join) {
    return "the second input of "
        + join
        + " is joined as appended rows: envelope debezium is not supported there; remove envelope";
  }

  static String unknownLeftKey(String join, String key, Collection<String> available) {
    return join
        + ": join key '"
        + key
        + "' is not a column of the main input; available: "
        + String.join(", ", available);
  }

  static String unknownRightKey(String join, String key, String right, Collection<String> schema) {
    return join
        + ": join key '"
        + key
        + "' needs the second input's column '"
        + key
        + "' (joined as "
        + right
        + "), which its schema does not declare; its columns: "
        + String.join(", ", schema);
  }

  static String keyTypes(String join, String key, String left, String right) {
    return join
        + ": join key '"
        + key
        + "' is "
        + left
        + " on the left but "
        + right
        + " on the right; the keys of a stream-stream join have the same types on both sides"
        + " (Spark, rule J4): declare them alike";
  }

  static String time(String join, String problem) {
    return join + ": time: " + problem;
  }

  static String timeNotTimestamp(String join, String column, String type) {
    return join
        + ": time compares '"
        + column
        + "', which is "
        + type
        + "; a time condition compares timestamp columns";
  }

  static String timeNotWatermark(String join, String side, String column, String watermark) {
    return join
        + ": time compares '"
        + column
        + "' of the "
        + side
        + " input, whose watermark is on '"
        + watermark
        + "'; compare the watermark columns, so that the condition can bound the state (ours,"
        + " stricter: Spark would derive no bound from another column)";
  }

  static String unknownInputColumn(String join, String column, Collection<String> schema) {
    return join
        + ": watermark column '"
        + column
        + "' is not a column of the second input; its columns: "
        + String.join(", ", schema);
  }

  static String inputWatermarkNotTimestamp(String join, String column, String type) {
    return join
        + ": watermark column '"
        + column
        + "' has type "
        + type
        + " but must be a timestamp; declare it as timestamp in the input's schema";
  }

  static String outputMode(String join, String mode) {
    String spark = mode.equals("update") ? "Update" : "Complete";
    return "Join between two streaming DataFrames/Datasets is not supported in "
        + spark
        + " output mode, only in Append output mode (Spark, rule R1; "
        + join
        + " is a stream-stream join); remove output-mode or set it to append";
  }

  static String outerWithoutBound(String join, StreamJoinType type, String fix) {
    return "Stream-stream "
        + type.sparkName()
        + " join between two streaming DataFrame/Datasets is not supported without a watermark in"
        + " the join keys, or a watermark on the nullable side and an appropriate range condition"
        + " (Spark, rule R2; "
        + join
        + " is type "
        + type.keyword()
        + "): "
        + fix;
  }

  static String outerSideWithoutWatermark(String join, StreamJoinType type, String side) {
    return join
        + " is a "
        + type.keyword()
        + " join, but the "
        + side
        + " input has no watermark: its unmatched rows would never be evicted, so never output with"
        + " nulls (Spark accepts this and never emits them; ours, stricter): declare "
        + (side.equals("left") ? "watermark" : join + ".stream.watermark");
  }

  static String deduplicateAfterJoin(String join) {
    return "More than one event time columns are available. Please ensure there is at most one event"
        + " time column per stream. (Spark, rule D2: after "
        + join
        + ", a join of two watermarked inputs, both event-time columns carry the watermark);"
        + " deduplicate after a stream-stream join needs one input without a watermark";
  }

  static String runningAggregateAfterJoin(String join) {
    return "Append output mode not supported when there are streaming aggregations on streaming"
        + " DataFrames/DataSets without watermark (Spark, rule R4; "
        + join
        + " allows append only): aggregate with a window on a watermark column";
  }

  static String windowColumn(String join, String window, Collection<String> watermarks) {
    return "the window is on '"
        + window
        + "' but after the stream-stream join "
        + join
        + " the event-time columns are "
        + String.join(" and ", watermarks)
        + "; in append mode a window must be on one of them";
  }

  static String groupAssignment(String join) {
    return "assignment: group is not supported with the stream-stream join "
        + join
        + " (issue 25, v1: both inputs are read by one instance); remove assignment";
  }

  static String continuous(String join) {
    return "trigger continuous is for stateless Kafka to Kafka pipelines; "
        + join
        + " is a stream-stream join, which runs in micro-batches: use processing-time or"
        + " available-now";
  }

  static String backfill(String join) {
    return "backfill is not supported with the stream-stream join "
        + join
        + " (issue 25, v1: a backfill reads one input by timestamp); remove backfill";
  }

  static String mainWatermarkOnRight(String join, String column) {
    return "with the stream-stream join "
        + join
        + ", watermark is the main input's (the left side's), but '"
        + column
        + "' is a column of the second input; declare the second input's watermark under "
        + join
        + ".stream.watermark (its column named without the prefix)";
  }
}
