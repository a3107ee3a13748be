package dev.tributary.service.source;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.RangeRevokedException;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.SourceInput;
import dev.tributary.service.engine.SourceStoppedException;
import dev.tributary.service.source.SourcePlan.DataGap;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka source behind the engine's {@link Source} SPI. It never relies on consumer-group
 * positions: the checkpoint's offsets log (in group assignment, the tables' positions or the
 * group's offsets) is the source of truth, and every batch is read with {@code seek}, so a replayed
 * batch reads the very same records. After a batch is committed the processed offsets are also
 * committed to the consumer group {@code tributary-<pipeline>}, best effort, so that standard lag
 * tools see the pipeline.
 *
 * <p>A batch range is the offsets per partition (the offsets log's {@code ranges}), plus facts: the
 * partitions the range leaves behind ({@value BatchRange#BACKLOGGED}), what the plan could not read
 * as the checkpoint expected ({@value #DATA_LOSS}) and the topics' ids ({@value #TOPIC_IDS}).
 *
 * <p>The work is done by parts with one role each, sharing one consumer ({@link KafkaClients}):
 * {@link RangePlanner} decides the ranges (with {@link BrokerMetadata}'s offsets), {@link
 * RangeReader} reads them, and in group assignment {@link KafkaGroup} is the consumer group's side
 * ({@link GroupMembership} follows the rebalances). This class adapts them to the engine and names
 * ranges in history and messages.
 *
 * <p>Not thread-safe: one source per pipeline run, used from the engine's thread (except {@link
 * #wakeup}).
 */
public final class KafkaSource implements Source {
  /**
   * Range fact: input the plan could not take as the checkpoint expected (fail-on-data-loss:
   * false), a JSON array of {@link DataGap#toJson()} objects.
   */
  public static final String DATA_LOSS = "dataLoss";

  /**
   * Range fact: the planned topics' ids, a JSON object by topic name; the next plan compares them
   * to find a topic deleted and re-created.
   */
  public static final String TOPIC_IDS = "topicIds";

  private static final Logger log = LoggerFactory.getLogger(KafkaSource.class);

  private final KafkaSourceSettings settings;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final BrokerMetadata broker;
  private final RangePlanner planner;
  private final RangeReader reader;

  /** Group assignment only: the consumer group's side. */
  private final Optional<KafkaGroup> group;

  private Map<TopicPartition, OffsetAndMetadata> lastGroupOffsets;

  /** Available-now: the latest offsets when the run started, which no batch goes past. */
  private Map<TopicPartition, Long> ceiling = Map.of();

  /** A run bounded by time (a backfill): where available-now ends instead of the latest offsets. */
  private Optional<Instant> endAt = Optional.empty();

  /** Whether the latest plan found nothing to read below the ceiling. */
  private boolean drained;

  public KafkaSource(KafkaSourceSettings settings) {
    this.settings = settings;
    KafkaClients.Opened clients = KafkaClients.open(settings);
    this.consumer = clients.consumer();
    this.broker = new BrokerMetadata(settings, consumer);
    this.planner = new RangePlanner(settings, broker);
    this.reader = new RangeReader(settings, consumer, broker, clients.membership());
    this.group =
        clients.membership().map(m -> new KafkaGroup(settings, consumer, m, broker, planner));
  }

  /**
   * This process, as {@code <host>/<pid>}: recorded in group-mode commits, shown in the group's
   * members.
   */
  public static String instanceId() {
    return KafkaClients.instanceId();
  }

  /**
   * Group assignment: this instance's membership of the consumer group {@code tributary-<pipeline>}
   * (what the REST API and the rebalance metrics show); empty in exclusive assignment.
   */
  public Optional<GroupMember> groupMember() {
    return group.map(KafkaGroup::member);
  }

  /**
   * Group assignment: the consumer group's side of this source (planning from the group's offsets,
   * ownership checks, the assignment).
   *
   * @throws IllegalStateException in exclusive assignment
   */
  public KafkaGroup group() {
    return group.orElseThrow(
        () -> new IllegalStateException(SourceMessages.notAGroupSource(settings.pipelineId())));
  }

  /** What this source was configured with. */
  public KafkaSourceSettings settings() {
    return settings;
  }

  /** Every partition of the declared topics (or of the topics matching the pattern), sorted. */
  public List<TopicPartition> partitions() {
    return broker.partitions();
  }

  /** The next offset a producer would write, per partition. */
  public Map<TopicPartition, Long> latestOffsets(Collection<TopicPartition> partitions) {
    return broker.latest(partitions);
  }

  /**
   * Plans the next batch in Kafka's terms (the {@link Source} plan without the engine's types).
   *
   * @param committedEnds where the previous batch ended, per partition known to the checkpoint
   * @param topicIds the topics' ids recorded with {@code committedEnds} (empty when unknown)
   * @param newPartitions where partitions without a position start
   * @param upTo optional per-partition ceiling (available-now: the latest offsets seen at start)
   */
  SourcePlan plan(
      Map<TopicPartition, Long> committedEnds,
      Map<String, String> topicIds,
      RangePlanner.NewPartitions newPartitions,
      Map<TopicPartition, Long> upTo) {
    if (group.isEmpty()) {
      return planner.plan(
          partitions(),
          new RangePlanner.Start(
              committedEnds, topicIds, newPartitions, RangePlanner.Positions.IN_OFFSETS_LOG),
          upTo);
    }
    List<TopicPartition> assigned = group.get().assignedNow();
    // The positions of partitions other members own are theirs to continue.
    Map<TopicPartition, Long> own = new HashMap<>(committedEnds);
    own.keySet().retainAll(assigned);
    return planner.plan(
        assigned,
        new RangePlanner.Start(
            own, Map.of(), newPartitions, RangePlanner.Positions.IN_TABLES_OR_GROUP),
        upTo);
  }

  /**
   * Reads exactly the planned ranges, handing every record with an offset inside its range to the
   * handler, partitions interleaved as the consumer returns them (the fastest order).
   *
   * @return input skipped because it vanished while reading (fail-on-data-loss: false)
   * @throws DataLossException if input of the range vanished and fail-on-data-loss is true
   */
  public List<DataGap> read(Map<TopicPartition, OffsetRange> ranges, SourceRecordHandler handler)
      throws Exception {
    return reader.read(ranges, handler, RangeReader.Order.INTERLEAVED);
  }

  /**
   * Like {@link #read}, but one partition after the other, in (topic, partition) order: the records
   * reach the handler in an order that depends only on the ranges ({@link
   * RangeReader.Order#PARTITION_ORDER}).
   */
  public List<DataGap> readInPartitionOrder(
      Map<TopicPartition, OffsetRange> ranges, SourceRecordHandler handler) throws Exception {
    return reader.read(ranges, handler, RangeReader.Order.PARTITION_ORDER);
  }

  /**
   * Plans the next batch of ONE partition, for a sub-pipeline that reads only it (stage 2 of a
   * stateful pipeline, one sub-pipeline per partition of the repartition topic): its range starts
   * where {@code previous} ends, at the partition's earliest offset when {@code previous} does not
   * name it, and ends at the latest offset (read_committed: the last stable offset), with no
   * available-now ceiling of the source's own (the caller decides when the run ends).
   *
   * @throws RangeRevokedException in group assignment, if the group does not assign {@code
   *     partition} to this instance now
   */
  public PlannedBatch planPartition(BatchRange previous, TopicPartition partition) {
    SourcePlan plan =
        stoppable(
            () -> {
              group.ifPresent(g -> g.requireAssigned(partition));
              Map<TopicPartition, Long> ends = KafkaRanges.ends(previous);
              ends.keySet().retainAll(List.of(partition));
              return planner.plan(
                  List.of(partition),
                  new RangePlanner.Start(
                      ends,
                      KafkaRanges.topicIds(previous),
                      RangePlanner.NewPartitions.AT_EARLIEST,
                      RangePlanner.Positions.IN_OFFSETS_LOG),
                  Map.of());
            });
    return planned(plan, KafkaRanges.range(plan), false);
  }

  /**
   * Plans the next batch of ONE source partition, for a sub-pipeline that reads only it (a keyed-by
   * stateful group pipeline, docs/DESIGN.md "Keyed-by sources: no exchange"): its range starts
   * where {@code previous} ends, at {@code starting-offsets} when {@code previous} does not name it
   * (the batch is then run even without records, so that the start is pinned in the
   * sub-checkpoint), and ends at the latest offset, or at the available-now ceiling once {@link
   * #boundToAvailableNow} fixed one.
   *
   * @throws RangeRevokedException in group assignment, if the group does not assign {@code
   *     partition} to this instance now
   */
  public PlannedBatch planOwnPartition(BatchRange previous, TopicPartition partition) {
    Map<TopicPartition, Long> ends = KafkaRanges.ends(previous);
    ends.keySet().retainAll(List.of(partition));
    SourcePlan plan =
        stoppable(
            () -> {
              group.ifPresent(g -> g.requireAssigned(partition));
              Map<TopicPartition, Long> upTo = new HashMap<>(ceiling);
              upTo.keySet().retainAll(List.of(partition));
              return planner.plan(
                  List.of(partition),
                  new RangePlanner.Start(
                      ends,
                      KafkaRanges.topicIds(previous),
                      RangePlanner.NewPartitions.AT_STARTING_OFFSETS,
                      RangePlanner.Positions.IN_OFFSETS_LOG),
                  upTo);
            });
    return planned(plan, KafkaRanges.range(plan), ends.isEmpty());
  }

  /**
   * Where each partition counts as read to the end now: its latest offset, capped at the
   * available-now ceiling once one is fixed (nothing above it is read in this run).
   */
  public Map<TopicPartition, Long> readableEnds(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> latest = new HashMap<>(stoppable(() -> latestOffsets(partitions)));
    ceiling.forEach((tp, end) -> latest.computeIfPresent(tp, (k, l) -> Math.min(l, end)));
    return latest;
  }

  @Override
  public void boundToAvailableNow() {
    ceiling =
        stoppable(
            () ->
                endAt.isPresent()
                    ? TimeCeiling.at(broker, partitions(), endAt.get())
                    : latestOffsets(partitions()));
  }

  /**
   * Bounds the next available-now run by time rather than by the latest offsets: each partition
   * ends before its first record whose Kafka timestamp is at or after {@code until}, or at its
   * latest offset where none is (a backfill, docs/DESIGN.md "Backfills"). Call before the run.
   */
  public void endAt(Instant until) {
    endAt = Optional.of(until);
  }

  /**
   * The partitions that may have lost records from {@code start} on to retention: each one's oldest
   * retained offset (above 0: older records were deleted) is also its first record at or after
   * {@code start}, so records of the time range may have been among the deleted ones. Empty when
   * every partition still holds a record older than {@code start} (or never lost any).
   */
  public Map<TopicPartition, Long> retentionGaps(Instant start) {
    return stoppable(() -> TimeCeiling.retentionGaps(broker, partitions(), start));
  }

  /**
   * Whether the run is bounded ({@link #boundToAvailableNow}) and the latest plan found nothing
   * left to read below the ceiling: the bounded input has been read to its end.
   */
  public boolean drained() {
    return !ceiling.isEmpty() && drained;
  }

  @Override
  public PlannedBatch plan(BatchRange previous, boolean firstBatch) {
    SourcePlan plan =
        stoppable(
            () ->
                plan(
                    KafkaRanges.ends(previous),
                    KafkaRanges.topicIds(previous),
                    firstBatch
                        ? RangePlanner.NewPartitions.AT_STARTING_OFFSETS
                        : RangePlanner.NewPartitions.AT_EARLIEST,
                    ceiling));
    drained = plan.offsetCount() == 0;
    BatchRange range = KafkaRanges.range(plan);
    // A group member's partition the sink table has no position for yet is pinned by a batch even
    // without records: its starting point (latest, a timestamp) is then fixed for whoever owns it
    // next.
    boolean unpinned =
        group.isPresent() && !previous.offsets().keySet().containsAll(range.offsets().keySet());
    return planned(plan, range, unpinned);
  }

  private static PlannedBatch planned(SourcePlan plan, BatchRange range, boolean unpinned) {
    return new PlannedBatch(
        range,
        plan.offsetCount() > 0 || !plan.gaps().isEmpty() || unpinned,
        KafkaRanges.progress(range, plan.latest()));
  }

  /**
   * A recorded range run again after a restart: each partition's lag is measured now, after the
   * range's end (the latest offsets when it was first planned are not recorded).
   */
  @Override
  public PlannedBatch replayed(BatchRange range) {
    Map<TopicPartition, Long> latest =
        stoppable(() -> latestOffsets(KafkaRanges.ends(range).keySet()));
    return new PlannedBatch(range, true, KafkaRanges.progress(range, latest));
  }

  /** Input skipped while reading comes back as {@link DataGap#toJson()} objects. */
  @Override
  public List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input)
      throws Exception {
    List<DataGap> gaps;
    try {
      gaps =
          reader.read(
              KafkaRanges.offsets(range),
              input::record,
              inFixedOrder ? RangeReader.Order.PARTITION_ORDER : RangeReader.Order.INTERLEAVED);
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    return gaps.stream().map(DataGap::toJson).toList();
  }

  /**
   * Reads from the starts of {@code planned} as records arrive, for {@code interval} (the
   * continuous trigger); the range returned keeps {@code planned}'s facts (topic ids, planned
   * gaps).
   */
  @Override
  public BatchRange readFor(BatchRange planned, Duration interval, SourceInput input)
      throws Exception {
    Map<TopicPartition, Long> starts = new HashMap<>();
    KafkaRanges.offsets(planned).forEach((tp, r) -> starts.put(tp, r.start()));
    Map<TopicPartition, Long> ends;
    try {
      ends = reader.readFor(starts, interval, input::record);
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    Map<SourcePartition, OffsetRange> read = new TreeMap<>();
    ends.forEach(
        (tp, end) -> read.put(KafkaRanges.partition(tp), new OffsetRange(starts.get(tp), end)));
    return new BatchRange(read, planned.facts());
  }

  /**
   * The range's offsets ({@code topic/partition:start-end,...}), its planned gaps ({@value
   * #DATA_LOSS}, which group assignment has in no offsets entry) and, in group assignment, this
   * instance.
   */
  @Override
  public Map<String, String> commitInfo(BatchRange range) {
    Map<String, String> info = new HashMap<>();
    info.put("offsets", KafkaRanges.history(range));
    if (range.facts().containsKey(DATA_LOSS)) {
      info.put(DATA_LOSS, range.facts().get(DATA_LOSS));
    }
    if (group.isPresent()) {
      info.put("instance", instanceId());
    }
    return info;
  }

  @Override
  public String describe(BatchRange range) {
    return KafkaRanges.describe(range);
  }

  @Override
  public void committed(BatchRange range) {
    Map<TopicPartition, Long> ends = KafkaRanges.ends(range);
    if (group.isPresent()) {
      // Only a member's own partitions can be committed; the others' are their new owners' to
      // record.
      ends.keySet().retainAll(new HashSet<>(group.get().assigned()));
    }
    commitToGroup(ends);
  }

  @Override
  public void idle(Duration wait) throws InterruptedException {
    if (group.isEmpty()) {
      Thread.sleep(wait.toMillis());
      return;
    }
    stoppable(
        () -> {
          group.get().idle(wait);
          return null;
        });
  }

  /**
   * Records the processed offsets in the consumer group, for lag monitoring. Best effort and
   * asynchronous (the batch never waits for the group coordinator; the commit completes during the
   * next batch's reads or at close): a failure is logged and ignored, because the checkpoint, not
   * the group, decides where the next batch starts.
   */
  public void commitToGroup(Map<TopicPartition, Long> ends) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    ends.forEach((tp, end) -> offsets.put(tp, new OffsetAndMetadata(end)));
    lastGroupOffsets = offsets;
    try {
      consumer.commitAsync(
          offsets,
          (committed, error) -> {
            if (error != null) {
              log.info(
                  "Pipeline {}: could not record offsets in consumer group {} (lag tools only): {}",
                  settings.pipelineId(),
                  settings.consumerGroup(),
                  error.toString());
            }
          });
    } catch (RuntimeException e) {
      log.info(
          "Pipeline {}: could not record offsets in consumer group {} (lag tools only): {}",
          settings.pipelineId(),
          settings.consumerGroup(),
          e.toString());
    }
  }

  /**
   * Aborts a blocking Kafka call in progress (or the next one): a {@link WakeupException} from the
   * Kafka-typed methods, a {@link SourceStoppedException} from the {@link Source} ones;
   * thread-safe. Used to stop promptly while the broker is unreachable.
   */
  @Override
  public void wakeup() {
    consumer.wakeup();
    broker.wakeup();
  }

  @Override
  public void close() {
    if (lastGroupOffsets != null) {
      // An async commit may still wait for the group coordinator: record the final position once,
      // bounded.
      try {
        consumer.commitSync(lastGroupOffsets, Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.info(
            "Pipeline {}: could not record final offsets in consumer group {}: {}",
            settings.pipelineId(),
            settings.consumerGroup(),
            e.toString());
      }
    }
    consumer.close(Duration.ofSeconds(5));
    broker.close();
  }

  /** Runs a broker call of a {@link Source} method: a wakeup becomes a stop. */
  private static <T> T stoppable(Supplier<T> call) {
    try {
      return call.get();
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
  }
}
