package dev.tributary.service.source;

import dev.tributary.service.source.SourcePlan.DataGap;
import org.apache.kafka.common.TopicPartition;

/**
 * Input the pipeline still had to read cannot be read: offsets deleted by the topic's retention, a
 * partition deleted and re-created, cut back or gone. Raised with {@code fail-on-data-loss: true}
 * (and, in group assignment, for a partition whose position would have to move back); it is
 * permanent: restarting cannot bring the records back. The message says what was found and the ways
 * on that keep every record still readable.
 */
public final class DataLossException extends RuntimeException {
  /** Offsets {@code [expected, earliest)} of {@code tp} were deleted by retention. */
  public DataLossException(String pipelineId, TopicPartition tp, long expected, long earliest) {
    super(SourceMessages.deletedByRetention(pipelineId, tp, expected, earliest));
  }

  private DataLossException(String message) {
    super(message);
  }

  /**
   * The checkpoint's position on a partition cannot be continued from (a {@link DataGap.Reset},
   * {@link DataGap.Truncated} or {@link DataGap.Gone}) and fail-on-data-loss is true.
   */
  static DataLossException found(String pipelineId, String bootstrapServers, DataGap gap) {
    return new DataLossException(SourceMessages.dataLossFound(pipelineId, bootstrapServers, gap));
  }

  /**
   * Group assignment: a partition's position would have to move back (a {@link DataGap.Reset} or
   * {@link DataGap.Truncated}), which positions kept in tables and group offsets cannot do.
   */
  static DataLossException cannotMoveBack(String pipelineId, String group, DataGap gap) {
    return new DataLossException(SourceMessages.cannotMoveBack(pipelineId, group, gap));
  }
}
