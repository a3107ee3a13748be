/**
 * Serve mode: every pipeline of a folder run side by side in one Spring Boot process, each on its
 * own thread and isolated from the others, with a REST API ({@code /api/pipelines}), actuator
 * health, Prometheus metrics, a status page at {@code /} that reads that API ({@code
 * static/index.html}; {@link dev.tributary.service.server.RunStatusServer} serves it for {@code run
 * --ui-port}) and the schedules declared in the pipeline files (compaction, vacuum, backfill). A
 * transient failure restarts the pipeline with exponential backoff; a permanent one (invalid
 * declaration, checkpoint mismatch, data loss, a second process on the checkpoint) leaves it FAILED
 * with the reason. Range backfills ({@code POST .../backfill} with a range) run as in-memory jobs
 * ({@link dev.tributary.service.server.BackfillJobs}) beside the live pipelines, through {@code
 * dev.tributary.service.backfill}. Uses the engine only through {@code
 * dev.tributary.service.pipeline}.
 */
package dev.tributary.service.server;
