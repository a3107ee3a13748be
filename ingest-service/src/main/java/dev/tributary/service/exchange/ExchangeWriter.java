package dev.tributary.service.exchange;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.QuarantineLimit;
import dev.tributary.service.engine.AlreadyQuarantined;
import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.QuarantineLimitExceededException;
import dev.tributary.service.engine.RangeRevokedException;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.source.GroupPlan;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.service.source.SourcePlan;
import dev.tributary.service.stateful.ExchangeFront;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.table.PositionConflictException;
import dev.tributary.table.PositionFence;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 1 of a stateful pipeline in group mode (docs/DESIGN.md, "Stateful pipelines in group
 * mode"): one call of {@link #runBatch} reads the source partitions the consumer group {@code
 * tributary-<pipeline>} assigned to this instance, from the group's committed offsets, and writes
 * their checked rows to the repartition topic in one Kafka transaction that also commits the range
 * ends as the group's offsets. Exactly once:
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
 * <p>The group offsets are committed only through the transaction, never by {@code commitSync}. Not
 * thread-safe: one thread calls {@link #runBatch}; the run loop around it (and stage 2) is the
 * caller's.
 */
public final class ExchangeWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ExchangeWriter.class);
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  /**
   * How long closing a producer may take (its buffered records are part of an aborted transaction
   * anyway).
   */
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private final String pipelineId;
  private final KafkaSource source;
  private final ExchangeFront front;
  private final ExchangeRecords records;
  private final String topic;
  private final Supplier<Producer<byte[], byte[]>> producers;
  private final TableSink quarantine;
  private final TableTxns txns;
  private final Clock clock;
  private final Optional<QuarantineLimit> quarantineLimit;
  private final ProgressLog progress;
  private Producer<byte[], byte[]> producer;
  private long nextBatchId;
  private long fencedBatches;

  /**
   * What one {@link #runBatch} did.
   *
   * @param batchId this writer's batch number (logs, quarantine rows; the offsets, not the id, make
   *     a batch idempotent)
   * @param ranges the planned ranges of the partitions assigned when planned
   * @param recordsRead source records read
   * @param rowsSent rows sent to the repartition topic (committed unless {@code fenced})
   * @param quarantined rows written to the quarantine table (records already in it not counted)
   * @param filtered records filtered out (by a filter or an inner join without a match)
   * @param readAnything whether any planned range was not empty
   * @param committed whether a Kafka transaction (rows, markers, offsets) was committed
   * @param fenced why the batch was dropped with nothing of it committed in Kafka (a partition
   *     moved away, another member was first, the group generation or the producer was fenced), or
   *     empty
   * @param atCeiling whether every assigned partition's range ends at or past its ceiling (false
   *     for an unbounded ceiling); after a committed batch, the assigned partitions are done
   */
  public record Outcome(
      long batchId,
      Map<TopicPartition, OffsetRange> ranges,
      long recordsRead,
      long rowsSent,
      long quarantined,
      long filtered,
      boolean readAnything,
      boolean committed,
      Optional<String> fenced,
      boolean atCeiling) {
    public Outcome {
      ranges = Map.copyOf(ranges);
    }

    /** Whether the batch was dropped because this instance was fenced off. */
    public boolean wasFenced() {
      return fenced.isPresent();
    }
  }

  /**
   * @param source a Kafka source in group mode on the source topics (group {@code
   *     tributary-<pipeline>}); not closed by this writer
   * @param front the stateless steps and input checks; not closed by this writer
   * @param records the encoder of the repartition topic's records, for its actual partition count
   * @param producers makes a transactional producer, each call with a fresh {@code
   *     transactional.id} (see {@link #producerConfig}); called at the first batch and again after
   *     a producer was fenced or failed; this writer calls {@code initTransactions} and closes it
   * @param quarantine the quarantine table, committed with fenced positions
   * @param txns the pipeline's txn app ids (the quarantine table's positions)
   * @param progress where a progress record of each committed batch goes, or null
   */
  public ExchangeWriter(
      KafkaSource source,
      ExchangeFront front,
      ExchangeRecords records,
      Supplier<Producer<byte[], byte[]>> producers,
      TableSink quarantine,
      TableTxns txns,
      Clock clock,
      Optional<QuarantineLimit> quarantineLimit,
      ProgressLog progress) {
    this.pipelineId = txns.pipelineId();
    this.source = source;
    this.front = front;
    this.records = records;
    this.topic = ExchangeRecords.topic(pipelineId);
    this.producers = producers;
    this.quarantine = quarantine;
    this.txns = txns;
    this.clock = clock;
    this.quarantineLimit = quarantineLimit;
    this.progress = progress;
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

  /** Batches dropped because this instance was fenced off (see {@link Outcome#fenced}). */
  public long fencedBatches() {
    return fencedBatches;
  }

  /**
   * Runs one stage-1 batch over the partitions assigned now.
   *
   * @param ceiling the offsets no range goes past (available-now: the latest offsets when the run
   *     started); empty for unbounded
   * @throws QuarantineLimitExceededException if the batch quarantined more than the limit allows
   *     (nothing committed)
   */
  public Outcome runBatch(Map<TopicPartition, Long> ceiling) throws Exception {
    long batchId = nextBatchId++;
    Instant startedAt = clock.instant();
    GroupPlan groupPlan = source.group().planFromGroupOffsets(ceiling);
    SourcePlan plan = groupPlan.plan();
    boolean atCeiling = reachedCeiling(plan.ranges(), ceiling);
    // What this batch commits: every range that moves, and every partition the group has no offset
    // for yet (pinned where it starts, so a later owner does not compute "latest" again). An empty
    // range at the committed offset is left out: it would only tie this batch to the generation.
    Map<TopicPartition, OffsetRange> ranges = new TreeMap<>(ORDER);
    plan.ranges()
        .forEach(
            (tp, r) -> {
              Long committed = groupPlan.committed().get(tp);
              if (!r.isEmpty() || committed == null || committed != r.start()) {
                ranges.put(tp, r);
              }
            });
    boolean readAnything = plan.offsetCount() > 0;
    if (ranges.isEmpty()) {
      return new Outcome(
          batchId, plan.ranges(), 0, 0, 0, 0, false, false, Optional.empty(), atCeiling);
    }
    Map<SourcePartition, Long> quarantined = txns.historyIn(quarantine.snapshot()).positions();
    List<PositionFence> fences = new ArrayList<>();
    ranges.forEach(
        (tp, r) -> fences.add(AlreadyQuarantined.fence(txns, partition(tp), quarantined, r.end())));
    Map<String, String> extras = front.planBatch(batchId);
    Producer<byte[], byte[]> producer = producer();
    try {
      producer.beginTransaction();
    } catch (RuntimeException e) {
      discardProducer(); // in an error state a previous batch left: the next batch gets a new one
      throw e;
    }
    SendErrors sendErrors = new SendErrors();
    long[] sent = {0};
    try (TableSink.BatchWriter quarantineWriter =
        new AlreadyQuarantined(quarantine.beginFenced(fences), quarantined)) {
      BatchOutputs outputs = new BatchOutputs(NO_SINK, quarantineWriter, null);
      front.beginBatch(
          RecordProcessor.BatchContext.of(
              batchId, startedAt, OptionalLong.empty(), OptionalLong.empty(), Set.of(), extras));
      ExchangeFront.Rows rows =
          row -> {
            send(producer, records.row(row), sendErrors);
            sent[0]++;
          };
      List<SourcePlan.DataGap> gaps =
          source.read(
              ranges,
              record -> {
                CrashPoints.reached(CrashPoints.EXCHANGE_MID_BATCH);
                front.process(record, outputs, rows);
              });
      OptionalLong maxEventTime = front.maxEventTimeMicros();
      if (maxEventTime.isPresent()) {
        for (ExchangeRecords.Outgoing marker : records.markers(maxEventTime.getAsLong())) {
          send(producer, marker, sendErrors);
        }
      }
      // Before any commit, as in the other engines: a flooded batch leaves the quarantine table and
      // the group offsets as they were.
      if (quarantineLimit.isPresent()
          && quarantineLimit.get().exceededBy(outputs.quarantinedRows(), outputs.inputRows())) {
        throw new QuarantineLimitExceededException(
            pipelineId,
            batchId,
            describe(ranges),
            outputs.quarantinedRows(),
            outputs.inputRows(),
            quarantineLimit.get(),
            outputs.firstQuarantineError());
      }
      // No poll from here to sendOffsetsToTransaction: the generation sent is the one that owns
      // these.
      source.group().checkStillOwned(ranges.keySet());
      quarantineWriter.commit(commitInfo(batchId, extras, ranges, gaps));
      CrashPoints.reached(CrashPoints.EXCHANGE_AFTER_QUARANTINE_COMMIT);
      Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
      ranges.forEach((tp, r) -> offsets.put(tp, new OffsetAndMetadata(r.end())));
      producer.sendOffsetsToTransaction(offsets, source.group().groupMetadata());
      producer.commitTransaction();
      CrashPoints.reached(CrashPoints.EXCHANGE_AFTER_KAFKA_COMMIT);
      Outcome outcome =
          new Outcome(
              batchId,
              plan.ranges(),
              outputs.inputRows(),
              sent[0],
              quarantineWriter.rows(),
              outputs.filteredRows(),
              readAnything,
              true,
              Optional.empty(),
              atCeiling);
      if (progress != null) {
        progress.add(progress(outcome, startedAt, plan, maxEventTime, gaps));
      }
      return outcome;
    } catch (Exception | Error e) {
      abort(e);
      String fenced = fencedOff(e);
      if (fenced == null) {
        sendErrors.addTo(e);
        throw e;
      }
      fencedBatches++;
      log.warn(
          "Pipeline {}: stage-1 batch {} dropped, nothing of it committed: this instance was fenced off {} ({})",
          pipelineId,
          batchId,
          describe(ranges),
          fenced);
      return new Outcome(
          batchId, plan.ranges(), 0, 0, 0, 0, readAnything, false, Optional.of(fenced), atCeiling);
    }
  }

  /**
   * Whether every source partition, assigned to this instance or not, has a committed group offset
   * at or past its ceiling: the end test of available-now for stage 1. False for an empty ceiling.
   */
  public boolean allPartitionsAtCeiling(Map<TopicPartition, Long> ceiling) {
    if (ceiling.isEmpty()) {
      return false;
    }
    Map<TopicPartition, Long> committed = source.group().committedOffsets(ceiling.keySet());
    return ceiling.entrySet().stream()
        .allMatch(
            e -> committed.containsKey(e.getKey()) && committed.get(e.getKey()) >= e.getValue());
  }

  private static boolean reachedCeiling(
      Map<TopicPartition, OffsetRange> ranges, Map<TopicPartition, Long> ceiling) {
    if (ceiling.isEmpty()) {
      return false;
    }
    return ranges.entrySet().stream()
        .allMatch(e -> e.getValue().end() >= ceiling.getOrDefault(e.getKey(), 0L));
  }

  private Producer<byte[], byte[]> producer() {
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

  private void send(
      Producer<byte[], byte[]> producer, ExchangeRecords.Outgoing out, SendErrors errors) {
    producer.send(new ProducerRecord<>(topic, out.partition(), out.key(), out.value()), errors);
  }

  /**
   * Aborts the open transaction where the producer allows it; a producer that cannot abort (fenced,
   * in a fatal state, a commit that timed out with an unknown outcome) is closed and replaced at
   * the next batch: the coordinator aborts what it left open.
   */
  private void abort(Throwable cause) {
    if (producer == null) {
      return;
    }
    if (!hasCause(cause, ProducerFencedException.class)) {
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

  private void discardProducer() {
    try {
      producer.close(CLOSE_TIMEOUT);
    } catch (RuntimeException e) {
      log.info("Pipeline {}: closing a fenced stage-1 producer: {}", pipelineId, e.toString());
    }
    producer = null;
  }

  /**
   * Why {@code e} (or a cause) says this instance no longer owns the batch; null for a real
   * failure.
   */
  private static String fencedOff(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RangeRevokedException
          || t instanceof PositionConflictException
          || t instanceof CommitFailedException
          || t instanceof ProducerFencedException
          || t instanceof InvalidProducerEpochException
          || t instanceof FencedInstanceIdException
          || t instanceof RebalanceInProgressException
          || t instanceof IllegalGenerationException
          || t instanceof UnknownMemberIdException) {
        return t.getClass().getSimpleName() + ": " + t.getMessage();
      }
    }
    return null;
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static SourcePartition partition(TopicPartition tp) {
    return new SourcePartition(tp.topic(), tp.partition());
  }

  private static String describe(Map<TopicPartition, OffsetRange> ranges) {
    StringBuilder out = new StringBuilder();
    ranges.forEach(
        (tp, r) ->
            out.append(out.length() == 0 ? "" : ", ")
                .append(tp.topic())
                .append('/')
                .append(tp.partition())
                .append(" offsets [")
                .append(r.start())
                .append(", ")
                .append(r.end())
                .append(')'));
    return out.length() == 0 ? "no records" : out.toString();
  }

  private static Map<String, String> commitInfo(
      long batchId,
      Map<String, String> extras,
      Map<TopicPartition, OffsetRange> ranges,
      List<SourcePlan.DataGap> gaps) {
    Map<String, String> info = new LinkedHashMap<>(extras);
    info.put("batchId", Long.toString(batchId));
    info.put("stage", "exchange");
    StringBuilder offsets = new StringBuilder();
    ranges.forEach(
        (tp, r) ->
            offsets
                .append(offsets.length() == 0 ? "" : ",")
                .append(tp.topic())
                .append('/')
                .append(tp.partition())
                .append(':')
                .append(r.start())
                .append('-')
                .append(r.end()));
    info.put("offsets", offsets.toString());
    info.put("instance", KafkaSource.instanceId());
    if (!gaps.isEmpty()) {
      info.put("dataLossWhileReading", gaps.toString());
    }
    return info;
  }

  private BatchProgress progress(
      Outcome outcome,
      Instant startedAt,
      SourcePlan plan,
      OptionalLong maxEventTime,
      List<SourcePlan.DataGap> readGaps) {
    long durationMs = Math.max(1, Duration.between(startedAt, clock.instant()).toMillis());
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
    List<String> gaps = new ArrayList<>();
    plan.gaps().forEach(g -> gaps.add(g.toString()));
    readGaps.forEach(g -> gaps.add(g.toString()));
    Map<String, Long> state =
        maxEventTime.isPresent()
            ? Map.of("exchange.maxEventTimeMicros", maxEventTime.getAsLong())
            : Map.of();
    return new BatchProgress(
        pipelineId,
        outcome.batchId(),
        false,
        startedAt,
        outcome.recordsRead(),
        outcome.rowsSent(),
        outcome.quarantined(),
        outcome.filtered(),
        0,
        0,
        outcome.recordsRead() * 1000.0 / durationMs,
        durationMs,
        Map.of(),
        partitions,
        -1,
        null,
        gaps,
        state,
        0,
        0,
        Map.of());
  }

  /**
   * The first error a send reported (surfacing as the commit's failure), added to the batch's
   * failure.
   */
  private static final class SendErrors implements Callback {
    private volatile Exception first;

    @Override
    public void onCompletion(RecordMetadata metadata, Exception error) {
      if (error != null && first == null) {
        first = error;
      }
    }

    void addTo(Throwable failure) {
      Exception e = first;
      if (e != null && e != failure) {
        failure.addSuppressed(e);
      }
    }
  }

  /**
   * Stage 1 has no sink: its rows go to the repartition topic, never to {@link
   * BatchOutputs#output}.
   */
  private static final TableSink.BatchWriter NO_SINK =
      new TableSink.BatchWriter() {
        @Override
        public boolean alreadyCommitted() {
          return false;
        }

        @Override
        public void write(Object[] row) {
          throw new IllegalStateException(
              "stage 1 writes rows to the repartition topic, not to a table");
        }

        @Override
        public long rows() {
          return 0;
        }

        @Override
        public long commit(Map<String, String> commitInfo) {
          return -1;
        }

        @Override
        public void close() {}
      };

  /**
   * Closes the producer (an open transaction is aborted by the coordinator); the source and front
   * are the caller's.
   */
  @Override
  public void close() {
    if (producer != null) {
      discardProducer();
    }
  }
}
