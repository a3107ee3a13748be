package dev.tributary.service.server;

/**
 * The answer to {@code start}, {@code stop} and {@code backfill}: the request was accepted and acts
 * asynchronously; poll the pipeline to follow it.
 *
 * @param pipeline the pipeline id
 * @param action what was requested
 * @param state the pipeline's state right after the request
 */
public record ActionResult(String pipeline, String action, PipelineState state) {}
