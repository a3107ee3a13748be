package dev.tributary.service.source;

import org.apache.kafka.common.TopicPartition;

/**
 * Offsets the pipeline still had to read were deleted by the topic's retention (or the topic was
 * recreated). Raised only with {@code fail-on-data-loss: true}; it is permanent: restarting cannot
 * bring the records back.
 */
public final class DataLossException extends RuntimeException {
  public DataLossException(String pipelineId, TopicPartition tp, long expected, long earliest) {
    super(
        "Pipeline "
            + pipelineId
            + " lost data on "
            + tp.topic()
            + "/"
            + tp.partition()
            + ": offsets ["
            + expected
            + ", "
            + earliest
            + ") were deleted by retention before they were read (earliest available offset is "
            + earliest
            + "). To skip the gap and continue, set source.kafka.fail-on-data-loss: false (the gap is"
            + " recorded in the commit's commitInfo); to keep the data, raise the topic's retention.");
  }
}
