package dev.tributary.service.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One batch as the {@link BatchBody} runs it, fixed by its {@link ProgressModel} before anything is
 * read: with the write-ahead log it is exactly what the batch's offsets entry records, so a replay
 * runs the same batch.
 *
 * @param id the batch id (the checkpoint's batch number; in consumer-group mode only a name for
 *     this instance's batches: there the positions in the tables, not the id, make a batch
 *     idempotent)
 * @param plan the range to read, with the lag measured when planned
 * @param replayed whether the batch was planned before a restart and is run again
 * @param startedAt when the batch started (recorded in quarantine rows)
 * @param watermarkMicros the watermark the batch evicts state with
 * @param lateWatermarkMicros the watermark the batch judges late rows against
 * @param extras facts of the batch beyond its offsets (the range's facts, the dimension versions a
 *     join reads), handed to the processor and recorded in the tables' commitInfo
 * @param readFor present for a batch of the continuous trigger that is not fixed yet: it reads from
 *     the starts of {@code plan}'s range as records arrive, for this long, and is fixed ({@link
 *     ProgressModel#fix}) to what it read before anything commits
 */
public record Batch(
    long id,
    PlannedBatch plan,
    boolean replayed,
    Instant startedAt,
    OptionalLong watermarkMicros,
    OptionalLong lateWatermarkMicros,
    Map<String, String> extras,
    Optional<Duration> readFor) {
  public Batch {
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(watermarkMicros, "watermarkMicros");
    Objects.requireNonNull(lateWatermarkMicros, "lateWatermarkMicros");
    extras = Map.copyOf(extras);
    Objects.requireNonNull(readFor, "readFor");
  }

  /** A batch fixed before anything is read. */
  public Batch(
      long id,
      PlannedBatch plan,
      boolean replayed,
      Instant startedAt,
      OptionalLong watermarkMicros,
      OptionalLong lateWatermarkMicros,
      Map<String, String> extras) {
    this(
        id,
        plan,
        replayed,
        startedAt,
        watermarkMicros,
        lateWatermarkMicros,
        extras,
        Optional.empty());
  }

  /** The range the batch reads. */
  public BatchRange range() {
    return plan.range();
  }

  /** What the processor is told about the batch. */
  RecordProcessor.BatchContext context() {
    return RecordProcessor.BatchContext.of(
        id, startedAt, watermarkMicros, lateWatermarkMicros, range().backlogged(), extras);
  }
}
