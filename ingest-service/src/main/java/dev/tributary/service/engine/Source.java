package dev.tributary.service.engine;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where a pipeline's input comes from, seen by the engine (docs/DESIGN.md, "Sources and sinks"). A
 * source plans each batch as a {@link BatchRange} that the engine writes ahead to the offsets log,
 * then reads exactly that range, the first time and again on replay after a crash; it never keeps a
 * position of its own that the checkpoint does not know. One source per pipeline run, used from the
 * engine's thread (except {@link #wakeup}).
 *
 * <p>A range names its partitions explicitly, so a source that owns only some partitions of its
 * input (a member of a consumer group, issue 14) plans and reads ranges of those alone; {@link
 * #read} then throws {@link RangeRevokedException} when the group takes a partition of the range
 * away mid-read.
 */
public interface Source extends AutoCloseable {

  /**
   * Fixes the end of a bounded run (available-now, once): every later {@link #plan} stops at the
   * input present now. Called once, before the first plan, for bounded triggers only.
   */
  void boundToAvailableNow() throws IOException;

  /**
   * Plans the batch after {@code previous}, within the source's rate limits.
   *
   * @param previous the range of the checkpoint's latest batch, or, for a checkpoint without
   *     batches, {@link BatchRange#startingAt} the positions it continues after (often none)
   * @param firstBatch whether this is the checkpoint's very first batch: the source then applies
   *     its declared starting point to what {@code previous} does not name
   */
  PlannedBatch plan(BatchRange previous, boolean firstBatch) throws IOException;

  /**
   * The plan of a batch the offsets log recorded before a restart, to run again: exactly its {@code
   * range}, with the lag measured now (where the input is now, which the first attempt's plan knew
   * but the log does not keep), so the replayed batch's progress reports its lag like any other.
   * The default reports each partition's range end as the latest (no lag known).
   */
  default PlannedBatch replayed(BatchRange range) throws IOException {
    return PlannedBatch.replay(range);
  }

  /**
   * Reads exactly {@code range} into {@code input}. Input skipped because it vanished while reading
   * (a source configured to tolerate that) is returned, for the commit's history.
   *
   * @param inFixedOrder whether the input must reach {@code input} in an order that depends only on
   *     the range (a stateful processor, {@link RecordProcessor#dependsOnRecordOrder}); otherwise
   *     the source may interleave partitions as fast as it can
   * @return descriptions of the input skipped while reading, each one JSON object (the commit
   *     records them as a JSON array), empty normally
   */
  List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input) throws Exception;

  /**
   * Reads for the continuous trigger: from the start of each partition of {@code planned} (the
   * ranges' ends say nothing), hands records to {@code input} as they arrive, for {@code interval}.
   * The engine then records the returned range ahead of any commit, so a replay reads exactly what
   * this read.
   *
   * @return per partition of {@code planned}, the range from its start to the offset after the last
   *     record handed over (empty when none arrived), with {@code planned}'s facts
   * @throws UnsupportedOperationException for a source that only reads planned ranges
   */
  default BatchRange readFor(BatchRange planned, Duration interval, SourceInput input)
      throws Exception {
    throw new UnsupportedOperationException("this source reads planned ranges only");
  }

  /** What a table's commit records about the range (e.g. {@code offsets}), for table history. */
  Map<String, String> commitInfo(BatchRange range);

  /** Names the range in a message, e.g. {@code orders/0 offsets [700, 800)}. */
  String describe(BatchRange range);

  /**
   * The batch of {@code range} is committed: the source may tell the outside world (Kafka: the
   * consumer group's offsets, for lag tools). Best effort; never decides where a batch starts.
   */
  default void committed(BatchRange range) {}

  /**
   * Waits up to {@code wait} between batches. A source that shares its input with other instances
   * (a consumer-group member) uses the time to stay a member and to take part in rebalances.
   */
  default void idle(Duration wait) throws InterruptedException {
    Thread.sleep(wait.toMillis());
  }

  /**
   * Aborts the blocking call in progress (or the next one) with a {@link SourceStoppedException};
   * thread-safe. Used to stop promptly while the input is unreachable.
   */
  default void wakeup() {}

  @Override
  void close();
}
