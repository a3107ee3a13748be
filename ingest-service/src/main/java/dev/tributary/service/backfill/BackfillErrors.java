package dev.tributary.service.backfill;

import dev.tributary.config.OutputMode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Every message a backfill refuses with: what, why, and how to go on. */
final class BackfillErrors {
  private BackfillErrors() {}

  static String emptyRange(Instant from, Instant to) {
    return "Cannot backfill: --to "
        + to
        + " is not after --from "
        + from
        + "; the range [from, to) holds the events with from <= event time < to, so give a --to"
        + " later than --from.";
  }

  static String badInstant(String option, String text) {
    return "Cannot backfill: "
        + option
        + " '"
        + text
        + "' is not an instant; write it in UTC like 2026-11-01T00:00:00Z.";
  }

  static String notOneDeltaSink(String pipeline, List<String> sinks) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": it writes "
        + sinks
        + ", and a backfill writes exactly one Delta table (its rows are compared with and"
        + " swapped into a Delta table; a topic or a database table has no range to replace);"
        + " declare a single delta sink for the backfill.";
  }

  static String routed(String pipeline) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": its Delta sink routes rows to many tables (sink.delta.route), which a backfill does"
        + " not support yet: each routed table would need its own range.";
  }

  static String upsert(String pipeline) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": its Delta sink upserts by key (write: upsert), and a table of current rows per key"
        + " has no event-time range to recompute; backfill an append pipeline (such as the bronze"
        + " table the upsert reads) instead.";
  }

  static String runningAggregation(String pipeline) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": it aggregates without a window, so every output row depends on all events ever read,"
        + " not on a time range; only windowed aggregations and pipelines without aggregation can"
        + " be backfilled.";
  }

  static String sessionWindow(String pipeline) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": it aggregates in session windows, whose bounds depend on events outside any range (a"
        + " session reaching into the range from before it would come out cut short); only"
        + " tumbling and sliding windows can be backfilled.";
  }

  static String notAppendMode(String pipeline, OutputMode mode) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": its windowed aggregation writes in output-mode "
        + mode.keyword()
        + ", and a backfill writes each window once, final (output-mode append).";
  }

  static String noEventTime(String pipeline) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": it declares no event-time column, so no row can be placed in a time range; declare"
        + " watermark: { column: <event-time column>, delay: ... } in the pipeline file.";
  }

  static String eventTimeNotInOutput(String pipeline, String column) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": its event-time column '"
        + column
        + "' (watermark.column) is not among the output columns, so the rows written cannot be"
        + " kept to the range; keep the column in the output.";
  }

  static String targetIsLive(String pipeline, String target) {
    return "Cannot backfill pipeline "
        + pipeline
        + " into "
        + target
        + ": that is the live pipeline's own table; --into writes a new table (compare it with"
        + " tributary compare, then switch readers).";
  }

  static String targetInsideLive(String pipeline, String target, String live) {
    return "Cannot backfill pipeline "
        + pipeline
        + " into "
        + target
        + ": it lies inside the live table "
        + live
        + ", whose vacuum would take its files for orphans; give --into a path beside the live"
        + " table (--replace is the way to rewrite the live table's range).";
  }

  static String targetNotEmpty(String pipeline, String target, long version) {
    return "Cannot backfill pipeline "
        + pipeline
        + " into "
        + target
        + ": the table exists with data (version "
        + version
        + ") that this backfill did not write; --into writes a new table, so give a path where no"
        + " table is (or delete that one if it is a stale backfill of another range).";
  }

  static String retentionGaps(
      String pipeline, Instant readFrom, Map<TopicPartition, Long> earliest) {
    return "Cannot backfill pipeline "
        + pipeline
        + ": the source no longer holds the whole range: records were deleted by retention from"
        + " partitions whose oldest retained record is at or after "
        + readFrom
        + " (--from minus the watermark delay): "
        + earliest
        + " (partition=oldest retained offset). Backfill a later range, or from a copy of the"
        + " events (a bronze Delta table).";
  }

  static String liveTableMissing(String pipeline, String table) {
    return "Cannot backfill pipeline "
        + pipeline
        + " --replace: its table "
        + table
        + " does not exist, so there is no range to replace; run the pipeline first, or backfill"
        + " --into a new table.";
  }

  static String appendOnly(String pipeline, String table) {
    return "Cannot backfill pipeline "
        + pipeline
        + " --replace: its table "
        + table
        + " is append-only (delta.appendOnly=true), and replacing a range removes rows; backfill"
        + " --into a new table instead, or unset the property if removing rows is allowed.";
  }

  static String stoppedBeforeSwap(String pipeline) {
    return "Backfill of pipeline "
        + pipeline
        + " --replace was stopped before its staging run was complete, so the live table was not"
        + " changed; run the same command again to continue it and swap the range.";
  }

  static String keptConflicting(String pipeline, int attempts, String last) {
    return "Cannot backfill pipeline "
        + pipeline
        + " --replace: the swap was planned "
        + attempts
        + " times and each time a concurrent commit touched the range before it could commit;"
        + " nothing was swapped (the staging run is kept). Run the same command again when the"
        + " range is quiet (an event time range behind the live pipeline's watermark). Last"
        + " conflict: "
        + last;
  }

  static String stagingLayout(String pipeline, String staging, String why) {
    return "Cannot backfill pipeline "
        + pipeline
        + " --replace: the staging table "
        + staging
        + " no longer fits the live table ("
        + why
        + "); the live table's schema changed since the staging run began: delete the staging"
        + " table and the backfill's checkpoint, then run the command again.";
  }

  static String swapRefused(String pipeline, String why) {
    return "Cannot backfill pipeline " + pipeline + " --replace: " + why;
  }
}
