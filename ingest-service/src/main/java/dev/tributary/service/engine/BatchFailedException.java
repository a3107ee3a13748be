package dev.tributary.service.engine;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A batch failed for a reason that is not one record (a record that cannot be written is
 * quarantined instead): storage or broker errors, a bug. The message names the pipeline, the batch
 * and its offset ranges, so an operator knows which data is waiting; the cause says why. The batch
 * is replayed with exactly these ranges at the next start.
 */
public final class BatchFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String pipelineId;
  private final long batchId;

  public BatchFailedException(
      String pipelineId, long batchId, Map<SourcePartition, OffsetRange> ranges, Throwable cause) {
    super(message(pipelineId, batchId, ranges), cause);
    this.pipelineId = pipelineId;
    this.batchId = batchId;
  }

  /**
   * @param range the batch's input as its source names it ({@link Source#describe}), e.g. {@code
   *     orders/0 offsets [700, 800)}
   */
  public BatchFailedException(String pipelineId, long batchId, String range, Throwable cause) {
    super(message(pipelineId, batchId, range), cause);
    this.pipelineId = pipelineId;
    this.batchId = batchId;
  }

  /** The pipeline whose batch failed. */
  public String pipelineId() {
    return pipelineId;
  }

  /** The batch that failed. */
  public long batchId() {
    return batchId;
  }

  private static String message(
      String pipelineId, long batchId, Map<SourcePartition, OffsetRange> ranges) {
    String offsets =
        ranges.isEmpty()
            ? "no records"
            : ranges.entrySet().stream()
                .sorted(
                    Comparator.comparing(
                            (Map.Entry<SourcePartition, OffsetRange> e) -> e.getKey().topic())
                        .thenComparingInt(e -> e.getKey().partition()))
                .map(
                    e ->
                        e.getKey().topic()
                            + "/"
                            + e.getKey().partition()
                            + " offsets ["
                            + e.getValue().start()
                            + ", "
                            + e.getValue().end()
                            + ")")
                .collect(Collectors.joining(", "));
    return message(pipelineId, batchId, offsets);
  }

  private static String message(String pipelineId, long batchId, String range) {
    return "Pipeline "
        + pipelineId
        + ": batch "
        + batchId
        + " ("
        + range
        + ") failed; it is replayed with the"
        + " same offsets at the next start (a table that already committed it skips it).";
  }
}
