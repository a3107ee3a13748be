package dev.tributary.service.engine;

/**
 * A row violated an expectation declared {@code on-violation: fail}. Thrown while the batch is
 * read, before anything of it is committed, so every table stays as it was; a restart replays the
 * same batch and meets the same row, so it is a permanent failure: fix the data or the rule.
 */
public final class ExpectationFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param rule the violated rule
   * @param where the record or source row that violated it (topic, partition and offset)
   */
  public ExpectationFailedException(String pipelineId, Expectations.Rule rule, String where) {
    super(
        "Pipeline "
            + pipelineId
            + ": "
            + rule.describe()
            + " for "
            + where
            + " (on-violation: fail); nothing of the batch was committed. Fix the producer's data,"
            + " or change the rule's on-violation to quarantine, drop or warn; the batch is"
            + " replayed with the same offsets at the next start.");
  }
}
