package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.backfill.BackfillRefusal;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.VacuumResult;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The REST API of serve mode (reference: docs/OPERATIONS.md). Every request needs the bearer token
 * ({@link ApiAccessFilter}: without a configured one, reads answer on loopback only and POSTs are
 * disabled). Start, stop and backfill return 202 at once; compact and vacuum run the pass and
 * return its result. A backfill with a range runs as a job ({@link BackfillJobs}) beside the live
 * pipeline, followed under {@code /backfills}.
 */
@ConditionalOnProperty("tributary.pipelines-dir")
@RestController
@RequestMapping(path = "/api/pipelines", produces = "application/json")
class PipelinesController {
  static final int MAX_PROGRESS = ManagedPipeline.PROGRESS_KEPT;

  private final ServedPipelines pipelines;
  private final Maintenance maintenance;
  private final ConsumerGroups groups;
  private final TableViews tables;
  private final BackfillJobs backfills;

  PipelinesController(
      ServedPipelines pipelines,
      Maintenance maintenance,
      ConsumerGroups groups,
      TableViews tables,
      BackfillJobs backfills) {
    this.pipelines = pipelines;
    this.maintenance = maintenance;
    this.groups = groups;
    this.tables = tables;
    this.backfills = backfills;
  }

  /** Every served pipeline with its state, last batch, lag and watermark. */
  @GetMapping
  List<PipelineStatus> list() {
    return pipelines.all().stream().map(ManagedPipeline::status).toList();
  }

  /**
   * One pipeline and its last {@code last} progress records (1 to 100, default 20); in group
   * assignment also its consumer groups ({@link ConsumerGroups}: bounded and cached, never fails).
   */
  @GetMapping("/{id}")
  PipelineDetails details(@PathVariable String id, @RequestParam(defaultValue = "20") int last) {
    checkLast(last, MAX_PROGRESS);
    ManagedPipeline p = find(id);
    return new PipelineDetails(p.status(), p.progress().last(last), groups.of(p));
  }

  /**
   * The newest {@code last} commits (1 to 50, default 10) of the pipeline's Delta sink table (of
   * its routed tables), newest first; empty without a Delta sink or before the first batch.
   */
  @GetMapping("/{id}/commits")
  List<SinkCommit> commits(@PathVariable String id, @RequestParam(defaultValue = "10") int last) {
    ManagedPipeline p = find(id);
    checkLast(last, TableViews.MAX_LAST);
    try {
      return tables.recentCommits(TableViews.Viewed.of(p), last);
    } catch (IOException | RuntimeException e) {
      throw new ApiException(
          HttpStatus.SERVICE_UNAVAILABLE,
          ServerMessages.tableUnreadable(
              id,
              "sink table",
              p.mask(String.join(", ", p.spec().get().sinkLocations())),
              p.describe(e)));
    }
  }

  /**
   * The newest {@code last} records (1 to 50, default 10) of the pipeline's quarantine table with
   * their errors, newest first; empty before anything was quarantined.
   */
  @GetMapping("/{id}/quarantine")
  List<QuarantineSample> quarantine(
      @PathVariable String id, @RequestParam(defaultValue = "10") int last) {
    ManagedPipeline p = find(id);
    checkLast(last, TableViews.MAX_LAST);
    try {
      return tables.quarantineSamples(TableViews.Viewed.of(p), last);
    } catch (IOException | RuntimeException e) {
      throw new ApiException(
          HttpStatus.SERVICE_UNAVAILABLE,
          ServerMessages.tableUnreadable(
              id, "quarantine table", p.mask(p.spec().get().quarantine().path()), p.describe(e)));
    }
  }

  private static void checkLast(int last, int max) {
    if (last < 1 || last > max) {
      throw new ApiException(
          HttpStatus.BAD_REQUEST,
          "Parameter 'last' must be between 1 and " + max + ", was " + last + ".");
    }
  }

  /**
   * Starts the pipeline with its declared trigger. 409 if a run is active or the file is invalid.
   */
  @PostMapping("/{id}/start")
  ResponseEntity<ActionResult> start(@PathVariable String id) {
    ManagedPipeline p = find(id);
    started(p, p.start(p.spec().map(s -> s.trigger()).orElse(TriggerSpec.DEFAULT)), "start");
    return accepted(p, "start");
  }

  /** Stops the pipeline after its batch in progress. 409 if no run is active. */
  @PostMapping("/{id}/stop")
  ResponseEntity<ActionResult> stop(@PathVariable String id) {
    ManagedPipeline p = find(id);
    if (!p.stop()) {
      throw new ApiException(HttpStatus.CONFLICT, ServerMessages.notActive(id));
    }
    return accepted(p, "stop");
  }

  /**
   * Without a body: starts an available-now run (process what is available, then IDLE); 409 if a
   * run is active. With a range ({@link BackfillRequest}): starts a range backfill job beside the
   * live pipeline ({@link #backfillRange}).
   */
  @PostMapping("/{id}/backfill")
  ResponseEntity<?> backfill(
      @PathVariable String id, @RequestBody(required = false) BackfillRequest range) {
    if (range != null) {
      return backfillRange(id, range);
    }
    ManagedPipeline p = runnable(id);
    ManagedPipeline.StartOutcome outcome = p.start(new TriggerSpec.AvailableNow());
    if (outcome == ManagedPipeline.StartOutcome.ALREADY_ACTIVE) {
      pipelines.metrics(p).run(MetricNames.BACKFILL_RUNS, "skipped");
    }
    started(p, outcome, "backfill");
    pipelines.metrics(p).run(MetricNames.BACKFILL_RUNS, "started");
    return accepted(p, "backfill");
  }

  /**
   * Plans the range backfill as {@code tributary backfill} does (400 with its messages: a bad or
   * empty range, a declaration a backfill does not support, a table of the live pipeline, replace
   * while it is not available) and starts it on its own thread: 202 with the job and its location.
   * 409 while another backfill of the pipeline runs; 400 if its locations overlap a served
   * pipeline's.
   */
  private ResponseEntity<BackfillJobStatus> backfillRange(String id, BackfillRequest request) {
    ManagedPipeline p = runnable(id);
    PipelineSpec live = p.spec().orElseThrow();
    BackfillJob.Planned planned;
    try {
      planned = BackfillRequests.plan(live, request);
    } catch (BackfillRefusal e) {
      throw new ApiException(
          HttpStatus.BAD_REQUEST, p.mask(ServerMessages.backfillRefused(id, e.getMessage())));
    }
    List<PipelineSpec> served = pipelines.all().stream().flatMap(m -> m.spec().stream()).toList();
    BackfillJob job = backfills.start(id, request, planned, live.secrets(), served);
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .location(URI.create("/api/pipelines/" + id + "/backfills/" + job.id()))
        .body(job.status());
  }

  /**
   * The pipeline's range backfill jobs since the service started, newest first (at most {@link
   * BackfillJobs#KEPT}).
   */
  @GetMapping("/{id}/backfills")
  List<BackfillJobStatus> backfills(@PathVariable String id) {
    ManagedPipeline p = find(id);
    return backfills.of(p.id()).stream().map(BackfillJob::status).toList();
  }

  /** One range backfill job. 404 for a job this service does not know (any more). */
  @GetMapping("/{id}/backfills/{job}")
  BackfillJobStatus backfillJob(@PathVariable String id, @PathVariable String job) {
    return job(id, job).status();
  }

  /**
   * Stops a running range backfill job after its batch in progress (as Ctrl-C stops {@code
   * tributary backfill}): 202, the job then ends STOPPED. 409 if it has ended.
   */
  @DeleteMapping("/{id}/backfills/{job}")
  ResponseEntity<BackfillJobStatus> stopBackfill(
      @PathVariable String id, @PathVariable String job) {
    BackfillJob found = job(id, job);
    if (!found.stop()) {
      throw new ApiException(
          HttpStatus.CONFLICT, ServerMessages.backfillNotRunning(id, job, found.state()));
    }
    return ResponseEntity.status(HttpStatus.ACCEPTED).body(found.status());
  }

  private BackfillJob job(String id, String job) {
    ManagedPipeline p = find(id);
    return backfills
        .find(p.id(), job)
        .orElseThrow(
            () -> new ApiException(HttpStatus.NOT_FOUND, ServerMessages.unknownBackfill(id, job)));
  }

  /** Runs one compaction pass of the sink table and returns what it did. */
  @PostMapping("/{id}/compact")
  CompactionResult compact(@PathVariable String id) {
    ManagedPipeline p = runnable(id);
    try {
      return maintenance.compact(p, pipelines.metrics(p));
    } catch (Maintenance.BusyException e) {
      throw new ApiException(HttpStatus.CONFLICT, e.getMessage());
    } catch (IOException | RuntimeException e) {
      throw new ApiException(
          HttpStatus.INTERNAL_SERVER_ERROR,
          ServerMessages.maintenanceFailed(
              id,
              Maintenance.COMPACTION,
              p.mask(String.join(", ", p.spec().get().sinkLocations())),
              p.describe(e)));
    }
  }

  /** Runs one vacuum pass (or with {@code dry-run=true}, lists what it would delete). */
  @PostMapping("/{id}/vacuum")
  VacuumResult vacuum(
      @PathVariable String id,
      @RequestParam(name = "dry-run", defaultValue = "false") boolean dryRun) {
    ManagedPipeline p = runnable(id);
    try {
      return maintenance.vacuum(p, pipelines.metrics(p), dryRun);
    } catch (Maintenance.BusyException e) {
      throw new ApiException(HttpStatus.CONFLICT, e.getMessage());
    } catch (IOException | RuntimeException e) {
      throw new ApiException(
          HttpStatus.INTERNAL_SERVER_ERROR,
          ServerMessages.maintenanceFailed(
              id,
              Maintenance.VACUUM,
              p.mask(String.join(", ", p.spec().get().sinkLocations())),
              p.describe(e)));
    }
  }

  private ManagedPipeline find(String id) {
    return pipelines
        .find(id)
        .orElseThrow(
            () ->
                new ApiException(
                    HttpStatus.NOT_FOUND,
                    ServerMessages.unknownPipeline(
                        id, pipelines.all().stream().map(ManagedPipeline::id).toList())));
  }

  private ManagedPipeline runnable(String id) {
    ManagedPipeline p = find(id);
    if (!p.runnable()) {
      throw new ApiException(
          HttpStatus.CONFLICT, ServerMessages.notRunnable(id, p.status().reason()));
    }
    return p;
  }

  private static void started(
      ManagedPipeline p, ManagedPipeline.StartOutcome outcome, String what) {
    switch (outcome) {
      case STARTED -> {}
      case ALREADY_ACTIVE ->
          throw new ApiException(HttpStatus.CONFLICT, ServerMessages.alreadyActive(p.id(), what));
      case NOT_RUNNABLE ->
          throw new ApiException(
              HttpStatus.CONFLICT, ServerMessages.notRunnable(p.id(), p.status().reason()));
    }
  }

  private static ResponseEntity<ActionResult> accepted(ManagedPipeline p, String action) {
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .body(new ActionResult(p.id(), action, p.state()));
  }
}
