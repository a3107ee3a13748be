package dev.tributary.service.pipeline;

import java.util.List;

/**
 * A declaration that parsed but cannot run: a bad expression, an unknown partition column, a
 * feature not built yet. The message lists every problem, each naming the key concerned.
 */
public final class PipelineDefinitionException extends RuntimeException {
  private final List<String> problems;

  public PipelineDefinitionException(String pipelineId, List<String> problems) {
    super("Pipeline " + pipelineId + " cannot run:\n  - " + String.join("\n  - ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
