package dev.tributary.service.exchange;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.AlreadyQuarantined;
import dev.tributary.service.engine.Batch;
import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.PhaseTimer;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.ProgressModel;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.source.GroupPlan;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.service.source.SourcePlan;
import dev.tributary.service.stateful.ExchangeFront;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.table.PositionFence;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Progress of stage 1 of a stateful pipeline in group mode (docs/DESIGN.md, "Stateful pipelines in
 * group mode"): the consumer group {@code tributary-<pipeline>}'s offsets, committed in the Kafka
 * transaction that carries the batch's rows to the repartition topic. A batch reads the source
 * partitions the group assigned to this instance, from the group's committed offsets; the body
 * writes its checked rows to the {@link ExchangeSink} and its quarantined records to the quarantine
 * table. Exactly once:
 *
 * <ul>
 *   <li>rows, markers and offsets commit together or not at all (a crash leaves an open transaction
 *       that the coordinator aborts after {@code transaction.timeout.ms}; stage 2 reads {@code
 *       read_committed});
 *   <li>the offsets are sent with the consumer's group metadata, so the group coordinator refuses
 *       them from a member whose generation is no longer the group's (KIP-447): an instance that
 *       lost its partitions cannot commit a range the new owner reads again. A plan reads the
 *       committed offsets with Kafka's stable fetch, which waits for a transaction still open;
 *   <li>quarantined records go to the quarantine table first, with the fenced positions of
 *       stateless group mode ({@link AlreadyQuarantined}): a re-run of a range whose quarantine
 *       commit succeeded but whose Kafka commit did not quarantines nothing twice.
 * </ul>
 *
 * <p>The group offsets are committed only through the transaction, never by {@code commitSync}: so
 * {@link #done} does not tell the source. Not thread-safe: one thread runs the batches.
 */
public final class ExchangeProgress implements ProgressModel, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ExchangeProgress.class);
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  /**
   * How long closing a producer may take (its buffered records are part of an aborted transaction
   * anyway).
   */
  static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private final String pipelineId;
  private final KafkaSource source;
  private final ExchangeFront front;
  private final ExchangeRecords records;
  private final Supplier<Producer<byte[], byte[]>> producers;
  private final TableSink quarantine;
  private final TableTxns txns;
  private Producer<byte[], byte[]> producer;
  private long nextBatchId;
  private Map<TopicPartition, Long> ceiling = Map.of();

  /** The latest plan's ranges to commit (moving, unpinned or unannounced partitions). */
  private Map<TopicPartition, OffsetRange> planned = Map.of();

  /** The latest offsets of the assigned partitions, as the latest plan fetched them. */
  private Map<TopicPartition, Long> plannedLatest = Map.of();

  /**
   * The assigned partitions a committed batch has covered since they were assigned here: the others
   * are covered by the next batch even without records, so that stage 2 hears of every source
   * partition ({@link ExchangeRecords.Progress}).
   */
  private final Set<TopicPartition> announced = new HashSet<>();

  private boolean lastReadAnything;
  private boolean lastAtCeiling;

  /**
   * @param source a Kafka source in group mode on the source topics (group {@code
   *     tributary-<pipeline>}); not closed here
   * @param front the stateless steps and input checks (the batch's processor); not closed here
   * @param records the encoder of the repartition topic's records, for its actual partition count
   * @param producers makes a transactional producer, each call with a fresh {@code
   *     transactional.id} (see {@link #producerConfig}); called at the first batch and again after
   *     a producer was fenced or failed; this model calls {@code initTransactions} and closes it
   * @param quarantine the quarantine table, committed with fenced positions
   * @param txns the pipeline's txn app ids (the quarantine table's positions)
   */
  public ExchangeProgress(
      KafkaSource source,
      ExchangeFront front,
      ExchangeRecords records,
      Supplier<Producer<byte[], byte[]>> producers,
      TableSink quarantine,
      TableTxns txns) {
    this.pipelineId = txns.pipelineId();
    this.source = Objects.requireNonNull(source, "source");
    this.front = Objects.requireNonNull(front, "front");
    this.records = Objects.requireNonNull(records, "records");
    this.producers = Objects.requireNonNull(producers, "producers");
    this.quarantine = Objects.requireNonNull(quarantine, "quarantine");
    this.txns = txns;
  }

  /**
   * The transactional producer's configuration for a pipeline's source: its bootstrap servers and
   * {@code source.kafka.properties} (security settings apply to both clients; consumer-only keys
   * are left out), a {@code transactional.id} of {@code tributary-<pipeline>-<random uuid>} (the
   * group generation, not the id, fences a zombie), {@code transaction.timeout.ms} 10 s unless set
   * (a transaction a killed instance left open blocks {@code read_committed} readers until then),
   * acks all, idempotence, byte arrays.
   */
  public static Map<String, Object> producerConfig(KafkaSourceSettings settings) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    Set<String> producerKeys = ProducerConfig.configNames();
    settings
        .properties()
        .forEach(
            (k, v) -> {
              if (producerKeys.contains(k)
                  || k.startsWith("sasl.")
                  || k.startsWith("ssl.")
                  || k.startsWith("security.")) {
                config.put(k, v);
              }
            });
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    config.put(
        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
        "tributary-" + settings.pipelineId() + "-" + UUID.randomUUID());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(
        ProducerConfig.CLIENT_ID_CONFIG,
        "tributary-" + settings.pipelineId() + "-exchange-" + KafkaSource.instanceId());
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return config;
  }

  /**
   * Fixes the offsets no range goes past (available-now: the latest offsets when the run started);
   * empty for unbounded.
   */
  public void bound(Map<TopicPartition, Long> ceiling) {
    this.ceiling = Map.copyOf(ceiling);
  }

  @Override
  public Optional<Batch> recover(PhaseTimer timer) {
    return Optional.empty(); // the group's offsets are the progress: nothing to replay
  }

  @Override
  public Optional<Batch> next(PhaseTimer timer) throws IOException {
    GroupPlan groupPlan = source.group().planFromGroupOffsets(ceiling);
    SourcePlan plan = groupPlan.plan();
    lastAtCeiling = reachedCeiling(plan.ranges(), ceiling);
    lastReadAnything = plan.offsetCount() > 0;
    // What this batch commits: every range that moves, every partition the group has no offset
    // for yet (pinned where it starts, so a later owner does not compute "latest" again), and every
    // partition assigned here that no batch of this instance has covered yet (announced to stage 2,
    // whose watermark waits for every source partition). Any other empty range at the committed
    // offset is left out: it would only tie this batch to the generation.
    announced.retainAll(plan.ranges().keySet());
    Map<TopicPartition, OffsetRange> ranges = new TreeMap<>(ORDER);
    plan.ranges()
        .forEach(
            (tp, r) -> {
              Long committed = groupPlan.committed().get(tp);
              if (!r.isEmpty()
                  || committed == null
                  || committed != r.start()
                  || !announced.contains(tp)) {
                ranges.put(tp, r);
              }
            });
    if (ranges.isEmpty()) {
      return Optional.empty();
    }
    timer.mark("plan");
    planned = ranges;
    plannedLatest = plan.latest();
    long batchId = nextBatchId++;
    Map<String, String> facts = new HashMap<>();
    if (!plan.gaps().isEmpty()) {
      facts.put(BatchRange.DATA_LOSS, plan.gaps().toString());
    }
    Map<String, String> extras = new LinkedHashMap<>(facts);
    extras.putAll(front.planBatch(batchId));
    extras.put("stage", "exchange");
    PlannedBatch planned =
        new PlannedBatch(new BatchRange(checkpointRanges(ranges), facts), true, progress(plan));
    return Optional.of(
        new Batch(
            batchId,
            planned,
            false,
            timer.startedAt(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            extras));
  }

  @Override
  public BatchOutputs open(Batch batch) throws IOException {
    Map<SourcePartition, Long> quarantined = txns.historyIn(quarantine.snapshot()).positions();
    List<PositionFence> fences = new ArrayList<>();
    planned.forEach(
        (tp, r) -> fences.add(AlreadyQuarantined.fence(txns, partition(tp), quarantined, r.end())));
    ExchangeSink sink = new ExchangeSink(this, records, source, planned, sourceLatest(), front);
    try {
      return new BatchOutputs(
          sink, new AlreadyQuarantined(quarantine.beginFenced(fences), quarantined), null);
    } catch (IOException | RuntimeException e) {
      sink.close();
      throw e;
    }
  }

  /**
   * Nothing to record (the transaction committed the group's offsets with the rows) but that the
   * batch's partitions are announced.
   */
  @Override
  public void done(Batch batch, OptionalLong nextWatermarkMicros, Committed versions) {
    announced.addAll(planned.keySet());
  }

  /**
   * Every source partition's latest offset at plan time (capped at the ceiling with a bounded
   * trigger): where its readers must get to before its records stop being older than what this
   * batch read.
   */
  private Map<TopicPartition, Long> sourceLatest() {
    Map<TopicPartition, Long> latest = new TreeMap<>(ORDER);
    latest.putAll(plannedLatest); // the plan fetched its own partitions': ask only for the others
    List<TopicPartition> others =
        source.partitions().stream().filter(tp -> !plannedLatest.containsKey(tp)).toList();
    if (!others.isEmpty()) {
      latest.putAll(source.latestOffsets(others));
    }
    if (!ceiling.isEmpty()) {
      latest.replaceAll((tp, l) -> Math.min(l, ceiling.getOrDefault(tp, l)));
    }
    planned.forEach((tp, r) -> latest.putIfAbsent(tp, r.end())); // metadata may lag the group
    return latest;
  }

  @Override
  public List<TableSink> tables() {
    return List.of(quarantine);
  }

  @Override
  public CrashPoints.Names crashPoints() {
    return CrashPoints.Names.EXCHANGE;
  }

  /** Whether the latest plan had records to read (committed or not). */
  public boolean lastPlanReadAnything() {
    return lastReadAnything;
  }

  /**
   * Whether every assigned partition's range in the latest plan ends at or past its ceiling (false
   * for an unbounded ceiling).
   */
  public boolean lastPlanAtCeiling() {
    return lastAtCeiling;
  }

  /**
   * Whether every source partition, assigned to this instance or not, has a committed group offset
   * at or past its ceiling: the end test of available-now for stage 1. False for an empty ceiling.
   */
  public boolean allPartitionsAtCeiling() {
    if (ceiling.isEmpty()) {
      return false;
    }
    Map<TopicPartition, Long> committed = source.group().committedOffsets(ceiling.keySet());
    return ceiling.entrySet().stream()
        .allMatch(
            e -> committed.containsKey(e.getKey()) && committed.get(e.getKey()) >= e.getValue());
  }

  /** The open transaction's producer, made (and initialised) on first use. */
  Producer<byte[], byte[]> producer() {
    if (producer == null) {
      Producer<byte[], byte[]> created = producers.get();
      try {
        created.initTransactions();
      } catch (RuntimeException e) {
        created.close(CLOSE_TIMEOUT);
        throw e;
      }
      producer = created;
    }
    return producer;
  }

  /**
   * Ends the open transaction of a batch that did not commit. Aborts it where the producer allows;
   * a producer that cannot abort (fenced, in a fatal state, a commit that timed out with an unknown
   * outcome) is closed and replaced at the next batch: the coordinator aborts what it left open.
   *
   * @param fenced whether the producer was fenced (it cannot abort then)
   */
  void abort(boolean fenced) {
    if (producer == null) {
      return;
    }
    if (!fenced) {
      try {
        producer.abortTransaction();
        return;
      } catch (RuntimeException e) {
        log.info(
            "Pipeline {}: could not abort the stage-1 transaction ({}); a new producer takes over",
            pipelineId,
            e.toString());
      }
    }
    discardProducer();
  }

  /** Closes the producer; the next batch makes a new one. */
  void discardProducer() {
    if (producer == null) {
      return;
    }
    try {
      producer.close(CLOSE_TIMEOUT);
    } catch (RuntimeException e) {
      log.info("Pipeline {}: closing a fenced stage-1 producer: {}", pipelineId, e.toString());
    }
    producer = null;
  }

  /** Whether {@code e} is the producer's fencing (it can only be closed, not aborted). */
  static boolean producerFenced(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ProducerFencedException) {
        return true;
      }
    }
    return false;
  }

  String pipelineId() {
    return pipelineId;
  }

  private static boolean reachedCeiling(
      Map<TopicPartition, OffsetRange> ranges, Map<TopicPartition, Long> ceiling) {
    if (ceiling.isEmpty()) {
      return false;
    }
    return ranges.entrySet().stream()
        .allMatch(e -> e.getValue().end() >= ceiling.getOrDefault(e.getKey(), 0L));
  }

  private static List<BatchProgress.PartitionProgress> progress(SourcePlan plan) {
    List<BatchProgress.PartitionProgress> partitions = new ArrayList<>();
    Map<TopicPartition, OffsetRange> sorted = new TreeMap<>(ORDER);
    sorted.putAll(plan.ranges());
    sorted.forEach(
        (tp, r) ->
            partitions.add(
                new BatchProgress.PartitionProgress(
                    tp.topic(),
                    tp.partition(),
                    r.start(),
                    r.end(),
                    plan.latest().getOrDefault(tp, r.end()))));
    return partitions;
  }

  private static Map<SourcePartition, OffsetRange> checkpointRanges(
      Map<TopicPartition, OffsetRange> ranges) {
    Map<SourcePartition, OffsetRange> out = new TreeMap<>();
    ranges.forEach((tp, r) -> out.put(partition(tp), r));
    return out;
  }

  private static SourcePartition partition(TopicPartition tp) {
    return new SourcePartition(tp.topic(), tp.partition());
  }

  /** Closes the producer (an open transaction is aborted by the coordinator). */
  @Override
  public void close() {
    discardProducer();
  }
}
