package dev.tributary.service.server;

import dev.tributary.service.engine.BatchProgress;
import java.util.List;

/**
 * One pipeline with its recent progress, for {@code GET /api/pipelines/{id}}.
 *
 * @param status the pipeline's status
 * @param progress its last progress records, oldest first
 */
public record PipelineDetails(PipelineStatus status, List<BatchProgress> progress) {

  /** Copies the list. */
  public PipelineDetails {
    progress = List.copyOf(progress);
  }
}
