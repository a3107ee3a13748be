package dev.tributary.service.source;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.RangeRevokedException;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.SourceInput;
import dev.tributary.service.engine.SourceStoppedException;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads exact offset ranges from Kafka. The source never relies on consumer-group positions: the
 * checkpoint's offsets log is the source of truth, and every batch is read with {@code assign} +
 * {@code seek}, so a replayed batch reads the very same records. After a batch is committed the
 * processed offsets are also committed to the consumer group {@code tributary-<pipeline>}, best
 * effort, so that standard lag tools see the pipeline.
 *
 * <p>Behind the engine's {@link Source} SPI a batch range is the offsets per partition (the offsets
 * log's {@code ranges}, unchanged from before the SPI), plus the partitions the range leaves behind
 * ({@value BatchRange#BACKLOGGED}) and the ranges retention deleted ({@value #DATA_LOSS}) as facts.
 *
 * <p>Not thread-safe: one source per pipeline run, used from the engine's thread.
 */
public final class KafkaSource implements Source {
  /**
   * Range fact: input the plan could not take as the checkpoint expected (fail-on-data-loss:
   * false), a JSON array of {@link SourcePlan.DataGap#toJson()} objects.
   */
  public static final String DATA_LOSS = "dataLoss";

  /**
   * Range fact: the planned topics' ids, a JSON object by topic name; the next plan compares them
   * to find a topic deleted and re-created.
   */
  public static final String TOPIC_IDS = "topicIds";

  private static final Logger log = LoggerFactory.getLogger(KafkaSource.class);

  /**
   * Bound of every metadata call (partitions, offsets); overridable for tests and slow clusters.
   */
  private final Duration metadataTimeout =
      Duration.parse(System.getProperty("tributary.kafka.metadata-timeout", "PT30S"));

  private static final Duration POLL = Duration.ofMillis(200);

  /** How long the first assignment of a group member may take (a join, possibly two rebalances). */
  private final Duration joinTimeout =
      Duration.parse(System.getProperty("tributary.kafka.join-timeout", "PT2M"));

  private final KafkaSourceSettings settings;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final BrokerMetadata broker;
  private final RangePlanner planner;

  /** Group assignment only: this instance's share of the partitions. */
  private final GroupMembership membership;

  private Map<TopicPartition, OffsetAndMetadata> lastGroupOffsets;

  /** Available-now: the latest offsets when the run started, which no batch goes past. */
  private Map<TopicPartition, Long> ceiling = Map.of();

  public KafkaSource(KafkaSourceSettings settings) {
    this.settings = settings;
    Map<String, Object> config = consumerConfig(settings);
    this.consumer = new KafkaConsumer<>(config);
    this.broker = new BrokerMetadata(settings, consumer, metadataTimeout);
    this.planner = new RangePlanner(settings, broker);
    if (settings.groupAssignment()) {
      membership =
          new GroupMembership(
              settings.pipelineId(),
              settings.consumerGroup(),
              String.valueOf(config.get(ConsumerConfig.CLIENT_ID_CONFIG)),
              consumer);
      if (settings.topicPattern().isPresent()) {
        consumer.subscribe(settings.topicPattern().get(), membership);
      } else {
        consumer.subscribe(settings.topics(), membership);
      }
    } else {
      membership = null;
    }
  }

  static Map<String, Object> consumerConfig(KafkaSourceSettings settings) {
    Map<String, Object> config = new HashMap<>();
    // Throughput-oriented defaults; anything the user passes in properties wins.
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1024 * 1024);
    // A fetch that reached the end of a partition waits at the broker for new data up to this long,
    // and the broker answers a connection's requests in order: the offsets lookup that plans the
    // next batch waits behind it. Kafka's 500 ms default would add up to half a second to a batch.
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
    config.putAll(settings.properties());
    // These are fixed: the engine, not the consumer, decides what is read and what is committed.
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, settings.consumerGroup());
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "tributary-" + settings.pipelineId());
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    if (settings.groupAssignment()) {
      groupConfig(settings, config);
    }
    return config;
  }

  /**
   * Group assignment: the classic group protocol with cooperative rebalancing by default (a
   * rebalance moves only the partitions that change owner; the others keep being read), because it
   * works with every broker since Kafka 2.4 and its session timeout is the client's to choose
   * (KIP-848's {@code group.protocol=consumer} sets it on the broker, 45 s at least by default). A
   * user who sets {@code group.protocol: consumer} in the properties gets KIP-848, whose assignor
   * is the broker's.
   */
  private static void groupConfig(KafkaSourceSettings settings, Map<String, Object> config) {
    boolean kip848 = "consumer".equalsIgnoreCase(String.valueOf(config.get("group.protocol")));
    if (!kip848
        && !settings
            .properties()
            .containsKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)) {
      config.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          CooperativeStickyAssignor.class.getName());
    }
    // Members are told apart in the group's description and the logs by their process.
    config.put(
        ConsumerConfig.CLIENT_ID_CONFIG, "tributary-" + settings.pipelineId() + "-" + instanceId());
  }

  /**
   * This process, as {@code <host>/<pid>}: recorded in group-mode commits, shown in the group's
   * members.
   */
  public static String instanceId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "localhost";
    }
    return host + "/" + ProcessHandle.current().pid();
  }

  /**
   * Group assignment: this instance's membership of the consumer group {@code tributary-<pipeline>}
   * (what the REST API and the rebalance metrics show); empty in exclusive assignment.
   */
  public Optional<GroupMember> groupMember() {
    return Optional.ofNullable(membership);
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

  /** The earliest offset still retained, per partition. */
  public Map<TopicPartition, Long> earliestOffsets(Collection<TopicPartition> partitions) {
    return broker.earliest(partitions);
  }

  /**
   * Plans the next batch.
   *
   * @param committedEnds where the previous batch ended, per partition known to the checkpoint
   * @param firstBatch whether this is the pipeline's very first batch: partitions then start at the
   *     declared starting offsets; partitions discovered later always start at their earliest
   *     offset
   * @param upTo optional per-partition ceiling (available-now: the latest offsets seen at start)
   */
  public SourcePlan plan(
      Map<TopicPartition, Long> committedEnds, boolean firstBatch, Map<TopicPartition, Long> upTo) {
    return plan(committedEnds, Map.of(), firstBatch, upTo);
  }

  private SourcePlan plan(
      Map<TopicPartition, Long> committedEnds,
      Map<String, String> topicIds,
      boolean firstBatch,
      Map<TopicPartition, Long> upTo) {
    RangePlanner.NewPartitions newPartitions =
        firstBatch
            ? RangePlanner.NewPartitions.AT_STARTING_OFFSETS
            : RangePlanner.NewPartitions.AT_EARLIEST;
    if (membership == null) {
      return planner.plan(
          partitions(),
          new RangePlanner.Start(
              committedEnds, topicIds, newPartitions, RangePlanner.Positions.IN_OFFSETS_LOG),
          upTo);
    }
    List<TopicPartition> assigned =
        broker.call(
            () -> {
              membership.refresh(joinTimeout);
              return membership.assigned();
            });
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
   * A plan of group assignment whose ranges start at the consumer group's committed offsets (stage
   * 1 of a stateful pipeline, docs/DESIGN.md "Stateful pipelines in group mode").
   *
   * @param plan ranges for the partitions assigned to this instance when planned
   * @param committed the group's committed offset of each planned partition that has one; a planned
   *     partition without one starts at the declared starting offsets and must be committed
   *     (pinned) by the batch even if its range is empty
   */
  public record GroupPlan(SourcePlan plan, Map<TopicPartition, Long> committed) {
    public GroupPlan {
      committed = Map.copyOf(committed);
    }

    /** The planned partitions without a committed offset. */
    public Set<TopicPartition> unpinned() {
      Set<TopicPartition> out = new TreeSet<>(PARTITION_ORDER);
      out.addAll(plan.ranges().keySet());
      out.removeAll(committed.keySet());
      return out;
    }
  }

  /**
   * Group assignment: plans the partitions assigned now from the consumer group's committed
   * offsets, read after the assignment is refreshed (so every planned partition's start is its
   * committed offset, or the starting offsets for a partition without one). Kafka's consumer asks
   * for stable offsets: a committed offset still pending in another member's open transaction is
   * waited for (until that transaction commits or aborts), never read stale.
   *
   * @param upTo optional per-partition ceiling (available-now)
   */
  public GroupPlan planFromGroupOffsets(Map<TopicPartition, Long> upTo) {
    if (membership == null) {
      throw new IllegalStateException(
          "Pipeline "
              + settings.pipelineId()
              + ": planning from the consumer group's"
              + " offsets needs source.kafka.assignment: group");
    }
    List<TopicPartition> assigned =
        broker.call(
            () -> {
              membership.refresh(joinTimeout);
              return membership.assigned();
            });
    // Revocations count from here (no poll since the assignment was refreshed): a batch that reads
    // nothing, only pinning offsets, is checked against them too (checkStillOwned).
    membership.beginRead();
    Map<TopicPartition, Long> committed = committedOffsets(assigned);
    SourcePlan plan =
        planner.plan(
            assigned,
            new RangePlanner.Start(
                committed,
                Map.of(),
                RangePlanner.NewPartitions.AT_STARTING_OFFSETS,
                RangePlanner.Positions.IN_TABLES_OR_GROUP),
            upTo);
    return new GroupPlan(plan, committed);
  }

  /**
   * The consumer group's committed offsets of {@code partitions}; a partition without one is left
   * out. Waits for offsets pending in an open transaction (Kafka's stable offsets fetch).
   */
  public Map<TopicPartition, Long> committedOffsets(Collection<TopicPartition> partitions) {
    return broker.committed(partitions);
  }

  /**
   * The consumer's group metadata (member id, generation) for {@code sendOffsetsToTransaction}: the
   * broker refuses a transaction's offsets from a member whose generation is no longer the group's,
   * which is what fences a member that lost its partitions (KIP-447).
   */
  public ConsumerGroupMetadata groupMetadata() {
    return consumer.groupMetadata();
  }

  /**
   * Group assignment: fails with a {@link RangeRevokedException} if any of {@code partitions} was
   * revoked or lost since the current batch was planned ({@link #planFromGroupOffsets}) or began
   * reading (or is not assigned). Call it without a poll in between before committing a batch's
   * offsets, so that the generation committed with is the one that owns the partitions.
   */
  public void checkStillOwned(Collection<TopicPartition> partitions) {
    checkOwned(partitions);
  }

  /**
   * Group assignment on a thread that also runs {@code other}'s group (a stateful group pipeline's
   * two stages): while this source waits for a rebalance of its group it keeps polling {@code
   * other}'s consumer too, so that a rebalance of the other group that waits for this instance goes
   * on. Without it each instance can wait in one group while the other group waits for it.
   */
  public void pollAlongside(KafkaSource other) {
    if (membership != null && other.membership != null) {
      membership.pollAlongside(() -> other.membership.idle(Duration.ZERO));
    }
  }

  /**
   * Group assignment: lets a pending rebalance run (waiting for the first assignment, bounded by
   * {@code tributary.kafka.join-timeout}) and returns the partitions assigned to this instance now,
   * sorted. A stateful group-mode pipeline's stage 2 opens and closes its sub-pipelines by it.
   *
   * @throws IllegalStateException for a source that is not a group member
   */
  public List<TopicPartition> refreshAssignment() {
    if (membership == null) {
      throw new IllegalStateException(
          "Pipeline " + settings.pipelineId() + ": not a consumer-group source");
    }
    try {
      return broker.call(
          () -> {
            membership.refresh(joinTimeout);
            return membership.assigned();
          });
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
  }

  /**
   * Plans the next batch of ONE partition of a group member's assignment, for a sub-pipeline that
   * reads only it (stage 2 of a stateful group-mode pipeline): its range starts where {@code
   * previous} ends, at the partition's earliest offset when {@code previous} does not name it, and
   * ends at the latest offset (read_committed: the last stable offset), with no available-now
   * ceiling of the source's own (the caller decides when the run ends).
   *
   * @throws RangeRevokedException if the group does not assign {@code partition} to this instance
   *     now
   */
  public PlannedBatch planPartition(BatchRange previous, TopicPartition partition) {
    SourcePlan plan;
    try {
      plan =
          broker.call(
              () -> {
                if (membership != null) {
                  membership.refresh(joinTimeout);
                  if (!membership.assigned().contains(partition)) {
                    throw new RangeRevokedException(
                        "Pipeline "
                            + settings.pipelineId()
                            + ": consumer group "
                            + settings.consumerGroup()
                            + " does not assign "
                            + partition.topic()
                            + "/"
                            + partition.partition()
                            + " to this instance (any more); its new owner runs it");
                  }
                }
                Map<TopicPartition, Long> ends = toKafka(previous.endOffsets());
                ends.keySet().retainAll(List.of(partition));
                return planner.plan(
                    List.of(partition),
                    new RangePlanner.Start(
                        ends,
                        topicIds(previous),
                        RangePlanner.NewPartitions.AT_EARLIEST,
                        RangePlanner.Positions.IN_OFFSETS_LOG),
                    Map.of());
              });
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    Map<SourcePartition, OffsetRange> offsets = toCheckpoint(plan.ranges());
    List<BatchProgress.PartitionProgress> progress = new ArrayList<>();
    offsets.forEach(
        (p, r) ->
            progress.add(
                new BatchProgress.PartitionProgress(
                    p.topic(),
                    p.partition(),
                    r.start(),
                    r.end(),
                    plan.latest().getOrDefault(partition, r.end()))));
    return new PlannedBatch(
        new BatchRange(offsets, planFacts(plan)),
        plan.offsetCount() > 0 || !plan.gaps().isEmpty(),
        progress);
  }

  /**
   * Reads exactly the planned ranges, handing every record with an offset inside its range to the
   * handler, partitions interleaved as the consumer returns them (the fastest order). Offsets may
   * be missing inside a range (compacted topics, transaction markers); a partition is done once the
   * consumer's position reaches the range end.
   *
   * @return offsets skipped because they were deleted while reading (fail-on-data-loss: false)
   * @throws DataLossException if offsets of the range were deleted and fail-on-data-loss is true
   */
  public List<SourcePlan.DataGap> read(
      Map<TopicPartition, OffsetRange> ranges, SourceRecordHandler handler) throws Exception {
    return read(ranges, handler, false);
  }

  /**
   * Like {@link #read}, but one partition after the other, in (topic, partition) order, each read
   * to its range end before the next starts: the records reach the handler in an order that depends
   * only on the ranges, never on fetch timing, so a stateful batch replayed after a crash sees the
   * same sequence and produces the same result. Costs a fetch round trip per partition; measured on
   * the seed query, reading in this order costs about 15% of its throughput (a version that fetched
   * every partition at once into a bounded look-ahead buffer measured the same, so the simpler one
   * stays).
   */
  public List<SourcePlan.DataGap> readInPartitionOrder(
      Map<TopicPartition, OffsetRange> ranges, SourceRecordHandler handler) throws Exception {
    return read(ranges, handler, true);
  }

  private List<SourcePlan.DataGap> read(
      Map<TopicPartition, OffsetRange> ranges,
      SourceRecordHandler handler,
      boolean inPartitionOrder)
      throws Exception {
    // Sorted, so that in partition order the next partition to read is always the first pending
    // one.
    Map<TopicPartition, OffsetRange> pending = new TreeMap<>(PARTITION_ORDER);
    ranges.forEach(
        (tp, r) -> {
          if (!r.isEmpty()) {
            pending.put(tp, r);
          }
        });
    List<SourcePlan.DataGap> gaps = new ArrayList<>();
    if (pending.isEmpty()) {
      return gaps;
    }
    if (membership != null) {
      try {
        return readOwned(pending, handler, inPartitionOrder, gaps);
      } finally {
        membership.pauseAll();
      }
    }
    consumer.assign(pending.keySet());
    pending.forEach((tp, r) -> consumer.seek(tp, r.start()));
    if (inPartitionOrder) {
      // Paused before the first poll, the others are not even fetched until their turn.
      consumer.pause(pending.keySet());
      consumer.resume(List.of(pending.keySet().iterator().next()));
    }
    readPending(pending, handler, inPartitionOrder, gaps);
    consumer.assign(List.of());
    return gaps;
  }

  /**
   * Group assignment: the partitions stay the group's; the range's partitions are sought and
   * resumed (every assigned partition is paused otherwise), and a partition the group takes away
   * mid-read ends the batch with a {@link RangeRevokedException}.
   */
  private List<SourcePlan.DataGap> readOwned(
      Map<TopicPartition, OffsetRange> pending,
      SourceRecordHandler handler,
      boolean inPartitionOrder,
      List<SourcePlan.DataGap> gaps)
      throws Exception {
    membership.beginRead();
    checkOwned(pending.keySet());
    pending.forEach((tp, r) -> consumer.seek(tp, r.start()));
    consumer.resume(
        inPartitionOrder ? List.of(pending.keySet().iterator().next()) : pending.keySet());
    readPending(pending, handler, inPartitionOrder, gaps);
    return gaps;
  }

  private void checkOwned(Collection<TopicPartition> partitions) {
    if (membership == null) {
      return;
    }
    Set<TopicPartition> taken = membership.takenAmong(partitions);
    if (!taken.isEmpty()) {
      throw new RangeRevokedException(
          "Pipeline "
              + settings.pipelineId()
              + ": consumer group "
              + settings.consumerGroup()
              + " moved "
              + GroupMembership.names(taken)
              + " to another instance while this batch read them; the batch is dropped and the new owner"
              + " continues from the partition's last committed position");
    }
  }

  private void readPending(
      Map<TopicPartition, OffsetRange> pending,
      SourceRecordHandler handler,
      boolean inPartitionOrder,
      List<SourcePlan.DataGap> gaps)
      throws Exception {
    Instant lastProgress = Instant.now();
    while (!pending.isEmpty()) {
      ConsumerRecords<byte[], byte[]> records;
      try {
        records = consumer.poll(POLL);
      } catch (OffsetOutOfRangeException e) {
        handleOutOfRange(e, pending, gaps);
        resumeFirst(pending, inPartitionOrder);
        continue;
      }
      checkOwned(
          pending.keySet()); // before position(): it throws for a partition no longer assigned
      for (TopicPartition tp : records.partitions()) {
        OffsetRange r = pending.get(tp);
        if (r == null) {
          continue;
        }
        for (ConsumerRecord<byte[], byte[]> rec : records.records(tp)) {
          if (rec.offset() >= r.end()) {
            break;
          }
          if (rec.offset() >= r.start()) {
            handler.accept(rec);
          }
        }
      }
      boolean progressed = !records.isEmpty();
      for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
        var e = it.next();
        if (consumer.position(e.getKey()) >= e.getValue().end()) {
          consumer.pause(List.of(e.getKey()));
          it.remove();
          progressed = true;
        } else if (inPartitionOrder) {
          break; // the partitions after the current one have not been read yet
        }
      }
      resumeFirst(pending, inPartitionOrder);
      if (progressed) {
        lastProgress = Instant.now();
      } else if (Duration.between(lastProgress, Instant.now()).compareTo(settings.readTimeout())
          > 0) {
        var stuck = pending.entrySet().iterator().next();
        throw new IllegalStateException(
            "Pipeline "
                + settings.pipelineId()
                + ": no records from "
                + stuck.getKey().topic()
                + "/"
                + stuck.getKey().partition()
                + " at offset "
                + consumer.position(stuck.getKey())
                + " for "
                + settings.readTimeout().toSeconds()
                + "s while the batch must read up to "
                + stuck.getValue().end()
                + "; is the broker "
                + settings.bootstrapServers()
                + " reachable and the partition's leader available?");
      }
    }
  }

  private static final Comparator<TopicPartition> PARTITION_ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private void resumeFirst(Map<TopicPartition, OffsetRange> pending, boolean inPartitionOrder) {
    if (inPartitionOrder && !pending.isEmpty()) {
      consumer.resume(List.of(pending.keySet().iterator().next()));
    }
  }

  /**
   * Offsets of a range vanished while it was read: below the partition's earliest offset they were
   * deleted by retention (reading goes on at the earliest); otherwise the partition ends below the
   * position, so it was re-created (or cut back) since the plan, and the rest of its range is not
   * read: the next plan finds the partition's new offsets.
   */
  private void handleOutOfRange(
      OffsetOutOfRangeException e,
      Map<TopicPartition, OffsetRange> pending,
      List<SourcePlan.DataGap> gaps) {
    Map<TopicPartition, Long> earliest = broker.earliest(e.partitions());
    Map<TopicPartition, Long> latest = broker.latest(e.partitions());
    for (TopicPartition tp : e.partitions()) {
      long position = e.offsetOutOfRangePartitions().get(tp);
      long low = earliest.get(tp);
      OffsetRange r = pending.get(tp);
      if (position < low) {
        if (settings.failOnDataLoss()) {
          throw new DataLossException(settings.pipelineId(), tp, position, low);
        }
        long resume = Math.min(low, r.end());
        log.warn(
            "Pipeline {} skipping deleted offsets {}/{} [{}, {}) while reading",
            settings.pipelineId(),
            tp.topic(),
            tp.partition(),
            position,
            resume);
        gaps.add(new SourcePlan.DataGap.Deleted(tp, position, resume));
        if (resume < r.end()) {
          consumer.seek(tp, resume);
          continue;
        }
      } else {
        var reset =
            new SourcePlan.DataGap.Reset(
                tp, position, low, latest.get(tp), Optional.empty(), Optional.empty());
        if (membership != null) {
          throw DataLossException.cannotMoveBack(
              settings.pipelineId(), settings.consumerGroup(), reset);
        }
        if (settings.failOnDataLoss()) {
          throw DataLossException.found(settings.pipelineId(), settings.bootstrapServers(), reset);
        }
        log.warn(
            "Pipeline {}: {}/{} was re-created while offsets [{}, {}) of it were read: the rest of"
                + " the range is not read, the next batch reads the partition's new offsets;"
                + " recorded in the commits' commitInfo (dataLossWhileReading): {}",
            settings.pipelineId(),
            tp.topic(),
            tp.partition(),
            position,
            r.end(),
            reset.toJson());
        gaps.add(reset);
      }
      consumer.pause(List.of(tp));
      pending.remove(tp);
    }
  }

  @Override
  public void boundToAvailableNow() {
    try {
      ceiling = latestOffsets(partitions());
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
  }

  @Override
  public PlannedBatch plan(BatchRange previous, boolean firstBatch) {
    SourcePlan plan;
    try {
      plan = plan(toKafka(previous.endOffsets()), topicIds(previous), firstBatch, ceiling);
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    Map<SourcePartition, OffsetRange> offsets = toCheckpoint(plan.ranges());
    List<BatchProgress.PartitionProgress> progress = new ArrayList<>();
    offsets.forEach(
        (p, r) ->
            progress.add(
                new BatchProgress.PartitionProgress(
                    p.topic(),
                    p.partition(),
                    r.start(),
                    r.end(),
                    plan.latest()
                        .getOrDefault(new TopicPartition(p.topic(), p.partition()), r.end()))));
    // A group member's partition the sink table has no position for yet is pinned by a batch even
    // without records: its starting point (latest, a timestamp) is then fixed for whoever owns it
    // next.
    boolean unpinned =
        membership != null && !previous.offsets().keySet().containsAll(offsets.keySet());
    return new PlannedBatch(
        new BatchRange(offsets, planFacts(plan)),
        plan.offsetCount() > 0 || !plan.gaps().isEmpty() || unpinned,
        progress);
  }

  /**
   * A recorded range run again after a restart: each partition's lag is measured now, after the
   * range's end (the latest offsets when it was first planned are not recorded).
   */
  @Override
  public PlannedBatch replayed(BatchRange range) {
    Map<TopicPartition, Long> latest;
    try {
      latest = latestOffsets(toKafka(range.endOffsets()).keySet());
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    List<BatchProgress.PartitionProgress> progress = new ArrayList<>();
    range
        .offsets()
        .forEach(
            (p, r) ->
                progress.add(
                    new BatchProgress.PartitionProgress(
                        p.topic(),
                        p.partition(),
                        r.start(),
                        r.end(),
                        Math.max(
                            r.end(),
                            latest.getOrDefault(
                                new TopicPartition(p.topic(), p.partition()), r.end())))));
    return new PlannedBatch(range, true, progress);
  }

  /**
   * A plan's facts for the offsets log: the data gaps, and the partitions the plan leaves behind
   * (range end before the latest offset when planned), which the processor is told and a replay
   * must see again.
   */
  static Map<String, String> planFacts(SourcePlan plan) {
    Map<String, String> facts = new HashMap<>();
    if (!plan.gaps().isEmpty()) {
      facts.put(DATA_LOSS, SourcePlan.DataGap.toJson(plan.gaps()));
    }
    if (!plan.topicIds().isEmpty()) {
      facts.put(TOPIC_IDS, SourceJson.topicIds(plan.topicIds()));
    }
    Set<SourcePartition> behind = new HashSet<>();
    plan.ranges()
        .forEach(
            (tp, r) -> {
              Long latest = plan.latest().get(tp);
              if (latest != null && r.end() < latest) {
                behind.add(new SourcePartition(tp.topic(), tp.partition()));
              }
            });
    if (!behind.isEmpty()) {
      facts.put(BatchRange.BACKLOGGED, BatchRange.backloggedValue(behind));
    }
    return facts;
  }

  @Override
  public List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input)
      throws Exception {
    List<SourcePlan.DataGap> gaps;
    try {
      gaps = read(toKafkaRanges(range.offsets()), input::record, inFixedOrder);
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    return gaps.stream().map(SourcePlan.DataGap::toJson).toList();
  }

  @Override
  public Map<String, String> commitInfo(BatchRange range) {
    StringBuilder offsets = new StringBuilder();
    range
        .offsets()
        .forEach(
            (p, r) ->
                offsets
                    .append(offsets.length() == 0 ? "" : ",")
                    .append(p.topic())
                    .append('/')
                    .append(p.partition())
                    .append(':')
                    .append(r.start())
                    .append('-')
                    .append(r.end()));
    Map<String, String> info = new HashMap<>();
    info.put("offsets", offsets.toString());
    if (range.facts().containsKey(DATA_LOSS)) {
      // planned gaps: in the offsets entry's extras too, but group assignment has no offsets entry
      info.put(DATA_LOSS, range.facts().get(DATA_LOSS));
    }
    if (membership != null) {
      info.put("instance", instanceId());
    }
    return info;
  }

  @Override
  public String describe(BatchRange range) {
    if (range.offsets().isEmpty()) {
      return "no records";
    }
    StringBuilder out = new StringBuilder();
    range
        .offsets()
        .forEach(
            (p, r) ->
                out.append(out.length() == 0 ? "" : ", ")
                    .append(p.topic())
                    .append('/')
                    .append(p.partition())
                    .append(" offsets [")
                    .append(r.start())
                    .append(", ")
                    .append(r.end())
                    .append(')'));
    return out.toString();
  }

  @Override
  public void committed(BatchRange range) {
    Map<TopicPartition, Long> ends = toKafka(range.endOffsets());
    if (membership != null) {
      // Only a member's own partitions can be committed; the others' are their new owners' to
      // record.
      ends.keySet().retainAll(new HashSet<>(membership.assigned()));
    }
    commitToGroup(ends);
  }

  @Override
  public void idle(Duration wait) throws InterruptedException {
    if (membership == null) {
      Thread.sleep(wait.toMillis());
      return;
    }
    try {
      membership.idle(wait);
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
  }

  private static Map<String, String> topicIds(BatchRange range) {
    return SourceJson.parseTopicIds(range.facts().get(TOPIC_IDS));
  }

  private static Map<SourcePartition, OffsetRange> toCheckpoint(
      Map<TopicPartition, OffsetRange> ranges) {
    Map<SourcePartition, OffsetRange> out = new TreeMap<>();
    ranges.forEach((tp, r) -> out.put(new SourcePartition(tp.topic(), tp.partition()), r));
    return out;
  }

  private static Map<TopicPartition, OffsetRange> toKafkaRanges(
      Map<SourcePartition, OffsetRange> ranges) {
    Map<TopicPartition, OffsetRange> out = new HashMap<>();
    ranges.forEach((p, r) -> out.put(new TopicPartition(p.topic(), p.partition()), r));
    return out;
  }

  private static Map<TopicPartition, Long> toKafka(Map<SourcePartition, Long> offsets) {
    Map<TopicPartition, Long> out = new HashMap<>();
    offsets.forEach((p, o) -> out.put(new TopicPartition(p.topic(), p.partition()), o));
    return out;
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
}
