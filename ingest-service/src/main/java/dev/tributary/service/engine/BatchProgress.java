package dev.tributary.service.engine;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.config.Secrets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What one micro-batch did: logged as one JSON line per batch and kept in memory (the last N per
 * pipeline) for the REST API and the command line.
 *
 * @param pipeline pipeline id
 * @param batchId the batch id (= the Delta txn version)
 * @param replayed whether this batch re-ran a planned batch after a restart
 * @param startedAt when the batch started
 * @param inputRows records read from Kafka
 * @param outputRows rows committed to the sink table
 * @param quarantinedRows records that failed to parse, written to the quarantine table
 * @param filteredRows rows removed by filters
 * @param lateRows rows behind the watermark (dropped or written to the late-events table)
 * @param inputRowsPerSecond input rows divided by the time since the previous batch started
 * @param processedRowsPerSecond input rows divided by this batch's duration
 * @param durationMs total duration
 * @param phasesMs duration of each phase: plan, walCommit, process (read + parse + write files),
 *     commit (Delta commits), checkpointCommit
 * @param partitions offsets per partition
 * @param sinkVersion the Delta version committed, or -1 if the batch had already been committed
 * @param watermark the watermark this batch applied (null without a watermark)
 * @param dataGaps offsets skipped because they were deleted (fail-on-data-loss: false)
 * @param state state store metrics (empty for stateless pipelines)
 * @param commitRetries Delta commit attempts after the first, over this batch's table commits
 * @param commitConflicts Delta commits of this batch that lost to a conflicting writer
 * @param sourceLag the source's own lag measures after the batch ({@link PlannedBatch#sourceLag}):
 *     a Delta source's {@code versionsBehind}, {@code filesBehind}, {@code bytesBehind}; empty for
 *     Kafka
 * @param expectations rows that violated each expectation in this batch, by rule name (only the
 *     rules with violations), whatever the rule's action
 * @param newestRecordAt the newest Kafka record timestamp ({@code _kafka_timestamp}) among the
 *     records this batch read and committed (null without Kafka records, e.g. a Delta source or an
 *     empty batch); the freshness gauge is now minus the newest of these
 */
public record BatchProgress(
    String pipeline,
    long batchId,
    boolean replayed,
    Instant startedAt,
    long inputRows,
    long outputRows,
    long quarantinedRows,
    long filteredRows,
    long lateRows,
    double inputRowsPerSecond,
    double processedRowsPerSecond,
    long durationMs,
    Map<String, Long> phasesMs,
    List<PartitionProgress> partitions,
    long sinkVersion,
    Instant watermark,
    List<String> dataGaps,
    Map<String, Long> state,
    long commitRetries,
    long commitConflicts,
    Map<String, Long> sourceLag,
    Map<String, Long> expectations,
    Instant newestRecordAt) {

  public BatchProgress {
    expectations = Map.copyOf(expectations);
    phasesMs = Map.copyOf(phasesMs);
    partitions = List.copyOf(partitions);
    dataGaps = List.copyOf(dataGaps);
    state = Map.copyOf(state);
    sourceLag = Map.copyOf(sourceLag);
  }

  /** A batch whose records carried no Kafka timestamp (no {@link #newestRecordAt}). */
  public BatchProgress(
      String pipeline,
      long batchId,
      boolean replayed,
      Instant startedAt,
      long inputRows,
      long outputRows,
      long quarantinedRows,
      long filteredRows,
      long lateRows,
      double inputRowsPerSecond,
      double processedRowsPerSecond,
      long durationMs,
      Map<String, Long> phasesMs,
      List<PartitionProgress> partitions,
      long sinkVersion,
      Instant watermark,
      List<String> dataGaps,
      Map<String, Long> state,
      long commitRetries,
      long commitConflicts,
      Map<String, Long> sourceLag,
      Map<String, Long> expectations) {
    this(
        pipeline,
        batchId,
        replayed,
        startedAt,
        inputRows,
        outputRows,
        quarantinedRows,
        filteredRows,
        lateRows,
        inputRowsPerSecond,
        processedRowsPerSecond,
        durationMs,
        phasesMs,
        partitions,
        sinkVersion,
        watermark,
        dataGaps,
        state,
        commitRetries,
        commitConflicts,
        sourceLag,
        expectations,
        null);
  }

  /** A batch of a source whose lag is its partitions' (no {@link #sourceLag}). */
  public BatchProgress(
      String pipeline,
      long batchId,
      boolean replayed,
      Instant startedAt,
      long inputRows,
      long outputRows,
      long quarantinedRows,
      long filteredRows,
      long lateRows,
      double inputRowsPerSecond,
      double processedRowsPerSecond,
      long durationMs,
      Map<String, Long> phasesMs,
      List<PartitionProgress> partitions,
      long sinkVersion,
      Instant watermark,
      List<String> dataGaps,
      Map<String, Long> state,
      long commitRetries,
      long commitConflicts) {
    this(
        pipeline,
        batchId,
        replayed,
        startedAt,
        inputRows,
        outputRows,
        quarantinedRows,
        filteredRows,
        lateRows,
        inputRowsPerSecond,
        processedRowsPerSecond,
        durationMs,
        phasesMs,
        partitions,
        sinkVersion,
        watermark,
        dataGaps,
        state,
        commitRetries,
        commitConflicts,
        Map.of(),
        Map.of());
  }

  /**
   * Returns this record with the secret values of the declaration masked in its texts (the topic
   * names and the data-gap descriptions; a topic may come from a {@code ${NAME}} reference).
   */
  public BatchProgress masked(Secrets secrets) {
    if (secrets.isEmpty()) {
      return this;
    }
    return new BatchProgress(
        secrets.mask(pipeline),
        batchId,
        replayed,
        startedAt,
        inputRows,
        outputRows,
        quarantinedRows,
        filteredRows,
        lateRows,
        inputRowsPerSecond,
        processedRowsPerSecond,
        durationMs,
        phasesMs,
        partitions.stream()
            .map(
                p ->
                    new PartitionProgress(
                        secrets.mask(p.topic()),
                        p.partition(),
                        p.startOffset(),
                        p.endOffset(),
                        p.latestOffset()))
            .toList(),
        sinkVersion,
        watermark,
        dataGaps.stream().map(secrets::mask).toList(),
        state,
        commitRetries,
        commitConflicts,
        sourceLag,
        expectations,
        newestRecordAt);
  }

  /**
   * The share of this batch's records that went to the quarantine table: {@code quarantinedRows /
   * inputRows}, 0 without input. Part of the JSON progress record; {@code quarantine.max-fraction}
   * judges the same share before the batch commits.
   */
  @JsonProperty("quarantinedFraction")
  public double quarantinedFraction() {
    return inputRows == 0 ? 0 : (double) quarantinedRows / inputRows;
  }

  /**
   * The freshness of the table when this batch had committed: its end ({@code startedAt +
   * durationMs}) minus {@link #newestRecordAt}, in milliseconds; null without a record timestamp.
   * The {@code tributary.freshness} gauge goes on from there: it is computed at each scrape, so it
   * keeps rising while no batch commits.
   */
  @JsonProperty("freshnessMs")
  public Long freshnessMs() {
    if (newestRecordAt == null) {
      return null;
    }
    return startedAt.plusMillis(durationMs).toEpochMilli() - newestRecordAt.toEpochMilli();
  }

  /** Total lag (latest - end) over all partitions after this batch. */
  public long lag() {
    return partitions.stream().mapToLong(PartitionProgress::lag).sum();
  }

  /**
   * Offsets of one partition in this batch.
   *
   * @param topic topic
   * @param partition partition
   * @param startOffset first offset of the batch (inclusive)
   * @param endOffset end of the batch (exclusive)
   * @param latestOffset latest offset of the partition when planned
   */
  public record PartitionProgress(
      String topic, int partition, long startOffset, long endOffset, long latestOffset) {
    public long lag() {
      return Math.max(0, latestOffset - endOffset);
    }
  }
}
