package dev.tributary.service.server;

import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.VacuumResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The meters of one served pipeline (names in {@link MetricNames}). Fed by the pipeline's progress
 * records, its supervisor and its maintenance passes; gauges read the last values recorded.
 */
final class PipelineMetrics {
  private final MeterRegistry registry;
  private final String pipeline;
  private final String table;
  private final Clock clock;
  private final Tags tags;
  private final Tags tableTags;
  private final Map<String, AtomicLong> lagByTopic = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> sourceLag = new ConcurrentHashMap<>();
  private final AtomicReference<Instant> watermark = new AtomicReference<>();
  private final AtomicReference<Instant> lastBatch = new AtomicReference<>();
  private final AtomicReference<Instant> newestCommitted = new AtomicReference<>();

  /** Per {@link MetricNames#SIDE} value: the state gauges' rows and bytes. */
  private final Map<String, AtomicLong[]> state = new ConcurrentHashMap<>();

  private final AtomicReference<Double> quarantinedFraction = new AtomicReference<>(0.0);
  private final AtomicLong partitionsOwned = new AtomicLong();

  /** Set by the first rebalance of the source's group: from then on the gauge follows the group. */
  private volatile boolean ownedByGroup;

  PipelineMetrics(
      MeterRegistry registry,
      String pipeline,
      String table,
      Supplier<PipelineState> state,
      Clock clock) {
    this.registry = registry;
    this.pipeline = pipeline;
    this.table = table;
    this.clock = clock;
    this.tags = Tags.of(MetricNames.PIPELINE, pipeline);
    this.tableTags = tags.and(MetricNames.TABLE, table);
    for (PipelineState s : PipelineState.values()) {
      Gauge.builder(MetricNames.PIPELINE_STATE, state, current -> current.get() == s ? 1 : 0)
          .tags(tags.and(MetricNames.OUTCOME, s.name().toLowerCase(Locale.ROOT)))
          .description("1 while the pipeline is in this state")
          // The supplier is referenced by nothing else: a weak reference would let it be collected.
          .strongReference(true)
          .register(registry);
    }
    Gauge.builder(MetricNames.WATERMARK_DELAY, watermark, this::watermarkDelaySeconds)
        .tags(tags)
        .baseUnit("seconds")
        .description("now minus the watermark of the last batch")
        .register(registry);
    Gauge.builder(MetricNames.LAST_BATCH_AGE, lastBatch, this::secondsSince)
        .tags(tags)
        .baseUnit("seconds")
        .description("seconds since the last successful batch (NaN before the first one)")
        .register(registry);
    Gauge.builder(MetricNames.FRESHNESS, newestCommitted, this::secondsSince)
        .tags(tableTags)
        .baseUnit("seconds")
        .description("now minus the newest Kafka record timestamp committed (NaN before one)")
        .register(registry);
    Gauge.builder(MetricNames.QUARANTINED_FRACTION, quarantinedFraction, AtomicReference::get)
        .tags(tags)
        .description("quarantined / read records of the last batch")
        .register(registry);
    stateGauges(NO_SIDE);
    Gauge.builder(MetricNames.PARTITIONS_OWNED, partitionsOwned, AtomicLong::get)
        .tags(tags)
        .description(
            "source partitions the last batch planned (a consumer-group member: its share)")
        .register(registry);
    // Created up front so that dashboards see zeros rather than missing series.
    counter(MetricNames.RECORDS_IN, tags);
    counter(MetricNames.RECORDS_OUT, tableTags);
    counter(MetricNames.RECORDS_QUARANTINED, tags);
    counter(MetricNames.RECORDS_LATE, tags);
    counter(MetricNames.RECORDS_FILTERED, tags);
    counter(MetricNames.BATCHES, tags);
    counter(MetricNames.PIPELINE_RESTARTS, tags);
    counter(MetricNames.COMMIT_RETRIES, tableTags);
    counter(MetricNames.COMMIT_CONFLICTS, tableTags);
    counter(MetricNames.COMPACTION_FILES, tableTags);
    counter(MetricNames.COMPACTION_BYTES, tableTags);
    counter(MetricNames.VACUUM_FILES, tableTags);
    counter(MetricNames.VACUUM_BYTES, tableTags);
  }

  private static final String NO_SIDE = "none";
  private static final List<String> JOIN_SIDES = List.of("left", "right");

  /** The rows and bytes gauges of one side of the state, registered on first use. */
  private AtomicLong[] stateGauges(String side) {
    return state.computeIfAbsent(
        side,
        k -> {
          AtomicLong[] values = {new AtomicLong(), new AtomicLong()};
          Tags sideTags = tags.and(MetricNames.SIDE, side);
          Gauge.builder(MetricNames.STATE_ROWS, values[0], AtomicLong::get)
              .tags(sideTags)
              .register(registry);
          Gauge.builder(MetricNames.STATE_BYTES, values[1], AtomicLong::get)
              .tags(sideTags)
              .baseUnit("bytes")
              .register(registry);
          return values;
        });
  }

  /** Records one completed batch. */
  void batchDone(BatchProgress p) {
    lastBatch.set(clock.instant());
    counter(MetricNames.COMMIT_RETRIES, tableTags).increment(p.commitRetries());
    counter(MetricNames.COMMIT_CONFLICTS, tableTags).increment(p.commitConflicts());
    counter(MetricNames.RECORDS_IN, tags).increment(p.inputRows());
    counter(MetricNames.RECORDS_OUT, tableTags).increment(p.outputRows());
    counter(MetricNames.RECORDS_QUARANTINED, tags).increment(p.quarantinedRows());
    counter(MetricNames.RECORDS_LATE, tags).increment(p.lateRows());
    counter(MetricNames.RECORDS_FILTERED, tags).increment(p.filteredRows());
    counter(MetricNames.BATCHES, tags).increment();
    p.expectations()
        .forEach(
            (rule, rows) ->
                counter(MetricNames.EXPECTATION_VIOLATIONS, tags.and("expectation", rule))
                    .increment(rows));
    timer("total").record(Duration.ofMillis(p.durationMs()));
    p.phasesMs().forEach((phase, ms) -> timer(phase).record(Duration.ofMillis(ms)));
    Map<String, Long> lag = new HashMap<>();
    for (BatchProgress.PartitionProgress partition : p.partitions()) {
      lag.merge(partition.topic(), partition.lag(), Long::sum);
    }
    lag.forEach((topic, value) -> lagGauge(topic).set(value));
    p.sourceLag().forEach((measure, value) -> sourceLagGauge(measure).set(value));
    watermark.set(p.watermark());
    if (p.newestRecordAt() != null) {
      // never back: a batch of older records (a replay, a late partition) does not make data older
      newestCommitted.accumulateAndGet(
          p.newestRecordAt(), (old, now) -> old == null || now.isAfter(old) ? now : old);
    }
    quarantinedFraction.set(p.quarantinedFraction());
    // The stateful processor reports its total as "keys" (rows held across its stores), a join's
    // processor as "rows" with its sides apart: each side is a series, the rest is side "none".
    Map<String, Long> s = p.state();
    long rows = s.getOrDefault("keys", s.getOrDefault("rows", 0L));
    long bytes = s.getOrDefault("bytes", 0L);
    for (String side : JOIN_SIDES) {
      Long sideRows = s.get("join." + side + ".rows");
      if (sideRows != null) {
        long sideBytes = s.getOrDefault("join." + side + ".bytes", 0L);
        AtomicLong[] gauges = stateGauges(side);
        gauges[0].set(sideRows);
        gauges[1].set(sideBytes);
        rows -= sideRows;
        bytes -= sideBytes;
      }
    }
    AtomicLong[] rest = stateGauges(NO_SIDE);
    rest[0].set(rows);
    rest[1].set(bytes);
    if (!ownedByGroup) {
      partitionsOwned.set(p.partitions().size());
    }
  }

  /**
   * Registers the commit-lag gauge ({@link MetricNames#COMMIT_LAG}) reading {@code uncommitted} at
   * each scrape (the run activity's {@code uncommittedReads}).
   */
  void commitLag(LongSupplier uncommitted) {
    Gauge.builder(MetricNames.COMMIT_LAG, uncommitted, LongSupplier::getAsLong)
        .tags(tableTags)
        .description("records read by the batch in flight and not committed yet")
        .strongReference(true)
        .register(registry);
  }

  /** The freshness gauge's value now: seconds since the newest committed record, or NaN. */
  double freshnessSeconds() {
    return secondsSince(newestCommitted);
  }

  /**
   * Creates the rebalance counters of a group-assignment pipeline up front, so that dashboards see
   * zeros rather than missing series.
   */
  void groupAssignment() {
    for (GroupMember.Kind kind : GroupMember.Kind.values()) {
      counter(MetricNames.REBALANCES, tags.and(MetricNames.KIND, kind.tag()));
    }
  }

  /**
   * Counts one change of this instance's assignment; a change in the source's consumer group
   * ({@code tributary-<pipeline>}) also sets {@link MetricNames#PARTITIONS_OWNED} at once, without
   * waiting for the next batch. Called on the run's thread inside the consumer's poll.
   */
  void rebalanced(GroupMember.Rebalance change) {
    counter(MetricNames.REBALANCES, tags.and(MetricNames.KIND, change.kind().tag())).increment();
    if (change.groupId().equals(KafkaSourceSettings.consumerGroup(pipeline))) {
      ownedByGroup = true;
      partitionsOwned.set(change.owned().size());
    }
  }

  void failure(boolean permanent) {
    counter(
            MetricNames.PIPELINE_FAILURES,
            tags.and(MetricNames.OUTCOME, permanent ? "permanent" : "transient"))
        .increment();
  }

  void restarted() {
    counter(MetricNames.PIPELINE_RESTARTS, tags).increment();
  }

  void compacted(CompactionResult result, CommitCounters commits) {
    counter(MetricNames.COMPACTION_FILES, tableTags).increment(result.filesRemoved());
    counter(MetricNames.COMPACTION_BYTES, tableTags).increment(result.bytesRemoved());
    commits(commits);
  }

  void vacuumed(VacuumResult result) {
    if (result.deleted()) {
      counter(MetricNames.VACUUM_FILES, tableTags).increment(result.files().size());
      counter(MetricNames.VACUUM_BYTES, tableTags).increment(result.bytes());
    }
  }

  void commits(CommitCounters commits) {
    counter(MetricNames.COMMIT_RETRIES, tableTags).increment(commits.retries());
    counter(MetricNames.COMMIT_CONFLICTS, tableTags).increment(commits.conflicts());
  }

  /** Counts one compaction, vacuum or backfill run by outcome. */
  void run(String metric, String outcome) {
    counter(metric, tags.and(MetricNames.OUTCOME, outcome)).increment();
  }

  String table() {
    return table;
  }

  private double secondsSince(AtomicReference<Instant> ref) {
    Instant at = ref.get();
    return at == null ? Double.NaN : Duration.between(at, clock.instant()).toMillis() / 1000.0;
  }

  private double watermarkDelaySeconds(AtomicReference<Instant> ref) {
    Instant w = ref.get();
    return w == null ? Double.NaN : Duration.between(w, clock.instant()).toMillis() / 1000.0;
  }

  private AtomicLong lagGauge(String topic) {
    return lagByTopic.computeIfAbsent(
        topic,
        t -> {
          AtomicLong value = new AtomicLong();
          Gauge.builder(MetricNames.LAG, value, AtomicLong::get)
              .tags(tags.and(MetricNames.TOPIC, t))
              .description("offsets behind the latest offset after the last batch")
              .register(registry);
          return value;
        });
  }

  private AtomicLong sourceLagGauge(String measure) {
    return sourceLag.computeIfAbsent(
        measure,
        m -> {
          AtomicLong value = new AtomicLong();
          Gauge.builder(MetricNames.SOURCE_LAG, value, AtomicLong::get)
              .tags(tags.and(MetricNames.MEASURE, m))
              .description(
                  "the source's lag after the last batch (a Delta source: versions, files, bytes behind)")
              .register(registry);
          return value;
        });
  }

  private Counter counter(String name, Tags t) {
    return registry.counter(name, t);
  }

  private Timer timer(String phase) {
    return Timer.builder(MetricNames.BATCH_DURATION)
        .tags(tags.and(MetricNames.PHASE, phase))
        .register(registry);
  }

  @Override
  public String toString() {
    return "PipelineMetrics[" + pipeline + "]";
  }
}
