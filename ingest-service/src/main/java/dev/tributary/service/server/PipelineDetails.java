package dev.tributary.service.server;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.service.engine.BatchProgress;
import java.util.List;

/**
 * One pipeline with its recent progress, for {@code GET /api/pipelines/{id}}.
 *
 * @param status the pipeline's status
 * @param progress its last progress records, oldest first
 * @param groups with {@code source.kafka.assignment: group}: the consumer groups that share its
 *     partitions, with this instance's membership and the group's members ({@link ConsumerGroups});
 *     null otherwise, and then left out of the JSON, so exclusive mode's output is unchanged
 */
public record PipelineDetails(
    PipelineStatus status,
    List<BatchProgress> progress,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<GroupStatus> groups) {

  /** Copies the lists. */
  public PipelineDetails {
    progress = List.copyOf(progress);
    groups = groups == null ? null : List.copyOf(groups);
  }
}
