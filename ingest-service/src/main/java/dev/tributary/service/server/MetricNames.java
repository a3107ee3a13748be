package dev.tributary.service.server;

/**
 * Every metric the service publishes, in one place (docs/OPERATIONS.md lists them with their
 * Prometheus names: dots become underscores, counters gain {@code _total}, timers {@code
 * _seconds}). Tags are low-cardinality only: {@link #PIPELINE}, {@link #TOPIC}, {@link #TABLE},
 * {@link #OUTCOME}, {@link #KIND} (three names), {@link #CHECK} (two names), {@link #SITE} (the
 * retry sites, a fixed set of code paths) and, for batch phases, {@link #PHASE} (a fixed set of
 * five names + total).
 */
public final class MetricNames {
  private MetricNames() {}

  /** Records read from Kafka. Tags: pipeline. */
  public static final String RECORDS_IN = "tributary.records.in";

  /** Rows committed to the sink table. Tags: pipeline, table. */
  public static final String RECORDS_OUT = "tributary.records.out";

  /** Records that failed to parse, written to the quarantine table. Tags: pipeline. */
  public static final String RECORDS_QUARANTINED = "tributary.records.quarantined";

  /**
   * The share of the last batch's records that went to the quarantine table (quarantined / read, 0
   * for a batch without input; progress record {@code quarantinedFraction}). Tags: pipeline.
   */
  public static final String QUARANTINED_FRACTION = "tributary.batch.quarantined.fraction";

  /** Rows behind the watermark (dropped or written to the late-events table). Tags: pipeline. */
  public static final String RECORDS_LATE = "tributary.records.late";

  /** Rows removed by filters. Tags: pipeline. */
  public static final String RECORDS_FILTERED = "tributary.records.filtered";

  /**
   * Rows that violated an expectation, tagged {@code expectation} with the rule's name (whatever
   * its on-violation did with them).
   */
  public static final String EXPECTATION_VIOLATIONS = "tributary.expectation.violations";

  /** Completed micro-batches. Tags: pipeline. */
  public static final String BATCHES = "tributary.batches";

  /**
   * Duration of batches and their phases. Tags: pipeline, phase (plan, walCommit, process, commit,
   * checkpointCommit, total).
   */
  public static final String BATCH_DURATION = "tributary.batch.duration";

  /** Offsets behind the latest offset after the last batch. Tags: pipeline, topic. */
  public static final String LAG = "tributary.lag";

  /**
   * A source's own lag measures after the last batch (progress record {@code sourceLag}; a Delta
   * source: versionsBehind, filesBehind, bytesBehind). Tags: pipeline, measure.
   */
  public static final String SOURCE_LAG = "tributary.source.lag";

  /**
   * Seconds between now and the watermark of the last batch (absent without a watermark). Tags:
   * pipeline.
   */
  public static final String WATERMARK_DELAY = "tributary.watermark.delay";

  /**
   * Rows (keys) held in the state stores after the last batch (progress record {@code state.keys},
   * or a stream-stream join's {@code join.left.rows} / {@code join.right.rows}). Tags: pipeline,
   * side ({@link #SIDE}): summed over the sides, the pipeline's total.
   */
  public static final String STATE_ROWS = "tributary.state.rows";

  /**
   * Bytes held in the state stores after the last batch (progress record {@code state.bytes}, or a
   * stream-stream join's {@code join.left.bytes} / {@code join.right.bytes}). Tags: pipeline, side.
   */
  public static final String STATE_BYTES = "tributary.state.bytes";

  /**
   * Source partitions the last batch planned: every partition of the topics, or, with {@code
   * source.kafka.assignment: group}, this instance's share of the consumer group {@code
   * tributary-<pipeline>}, updated at every rebalance. Tags: pipeline.
   */
  public static final String PARTITIONS_OWNED = "tributary.partitions.owned";

  /**
   * Changes of this instance's assignment in a consumer group ({@code source.kafka.assignment:
   * group}): partitions assigned to it, revoked from it (handed over), or lost (it missed its
   * session timeout). One per callback that moved partitions, whatever their number. Tags:
   * pipeline, kind (assigned, revoked, lost).
   */
  public static final String REBALANCES = "tributary.rebalances";

  /**
   * 1 while the pipeline is in a given state, else 0. Tags: pipeline, outcome (the state name in
   * lower case: starting, running, degraded, idle, stopped, failed).
   */
  public static final String PIPELINE_STATE = "tributary.pipeline.state";

  /**
   * Seconds since the pipeline's last successful batch (NaN before the first one since the service
   * started). Grows during an outage (state degraded), and also while no new data arrives. Tags:
   * pipeline.
   */
  public static final String LAST_BATCH_AGE = "tributary.last.batch.age";

  /**
   * Freshness: seconds between now and the newest Kafka record timestamp ({@code _kafka_timestamp})
   * committed so far (NaN before the first batch with a timestamp). Computed at each scrape, so it
   * keeps rising while the pipeline commits nothing, even when consumer lag looks fine. Tags:
   * pipeline, table.
   */
  public static final String FRESHNESS = "tributary.freshness";

  /**
   * Commit lag: records read by the batch in flight and not committed yet (0 between batches;
   * {@link dev.tributary.service.engine.RunActivity#uncommittedReads}). Tags: pipeline, table.
   */
  public static final String COMMIT_LAG = "tributary.commit.lag";

  /** Runs that ended with a failure. Tags: pipeline, outcome (transient, permanent). */
  public static final String PIPELINE_FAILURES = "tributary.pipeline.failures";

  /** Restarts after transient failures. Tags: pipeline. */
  public static final String PIPELINE_RESTARTS = "tributary.pipeline.restarts";

  /** Commit retries of maintenance commits. Tags: pipeline, table. */
  public static final String COMMIT_RETRIES = "tributary.commit.retries";

  /**
   * Retries in this process, by retry site (a code path such as {@code delta.commit}, {@code
   * s3.put-if-absent}, {@code s3.request}, {@code registry.fetch}; dev.tributary.storage.retry).
   * Process-wide: stores and tables are shared between pipelines. Tags: site.
   */
  public static final String RETRIES = "tributary.retries";

  /** Commit conflicts of maintenance commits. Tags: pipeline, table. */
  public static final String COMMIT_CONFLICTS = "tributary.commit.conflicts";

  /** Small files compaction replaced. Tags: pipeline, table. */
  public static final String COMPACTION_FILES = "tributary.compaction.files";

  /** Bytes of the small files compaction replaced. Tags: pipeline, table. */
  public static final String COMPACTION_BYTES = "tributary.compaction.bytes";

  /** Files vacuum deleted. Tags: pipeline, table. */
  public static final String VACUUM_FILES = "tributary.vacuum.files";

  /** Bytes vacuum deleted. Tags: pipeline, table. */
  public static final String VACUUM_BYTES = "tributary.vacuum.bytes";

  /** Compaction passes. Tags: pipeline, outcome (success, failure, skipped). */
  public static final String COMPACTION_RUNS = "tributary.compaction.runs";

  /** Vacuum passes. Tags: pipeline, outcome (success, failure, skipped). */
  public static final String VACUUM_RUNS = "tributary.vacuum.runs";

  /** Scheduled or requested available-now runs. Tags: pipeline, outcome (started, skipped). */
  public static final String BACKFILL_RUNS = "tributary.backfill.runs";

  /**
   * Remote health checks that really ran (not answered from the cache). Tags: check (kafka,
   * storage).
   */
  public static final String HEALTH_CHECKS = "tributary.health.checks";

  /** Tag: the pipeline id. */
  public static final String PIPELINE = "pipeline";

  /**
   * Tag: which part of a pipeline's state a {@link #STATE_ROWS} / {@link #STATE_BYTES} series
   * holds: {@code left} or {@code right}, a stream-stream join's sides, or {@code none}, the other
   * operators' stores (deduplication, aggregation; all of a pipeline without a stream join). Three
   * values at most, so the series stay few.
   */
  public static final String SIDE = "side";

  /** Tag: a Kafka topic. */
  public static final String TOPIC = "topic";

  /** Tag: a Delta table location. */
  public static final String TABLE = "table";

  /** Tag: how an operation ended. */
  public static final String OUTCOME = "outcome";

  /** Tag: a health check kind (kafka, storage). */
  public static final String CHECK = "check";

  /** Tag: a batch phase. */
  public static final String PHASE = "phase";

  /** Tag: how a {@link #REBALANCES} change moved partitions (assigned, revoked, lost). */
  public static final String KIND = "kind";

  /** Tag: the retry site of {@link #RETRIES} (a fixed set of code paths). */
  public static final String SITE = "site";

  /** Tag: the name of a {@link #SOURCE_LAG} measure. */
  public static final String MEASURE = "measure";
}
