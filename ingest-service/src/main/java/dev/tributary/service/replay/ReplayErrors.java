package dev.tributary.service.replay;

import java.util.List;

/** The messages of {@code replay-quarantine}, each naming the pipeline, the table and the fix. */
public final class ReplayErrors {
  private ReplayErrors() {}

  static String badWhere(String pipeline, String where, String problem, List<String> columns) {
    return "Cannot replay the quarantine of pipeline "
        + pipeline
        + ": --where '"
        + where
        + "' is not a predicate over the quarantine table's columns ("
        + problem
        + "). Its columns are "
        + columns
        + "; e.g. --where \"topic = 'orders' AND error LIKE '%amount%'\". Nothing was written.";
  }

  static String runCommitGone(String pipeline, String sink, long run) {
    return "Cannot complete replay run "
        + run
        + " of pipeline "
        + pipeline
        + ": the sink table at "
        + sink
        + " holds the run's txn, but its log no longer has the commit that names the run's"
        + " records (log cleanup). Its records are in the sink AND still in the quarantine: delete"
        + " them from the quarantine by hand (the sink rows' _kafka_topic, _kafka_partition,"
        + " _kafka_offset name them), then record the run in the quarantine table's txn"
        + " (appId "
        + QuarantineReplay.appId(pipeline)
        + ", version "
        + run
        + "). Nothing was written.";
  }

  static String runCommitUnreadable(String pipeline, String sink, long run, long version) {
    return "Cannot complete replay run "
        + run
        + " of pipeline "
        + pipeline
        + ": version "
        + version
        + " of the sink table at "
        + sink
        + " carries the run's txn but not the list of its records ("
        + QuarantineReplay.RECORDS_KEY
        + " in commitInfo); the commit was not made by replay-quarantine. Nothing was written.";
  }

  static String notARecordQuarantine(String pipeline, String location, List<String> missing) {
    return "Cannot replay the quarantine of pipeline "
        + pipeline
        + ": the table at "
        + location
        + " lacks the columns "
        + missing
        + " of a quarantine of Kafka records (topic, partition, offset, kafka_timestamp, key,"
        + " value, error). Point quarantine.delta.path at the pipeline's quarantine table.";
  }
}
