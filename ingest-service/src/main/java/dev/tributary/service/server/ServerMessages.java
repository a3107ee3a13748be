package dev.tributary.service.server;

import dev.tributary.config.Durations;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.RunActivity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;

/** Every user-facing message of serve mode, built in one place. */
final class ServerMessages {
  private ServerMessages() {}

  static String trigger(TriggerSpec trigger) {
    if (trigger instanceof TriggerSpec.ProcessingTime p) {
      return "processing-time " + p.interval().toString().substring(2).toLowerCase(Locale.ROOT);
    }
    if (trigger instanceof TriggerSpec.Continuous c) {
      return "continuous " + c.interval().toString().substring(2).toLowerCase(Locale.ROOT);
    }
    return trigger instanceof TriggerSpec.AvailableNow ? "available-now" : "once";
  }

  /**
   * The reason of a DEGRADED pipeline: what it cannot reach, for how long, and the trouble in
   * detail ({@link #failedRun} or {@link #noProgress}).
   */
  static String degraded(String target, Duration outage, String detail) {
    return target + " for " + outage.toSeconds() + " s: " + detail;
  }

  /** What a DEGRADED pipeline cannot reach, judged by the phase its run was in. */
  static String target(RunActivity.Phase phase, String source, String sink) {
    return switch (phase) {
      case OPENING -> "cannot open a run (checkpoint, tables, " + source + ")";
      case COMMITTING -> "cannot commit to " + sink;
      case PLANNING, READING, WAITING -> "cannot reach " + source;
    };
  }

  /** How a pipeline's source is named in its reasons: {@code Kafka at host:9092}. */
  static String source(PipelineSpec spec) {
    if (spec.kafkaSource().isPresent()) {
      return "Kafka at " + spec.kafkaSource().get().bootstrapServers();
    }
    return spec.deltaSource().map(d -> "the source table " + d.path()).orElse("the source");
  }

  /** The detail of a DEGRADED reason after a failed run. */
  static String failedRun(String failure, int attempt, Duration delay) {
    return failure + " — restart attempt " + attempt + " after " + delay.toMillis() + " ms";
  }

  /** The detail of a DEGRADED reason for a run that shows no progress. */
  static String noProgress(RunActivity.Phase phase, Duration quiet) {
    String doing =
        switch (phase) {
          case OPENING -> "opening the run";
          case PLANNING -> "planning a batch (no answer from the source)";
          case READING -> "reading a batch (no record arrives)";
          case COMMITTING -> "committing a batch (the commit does not finish)";
          case WAITING -> "waiting for the next trigger";
        };
    return "no progress while " + doing + " for " + quiet.toSeconds() + " s";
  }

  /** Why a supervisor gave up on a pipeline (the outage limit of {@code run}). */
  static String outageLimit(String id, Duration outage, Duration limit, String reason) {
    return "Pipeline "
        + id
        + " gave up after an outage of "
        + outage.toSeconds()
        + " s, which reached the limit of "
        + Durations.format(limit)
        + " (--max-outage): "
        + reason
        + (reason.endsWith(".") ? "" : ".")
        + " Nothing is lost: the next run resumes from the checkpoint once the source and sink are"
        + " reachable; raise --max-outage to ride out longer outages.";
  }

  /** A pipeline that was DEGRADED works again. */
  static String recovered(String id, Duration outage) {
    return "Pipeline " + id + " is RUNNING again after an outage of " + outage.toSeconds() + " s";
  }

  static String noPipelinesDir(Path dir) {
    return "Cannot start serve: pipelines directory "
        + dir.toAbsolutePath()
        + " does not exist or is not a directory; pass --pipelines-dir with a folder of pipeline YAML files.";
  }

  /**
   * Why a file could not be loaded: the message of an exception as it is; for an {@link Error},
   * which says little by itself ({@code StackOverflowError} has no message), what happened and what
   * to do.
   */
  static String loadFailed(Throwable failure, String description) {
    if (!(failure instanceof Error)) {
      return description;
    }
    return "loading the file failed with "
        + failure.getClass().getSimpleName()
        + (failure.getMessage() == null ? "" : " (" + description + ")")
        + "; the file may be too large or too deeply nested. Simplify it and restart the service;"
        + " the other pipelines are served.";
  }

  static String duplicateId(String id, Path file, Path first) {
    return "pipeline id '"
        + id
        + "' of "
        + file
        + " is already used by "
        + first
        + "; every pipeline file needs its own id (the 'pipeline' key).";
  }

  static String unknownPipeline(String id, Collection<String> known) {
    return "No pipeline '" + id + "' is served; served pipelines: " + known + ".";
  }

  static String notRunnable(String id, String reason) {
    return "Pipeline "
        + id
        + " cannot run: its file could not be loaded ("
        + reason
        + "). Fix the file and restart the service.";
  }

  static String alreadyActive(String id, String what) {
    return "Cannot "
        + what
        + " pipeline "
        + id
        + ": a run is already active; stop it first"
        + " (POST /api/pipelines/"
        + id
        + "/stop) or wait for it to finish.";
  }

  /**
   * A range backfill refused before it started: the message {@code tributary backfill} prints,
   * naming the pipeline when it does not already (the range's own messages do not).
   */
  static String backfillRefused(String id, String message) {
    return message.contains("pipeline " + id) ? message : "Pipeline " + id + ": " + message;
  }

  /** A range backfill request without a field it needs, or with both targets. */
  static String backfillRequestIncomplete(String id, String problem) {
    return "Cannot backfill pipeline "
        + id
        + ": "
        + problem
        + "; send {\"from\": \"2026-11-01T00:00:00Z\", \"to\": \"2026-11-02T00:00:00Z\","
        + " \"into\": \"PATH\"} (a new table) or {\"from\": ..., \"to\": ..., \"replace\": true}.";
  }

  /** A second range backfill of a pipeline while one runs. */
  static String backfillRunning(String id, String job, String what) {
    return "Cannot backfill pipeline "
        + id
        + ": backfill job "
        + job
        + " of "
        + what
        + " is running, and a pipeline runs one backfill at a time; wait for it to end (GET"
        + " /api/pipelines/"
        + id
        + "/backfills/"
        + job
        + ") or stop it (DELETE the same path).";
  }

  /**
   * The backfill's tables or checkpoint would overlap a served pipeline's or a running backfill's.
   */
  static String backfillSharesStorage(String id, String target, String conflict) {
    return "Cannot backfill pipeline "
        + id
        + " into "
        + target
        + ": the backfill's table, quarantine or checkpoint would share storage with a served"
        + " pipeline or a running backfill, whose vacuum or rewrite could delete its files. "
        + conflict
        + " Give the backfill a path of its own, beside the pipelines' tables.";
  }

  static String unknownBackfill(String id, String job) {
    return "Pipeline "
        + id
        + " has no backfill job '"
        + job
        + "' (jobs are kept in memory, the newest "
        + BackfillJobs.KEPT
        + " per pipeline, and are gone after a restart; GET /api/pipelines/"
        + id
        + "/backfills lists them).";
  }

  static String backfillNotRunning(String id, String job, BackfillJobState state) {
    return "Backfill job "
        + job
        + " of pipeline "
        + id
        + " is "
        + state
        + ", not running: there is nothing to stop.";
  }

  /** How a stopped backfill goes on. */
  static String backfillStopped(String id) {
    return "Stopped on request after its batch in progress. POST the same from, to and into to"
        + " /api/pipelines/"
        + id
        + "/backfill (or run tributary backfill with them) to continue it from its own checkpoint.";
  }

  /** The body of a request that is not the JSON an endpoint takes. */
  static String unreadableBody(String detail) {
    return "The request body is not the JSON this endpoint takes: "
        + detail
        + ". See docs/OPERATIONS.md, REST API.";
  }

  static String notActive(String id) {
    return "Pipeline " + id + " has no active run to stop.";
  }

  static String busy(String id, String operation) {
    return "A "
        + operation
        + " of pipeline "
        + id
        + " is already in progress; retry when it has finished.";
  }

  static String maintenanceFailed(String id, String operation, String table, String failure) {
    return operation + " of pipeline " + id + " (table " + table + ") failed: " + failure;
  }

  /** A table the status page shows could not be read (the page tries again at its next poll). */
  static String tableUnreadable(String id, String what, String location, String failure) {
    return "Cannot read the "
        + what
        + " of pipeline "
        + id
        + " at "
        + location
        + ": "
        + failure
        + ". Check that the store is reachable with the pipeline's storage settings.";
  }

  /** A request {@code run --ui-port} does not answer: it only shows its run and stops it. */
  static String notOfferedByRun(String method, String path) {
    return method
        + " "
        + path
        + " is not offered by `tributary run --ui-port`: it shows its one pipeline and can stop"
        + " it (POST .../stop); start, backfill, compact and vacuum are serve's.";
  }

  static String tokenNotConfigured() {
    return "Mutating endpoints are disabled because no API token is configured. Set TRIBUTARY_API_TOKEN in"
        + " the service's environment and send it as 'Authorization: Bearer <token>'.";
  }

  static String loopbackOnly() {
    return "This endpoint answers only on the service's own host (loopback) because no API token is configured."
        + " Set TRIBUTARY_API_TOKEN in the service's environment and send it as 'Authorization: Bearer <token>'.";
  }

  static String noTokenWarning() {
    return "No API token is configured (TRIBUTARY_API_TOKEN): the pipelines API and the health details answer"
        + " only requests from loopback, and the mutating endpoints (start, stop, backfill, compact, vacuum) are"
        + " disabled. Set TRIBUTARY_API_TOKEN to use them from another host.";
  }

  static String tokenRejected() {
    return "Missing or wrong bearer token: send 'Authorization: Bearer <token>' with the value of"
        + " TRIBUTARY_API_TOKEN configured for the service.";
  }

  /** The source-table health outcome of a location without a Delta log. */
  static String noDeltaLog(String location) {
    return "DOWN: no Delta table at "
        + location
        + ": its _delta_log/ is missing or empty. Check source.delta.path"
        + " (or the join's delta.path), or start the pipeline that writes that table first.";
  }

  /**
   * The source-table health outcome of a Delta log that cannot be listed or read; the caller masks
   * it.
   */
  static String unreadableDeltaLog(String location, String failure) {
    return "DOWN: the Delta log of "
        + location
        + " cannot be read: "
        + failure
        + ". Check the table's storage"
        + " settings (source.delta.storage, the join's delta.storage or storage) and its read permissions.";
  }

  /**
   * The broker did not describe a pipeline's consumer groups in time (the REST API's {@code
   * groups}).
   */
  static String groupNoAnswer(Collection<String> groups, Duration timeout) {
    return "the broker did not describe consumer group(s) "
        + String.join(", ", groups)
        + " within "
        + timeout.toMillis()
        + " ms; this instance's own membership above is current. Check that the brokers"
        + " are reachable; the REST API asks again in a few seconds.";
  }

  /** Describing a pipeline's consumer groups failed (the REST API's {@code groups}). */
  static String groupDescribeFailed(Collection<String> groups, String failure) {
    return "describing consumer group(s) "
        + String.join(", ", groups)
        + " failed: "
        + failure
        + "; this instance's own membership above is current. Check the broker and the security settings in"
        + " source.kafka.properties (the description uses them, with the DESCRIBE permission on the group).";
  }

  /** The broker's answer had no description of a group. */
  static String groupNotDescribed(String group) {
    return "the broker's answer has no description of consumer group " + group;
  }
}
