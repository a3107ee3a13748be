package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateMetrics;
import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.config.OutputMode;
import dev.tributary.config.WindowSpec;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The stateful operators of one pipeline over rows: the watermark node (every row's event time
 * feeds the {@link WatermarkTracker}), deduplication, windowed aggregation, in that order (Spark's
 * order for {@code withWatermark.dropDuplicates.groupBy}). Each operator judges late rows itself,
 * against the batch's late watermark, by its own rule (docs/STATEFUL.md).
 *
 * <p>Per batch N: {@link #begin} (state at version N-1, loading it if this instance is elsewhere;
 * the eviction watermark W_N and the late watermark W_N-1), {@link #accept} every row, {@link #end}
 * (emission and eviction with W_N), then {@link #commit commit(N)} once the sink holds the batch. A
 * replay of batch N with the same rows and watermarks yields the same output and the same state
 * version N.
 */
final class StatefulQuery implements AutoCloseable {
  static final String AGGREGATE_OPERATOR = "aggregate";
  static final int PURGE_EVERY = 10;
  static final int VERSIONS_KEPT = 20;

  /**
   * Rows deduplicated together: one native lookup and one write for all of them (see {@link
   * DedupStage}).
   */
  static final int CHUNK = 2048;

  private static final long MIN_FILTER_BUCKET_MICROS = 60_000_000L;

  private final StatefulPlan plan;
  private final ObjectStore checkpointStore;
  private final boolean rowsMoveWatermark;
  private final Path localDir;
  private StateStore dedupStore;
  private StateStore aggregateStore;
  private Deduplicator dedup;
  private Aggregator aggregator;
  private final WatermarkTracker tracker;
  // The batch's watermarks (micros), 0 (the epoch, as in Spark) before the first one is computed:
  // state is evicted and windows emitted with the first, late rows judged against the second.
  private long evictMicros;
  private long lateMicros;
  private boolean ended;
  // After a restart, before any batch: the next watermark of the last committed batch.
  private OptionalLong restoredNextWatermark = OptionalLong.empty();
  private long duplicatesDropped;
  private DedupStage dedupStage;
  private RecentKeys recentKeys;

  /**
   * @param checkpointStore the pipeline's checkpoint location (state lives under {@code state/})
   * @param localDir a directory this query owns for the RocksDB working copies
   */
  StatefulQuery(StatefulPlan plan, ObjectStore checkpointStore, Path localDir) {
    this(plan, checkpointStore, localDir, true);
  }

  /**
   * @param rowsMoveWatermark whether a row's event time advances the watermark; false for a stage-2
   *     sub-pipeline, whose watermark follows its {@link SourceClock} ({@link #observeEventTime})
   */
  StatefulQuery(
      StatefulPlan plan, ObjectStore checkpointStore, Path localDir, boolean rowsMoveWatermark) {
    this.rowsMoveWatermark = rowsMoveWatermark;
    this.plan = plan;
    this.checkpointStore = checkpointStore;
    this.localDir = localDir;
    this.tracker = new WatermarkTracker(plan.perPartitionWatermark(), plan.delayMicros());
  }

  /**
   * Starts batch {@code batchId}, evicting with {@code watermarkMicros} and judging late rows with
   * {@code lateWatermarkMicros} (empty: the epoch); loads state version batchId-1 if needed.
   */
  void begin(long batchId, OptionalLong watermarkMicros, OptionalLong lateWatermarkMicros)
      throws IOException {
    long version = batchId - 1;
    if (plan.deduplicates()) {
      if (dedupStage == null) {
        dedupStage = new DedupStage(CHUNK);
      }
      dedupStage.awaitIdle(); // nothing in flight may touch the store while it is reopened
      StateStore before = dedupStore;
      dedupStore = reopen(dedupStore, dedupOperator(), version);
      if (plan.dedupExpiry() == Deduplicator.Expiry.EVENT_TIME_IN_KEY && dedupStore != before) {
        // Loaded from the checkpoint: the filter starts from the loaded keys. (A rolled-back batch
        // on the same store only leaves extra keys in it, which cost a lookup, never a duplicate.)
        recentKeys = new RecentKeys(Math.max(plan.delayMicros(), MIN_FILTER_BUCKET_MICROS));
        Deduplicator.fill(dedupStore, recentKeys);
      }
      dedup =
          new Deduplicator(
              dedupStore, dedupKeyColumns(), plan.dedupExpiry(), plan.delayMicros(), recentKeys);
      dedupStage.begin(dedup);
    }
    this.evictMicros = watermarkMicros.orElse(0);
    this.lateMicros = lateWatermarkMicros.orElse(0);
    tracker.begin(evictMicros, lateMicros);
    if (plan.aggregates()) {
      aggregateStore = reopen(aggregateStore, AGGREGATE_OPERATOR, version);
      long lateWindows = plan.filtersLateWindows() ? lateMicros : Long.MIN_VALUE;
      if (plan.runningAggregation()) {
        aggregator = new RunningAggregator(aggregateStore, plan.groupColumns(), plan.measures());
      } else if (plan.window() instanceof WindowSpec.Session s) {
        aggregator =
            new SessionAggregator(
                aggregateStore,
                Times.micros(s.gap()),
                plan.groupColumns(),
                plan.measures(),
                lateWindows);
      } else if (plan.window() instanceof WindowSpec.Sliding s) {
        aggregator =
            new WindowAggregator(
                aggregateStore,
                Times.micros(s.size()),
                Times.micros(s.slide()),
                plan.groupColumns(),
                plan.measures(),
                lateWindows);
      } else if (plan.window() instanceof WindowSpec.Tumbling t) {
        long micros = Times.micros(t.size());
        aggregator =
            new WindowAggregator(
                aggregateStore, micros, micros, plan.groupColumns(), plan.measures(), lateWindows);
      }
    }
    this.ended = false;
    this.restoredNextWatermark = OptionalLong.empty();
    this.duplicatesDropped = 0;
  }

  /** The dedup key's columns as stored: without the event time where it already leads the key. */
  private int[] dedupKeyColumns() {
    if (plan.dedupExpiry() != Deduplicator.Expiry.EVENT_TIME_IN_KEY) {
      return plan.dedupColumns();
    }
    return Arrays.stream(plan.dedupColumns()).filter(c -> c != plan.watermarkColumn()).toArray();
  }

  private String dedupOperator() {
    return Deduplicator.operatorId(plan.dedupExpiry());
  }

  private StateStore reopen(StateStore current, String operator, long version) throws IOException {
    if (current != null && current.version() == version) {
      current.abort();
      return current;
    }
    if (current != null) {
      current.close();
    }
    return StateStore.open(checkpointStore, operator, version, localDir.resolve(operator));
  }

  /**
   * Marks source partition {@code partition} (the caller's dense numbering, see {@link #accept}) as
   * left behind by this batch: with the per-partition policy it holds the watermark if none of its
   * rows reaches the operators.
   */
  void backlogged(int partition) {
    tracker.backlogged(partition);
  }

  /** A record of {@code partition} was read, whether or not a row of it reaches {@link #accept}. */
  void read(int partition) {
    tracker.read(partition);
  }

  /**
   * An event time seen without a row (a repartition topic's marker, {@link ExchangeRecords}): it
   * advances the watermark as a row with that event time would, and reaches no operator. Ignored
   * without a watermark.
   */
  void observeEventTime(int partition, long eventTimeMicros) {
    if (plan.hasWatermark()) {
      tracker.observe(partition, eventTimeMicros);
    }
  }

  /**
   * Processes one row of the input schema, read from the source partition the caller numbers {@code
   * partition} (0, 1, ...: any dense numbering that stays the same within a batch).
   */
  void accept(Object[] row, int partition, Emitter out) throws IOException {
    long eventTime = 0;
    if (plan.hasWatermark()) {
      Object t = row[plan.watermarkColumn()];
      if (t == null && !plan.judgesLateness()) {
        afterDedup(row, out); // a running aggregation alone: the event time plays no part
        return;
      }
      if (t == null) {
        // Spark drops rows whose event time is null before any stateful operator; we count them.
        out.filtered();
        return;
      }
      eventTime = Times.micros((Instant) t);
      if (rowsMoveWatermark) {
        tracker.observe(partition, eventTime); // late rows too: they reach Spark's watermark node
      }
      if (dedup != null && eventTime <= lateMicros) {
        // Spark's dedup drops rows at or behind the late watermark, whatever its keys hold.
        out.late(row, Emitter.Late.dedup(lateMicros));
        return;
      }
    }
    if (dedup != null) {
      DedupStage.Done done = dedupStage.add(row, eventTime);
      if (done != null) {
        afterDedup(done, out);
      }
      return;
    }
    afterDedup(row, out);
  }

  /**
   * Whether an operator may drop {@code row} as late in this batch: its event time is at or behind
   * the late watermark (deduplication), or its earliest window ends at or before it (aggregation).
   * A row after the late watermark never is late; only those before are worth this check.
   */
  boolean mayBeLate(Object[] row) {
    if (!plan.hasWatermark() || row[plan.watermarkColumn()] == null) {
      return false;
    }
    long t = Times.micros((Instant) row[plan.watermarkColumn()]);
    if (t > lateMicros) {
      return false;
    }
    if (dedup != null) {
      return true;
    }
    if (aggregator == null || !plan.filtersLateWindows()) {
      return false;
    }
    if (plan.window() instanceof WindowSpec.Session s) {
      return t + Times.micros(s.gap()) <= lateMicros;
    } else if (plan.window() instanceof WindowSpec.Sliding w) {
      return earliestWindowEnd(t, Times.micros(w.size()), Times.micros(w.slide())) <= lateMicros;
    } else if (plan.window() instanceof WindowSpec.Tumbling w) {
      return earliestWindowEnd(t, Times.micros(w.size()), Times.micros(w.size())) <= lateMicros;
    }
    return false;
  }

  /**
   * The end of the first window holding t: its start is the least multiple of the slide after t -
   * size.
   */
  private static long earliestWindowEnd(long t, long size, long slide) {
    long after = t - size;
    return after - Math.floorMod(after, slide) + slide + size;
  }

  /**
   * Sends a deduplicated chunk's first occurrences on, in their order, and counts the duplicates.
   */
  private void afterDedup(DedupStage.Done chunk, Emitter out) throws IOException {
    for (int i = 0; i < chunk.size(); i++) {
      if (chunk.first()[i]) {
        afterDedup(chunk.rows()[i], out);
      } else {
        duplicatesDropped++;
      }
    }
  }

  private void afterDedup(Object[] row, Emitter out) throws IOException {
    if (aggregator == null) {
      out.output(row);
      return;
    }
    if (plan.runningAggregation()) {
      aggregator.add(row, 0L, out); // no window: the row's time plays no part, nothing is late
      return;
    }
    Object w = row[plan.windowColumn()];
    if (w == null) {
      out.filtered();
      return;
    }
    aggregator.add(row, Times.micros((Instant) w), out);
  }

  /** Emits what the batch finalised and evicts what the watermark passed. */
  void end(Emitter out) throws IOException {
    if (dedup != null) {
      for (DedupStage.Done chunk : dedupStage.drain()) {
        afterDedup(chunk, out);
      }
    }
    if (dedup != null) {
      dedup.resetCounters();
      if (plan.hasWatermark()) {
        dedup.evict(evictMicros);
      }
    }
    if (aggregator != null) {
      aggregator.resetCounters();
      Aggregator.Mode mode =
          switch (plan.outputMode()) {
            case APPEND -> Aggregator.Mode.APPEND;
            case UPDATE -> Aggregator.Mode.UPDATE;
            case COMPLETE -> Aggregator.Mode.COMPLETE;
          };
      aggregator.finish(mode, plan.evictsWindows() ? evictMicros : Long.MIN_VALUE, out);
    }
    ended = true;
  }

  /**
   * The watermark the next batch evicts with ({@link WatermarkTracker}); empty without a watermark.
   */
  OptionalLong nextWatermark() {
    if (!plan.hasWatermark()) {
      return OptionalLong.empty();
    }
    if (restoredNextWatermark.isPresent()) {
      return restoredNextWatermark;
    }
    return OptionalLong.of(tracker.nextMicros());
  }

  /**
   * After a restart: the last committed batch applied {@code applied} and set {@code next} for the
   * next one, as if that batch had just ended here, so that {@link #wantsNoDataBatch} asks for the
   * no-data batch the previous run may have stopped before.
   */
  void restored(OptionalLong applied, OptionalLong next) {
    if (!plan.hasWatermark()) {
      return;
    }
    this.evictMicros = applied.orElse(0);
    this.restoredNextWatermark = next;
    this.ended = true;
  }

  /**
   * Like Spark (StateStoreWriter.shouldRunAnotherBatch): after a batch whose next watermark is
   * ahead of the one it evicted with, a batch without data runs so that windows and keys the new
   * watermark passes are emitted and evicted, if an operator would: a deduplication (any kind), or
   * an aggregation in append or update mode.
   */
  boolean wantsNoDataBatch() {
    OptionalLong next = nextWatermark();
    return next.isPresent() && wantsNoDataBatch(next.getAsLong());
  }

  /**
   * {@link #wantsNoDataBatch()} for a query whose watermark comes from elsewhere (the operators
   * after a stream-stream join, {@link DownstreamWatermark}): whether an operator would emit or
   * evict if the next batch evicted with {@code nextEvictMicros} (Spark asks each operator with its
   * own input watermark of the tentative next batch, {@code IncrementalExecution
   * .shouldRunAnotherBatch}).
   */
  boolean wantsNoDataBatch(long nextEvictMicros) {
    boolean evicts =
        plan.deduplicates() || plan.aggregates() && plan.outputMode() != OutputMode.COMPLETE;
    return ended && plan.hasWatermark() && evicts && nextEvictMicros > evictMicros;
  }

  /**
   * Makes the batch's state changes durable as version {@code batchId}. Every {@value #PURGE_EVERY}
   * batches, state files no version of the last {@value #VERSIONS_KEPT} needs are deleted (a
   * restart only ever needs the last committed version; the margin keeps older ones for
   * inspection).
   */
  void commit(long batchId) throws IOException {
    if (dedupStore != null
        && !dedupStore.commit(batchId)
        && plan.dedupExpiry() == Deduplicator.Expiry.EVENT_TIME_IN_KEY) {
      // A replay adopted the state an earlier attempt committed: the filter must cover its keys.
      recentKeys = new RecentKeys(Math.max(plan.delayMicros(), MIN_FILTER_BUCKET_MICROS));
      Deduplicator.fill(dedupStore, recentKeys);
    }
    if (aggregateStore != null) {
      aggregateStore.commit(batchId);
    }
    if (batchId % PURGE_EVERY == 0 && batchId > VERSIONS_KEPT) {
      if (dedupStore != null) {
        StateStore.purge(checkpointStore, dedupOperator(), batchId - VERSIONS_KEPT);
      }
      if (aggregateStore != null) {
        StateStore.purge(checkpointStore, AGGREGATE_OPERATOR, batchId - VERSIONS_KEPT);
      }
    }
  }

  /** Rows, bytes and evictions per operator, for the batch progress. */
  Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    long keys = 0;
    long bytes = 0;
    if (dedupStore != null) {
      StateMetrics s = dedupStore.metrics();
      m.put("dedup.keys", s.keys());
      m.put("dedup.bytes", s.bytes());
      m.put("dedup.keysEvicted", dedup.evicted());
      m.put("dedup.duplicatesDropped", duplicatesDropped);
      keys += s.keys();
      bytes += s.bytes();
    }
    if (aggregateStore != null) {
      StateMetrics s = aggregateStore.metrics();
      m.put("aggregate.keys", s.keys());
      m.put("aggregate.bytes", s.bytes());
      m.put("aggregate.windowsEvicted", aggregator.evicted());
      keys += s.keys();
      bytes += s.bytes();
    }
    m.put("keys", keys);
    m.put("bytes", bytes);
    return m;
  }

  @Override
  public void close() {
    if (dedupStage != null) {
      dedupStage.close();
    }
    if (dedupStore != null) {
      dedupStore.close();
    }
    if (aggregateStore != null) {
      aggregateStore.close();
    }
  }
}
