package dev.tributary.service.exchange;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.CompatibleChange;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.RecoveryPlan;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.Assignment;
import dev.tributary.config.QuarantineLimit;
import dev.tributary.config.StartingOffsets;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchBody;
import dev.tributary.service.engine.PartitionMovedException;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.engine.TriggerLoop;
import dev.tributary.service.engine.WatermarkPolicy;
import dev.tributary.service.engine.WriteAheadLog;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.stateful.StatefulProcessor;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 2 of a stateful group-mode pipeline on this instance (docs/DESIGN.md, "Stateful pipelines
 * in group mode"): one exclusive sub-pipeline per repartition partition the consumer group {@code
 * tributary-<pipeline>-repartition} assigns here. Sub-pipeline {@code n} is a {@link WriteAheadLog}
 * run by its own {@link TriggerLoop}, with its own checkpoint at {@code partitions/<n>/} inside the
 * pipeline's checkpoint store (one client for all), a {@link PartitionSource} on partition {@code
 * n}, state stores in a local directory of its own, batch keys {@code
 * txn(<pipeline>.<n>@<checkpoint id>)} in the shared sink, quarantine and late-events tables, and
 * the {@link AgreedWatermark}.
 *
 * <p>The run loop calls {@link #runRound} every trigger, from one thread (the shared Kafka source
 * is not thread-safe). A sub-pipeline that loses a race for a log entry (a zombie or the previous
 * owner wrote it first) or whose partition the group takes away mid-batch (both a {@link
 * PartitionMovedException} its loop ends with) is closed and, if still assigned, opened again from
 * its checkpoint next round: neither is a failure, exactly once holds whoever runs a batch (the
 * batch is fixed by its offsets entry, the tables keep its first commit).
 *
 * <p>A keyed-by source ({@link #overSourceTopic}, docs/DESIGN.md "Keyed-by sources: no exchange")
 * has no stage 1: sub-pipeline {@code n} reads partition {@code n} of the source topic itself, in
 * the consumer group {@code tributary-<pipeline>}, from {@code starting-offsets}, with the
 * agreement's keyed-by rule ({@link AgreedWatermark#keyed}); its sub-checkpoint's identity records
 * the topic's partition count, so a start after partitions were added (which moves keys between
 * partitions) is refused.
 */
public final class PartitionPipelines implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PartitionPipelines.class);

  /** The sub-checkpoint identity part of a keyed-by source: the topic's partition count. */
  private static final String SOURCE_PARTITIONS = "source.partitions";

  /** Builds a sub-pipeline's record processor. */
  @FunctionalInterface
  public interface Processors {
    /**
     * @param partition the repartition partition
     * @param checkpointStore the sub-pipeline's checkpoint store ({@code partitions/<n>/}), its
     *     state's home
     * @param localDir a directory the processor owns for the state stores' working copies
     */
    RecordProcessor open(int partition, ObjectStore checkpointStore, Path localDir)
        throws IOException;
  }

  /**
   * What the sub-pipelines share.
   *
   * @param pipelineId the pipeline's id
   * @param identity the pipeline's checkpoint identity; each sub-checkpoint adds {@code partition}
   * @param compatible which identity changes a sub-checkpoint accepts (as the pipeline's
   *     checkpoint)
   * @param localDir the state stores' working copies go to {@code <localDir>/partitions/<n>}
   * @param quarantineLimit as the pipeline's {@code quarantine.max-fraction}, per sub-pipeline
   *     batch
   * @param idleTimeout {@code watermark.idle-timeout}: a partition that committed nothing for this
   *     long no longer holds the agreed watermark back ({@link AgreedWatermark})
   */
  public record Settings(
      String pipelineId,
      Map<String, String> identity,
      CompatibleChange compatible,
      Path localDir,
      Optional<QuarantineLimit> quarantineLimit,
      Optional<Duration> idleTimeout) {
    public Settings {
      Objects.requireNonNull(pipelineId, "pipelineId");
      identity = Map.copyOf(identity);
      Objects.requireNonNull(compatible, "compatible");
      Objects.requireNonNull(localDir, "localDir");
      Objects.requireNonNull(quarantineLimit, "quarantineLimit");
      Objects.requireNonNull(idleTimeout, "idleTimeout");
    }

    /** Settings without a watermark idle timeout. */
    public Settings(
        String pipelineId,
        Map<String, String> identity,
        CompatibleChange compatible,
        Path localDir,
        Optional<QuarantineLimit> quarantineLimit) {
      this(pipelineId, identity, compatible, localDir, quarantineLimit, Optional.empty());
    }
  }

  /**
   * What the REST API shows of an owned partition.
   *
   * @param partition the repartition partition
   * @param lastBatchId the latest batch planned in its checkpoint (empty: none yet)
   * @param committed whether that batch is committed (else it is replayed next)
   * @param watermarkMicros the watermark that batch applies (empty: none yet)
   * @param offset where the partition's read reached (the latest batch's range end)
   */
  public record PartitionFacts(
      int partition,
      OptionalLong lastBatchId,
      boolean committed,
      OptionalLong watermarkMicros,
      long offset) {}

  private final Settings settings;
  private final KafkaSource repartition;
  private final ObjectStore checkpointStore;
  private final Processors processors;
  private final TableSink sink;
  private final TableSink quarantine;
  private final Optional<TableSink> lateEvents;
  private final ProgressLog progress;
  private final Clock clock;
  private final String topic;
  private final int partitions;
  private final boolean sourceTopic;

  /** Opened once each; thread-safe (the REST API reads {@link #facts} while a round runs). */
  private final Map<Integer, Checkpoint> checkpoints = new ConcurrentHashMap<>();

  private final AgreedWatermark agreement;
  private final Map<Integer, SubPipeline> open = new TreeMap<>();

  /** {@link #open}'s partitions after the last round, for other threads. */
  private volatile List<Integer> owned = List.of();

  /**
   * @param repartition the source on the repartition topic ({@link #repartitionSettings}); closed
   *     by {@link #close}. In group assignment the group decides the partitions run here; a source
   *     in exclusive assignment runs every partition (one instance, or a test's zombie).
   * @param checkpointStore the pipeline's checkpoint store; not closed here
   * @param sink the shared sink table (append), {@code quarantine} and {@code lateEvents} likewise
   */
  public PartitionPipelines(
      Settings settings,
      KafkaSource repartition,
      ObjectStore checkpointStore,
      Processors processors,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> lateEvents,
      ProgressLog progress,
      Clock clock) {
    this(
        settings,
        repartition,
        checkpointStore,
        processors,
        sink,
        quarantine,
        lateEvents,
        progress,
        clock,
        false);
  }

  /**
   * The sub-pipelines of a keyed-by source: one per partition of its single topic, read directly
   * (no repartition topic).
   *
   * @param source the group-mode source on the pipeline's topic (group {@code
   *     tributary-<pipeline>}); closed by {@link #close}
   * @param processors each sub-pipeline's processor: parse, transforms, the keyed-by check, state
   */
  public static PartitionPipelines overSourceTopic(
      Settings settings,
      KafkaSource source,
      ObjectStore checkpointStore,
      Processors processors,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> lateEvents,
      ProgressLog progress,
      Clock clock) {
    return new PartitionPipelines(
        settings,
        source,
        checkpointStore,
        processors,
        sink,
        quarantine,
        lateEvents,
        progress,
        clock,
        true);
  }

  private PartitionPipelines(
      Settings settings,
      KafkaSource repartition,
      ObjectStore checkpointStore,
      Processors processors,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> lateEvents,
      ProgressLog progress,
      Clock clock,
      boolean sourceTopic) {
    this.sourceTopic = sourceTopic;
    this.settings = Objects.requireNonNull(settings, "settings");
    this.repartition = Objects.requireNonNull(repartition, "repartition");
    this.checkpointStore = Objects.requireNonNull(checkpointStore, "checkpointStore");
    this.processors = Objects.requireNonNull(processors, "processors");
    this.sink = sink;
    this.quarantine = quarantine;
    this.lateEvents = lateEvents;
    this.progress = progress;
    this.clock = clock;
    this.topic =
        sourceTopic
            ? repartition.partitions().get(0).topic()
            : ExchangeRecords.topic(settings.pipelineId());
    this.partitions = repartition.partitions().size();
    this.agreement =
        sourceTopic
            ? AgreedWatermark.keyed(this::checkpoint, partitions, topic, this::readableEnds)
            : new AgreedWatermark(
                this::checkpoint,
                partitions,
                new AgreedWatermark.Idleness(settings.idleTimeout(), clock));
  }

  /**
   * The settings of the repartition source: topic {@code tributary-<pipeline>-repartition}, group
   * {@code tributary-<pipeline>-repartition} in group assignment, {@code
   * isolation.level=read_committed} (only committed stage-1 transactions are read), every partition
   * from its earliest offset.
   *
   * @param properties the pipeline's {@code source.kafka.properties} (security, timeouts)
   * @param timeouts the pipeline's source timeouts
   */
  public static KafkaSourceSettings repartitionSettings(
      String pipelineId,
      String bootstrapServers,
      Map<String, String> properties,
      KafkaSourceSettings.Timeouts timeouts,
      Assignment assignment) {
    Map<String, String> props = new HashMap<>(properties);
    props.put("isolation.level", "read_committed");
    return new KafkaSourceSettings(
        pipelineId + "-repartition",
        bootstrapServers,
        List.of(ExchangeRecords.topic(pipelineId)),
        Optional.empty(),
        new StartingOffsets.Earliest(),
        OptionalLong.empty(),
        true,
        props,
        timeouts,
        assignment);
  }

  /**
   * The processors of a stateful plan's sub-pipelines ({@link StatefulProcessor#forExchange}), ids
   * {@code <pipeline>.<n>}.
   */
  public static Processors statefulProcessors(
      String pipelineId, StatefulPlan plan, ExchangeRecords exchange) {
    return (n, store, dir) ->
        StatefulProcessor.forExchange(subPipelineId(pipelineId, n), plan, exchange, store, dir);
  }

  /**
   * The id naming sub-pipeline {@code n} in its batch keys and messages: {@code <pipeline>.<n>}.
   */
  public static String subPipelineId(String pipelineId, int partition) {
    return pipelineId + "." + partition;
  }

  /** The repartition topic's partition count N. */
  public int partitionCount() {
    return partitions;
  }

  /**
   * One round: refreshes the assignment, closes the sub-pipelines of partitions no longer assigned,
   * opens those newly assigned (from their checkpoints, replaying an unfinished batch), reads the
   * agreed watermark once, then runs each owned partition's next batch if it has input or the
   * agreed watermark moved past what its last batch applied (at most one batch each).
   *
   * @return whether a sub-pipeline planned a batch with input
   * @throws Exception what made a sub-pipeline's batch fail, other than a lost log race or a
   *     revocation
   */
  public boolean runRound() throws Exception {
    TreeSet<Integer> owned = assignedNow();
    for (var it = open.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (!owned.contains(e.getKey())) {
        log.info(
            "Pipeline {}: {} partition {} moved to another instance; its sub-pipeline is closed",
            settings.pipelineId(),
            topic,
            e.getKey());
        e.getValue().close();
        it.remove();
      }
    }
    for (int n : owned) {
      if (!open.containsKey(n)) {
        open.put(n, openSubPipeline(n));
      }
    }
    this.owned = List.copyOf(open.keySet());
    agreement.refresh();
    boolean input = false;
    for (int n : owned) {
      SubPipeline sub = open.get(n);
      try {
        sub.loop.run(new TriggerSpec.Once());
        input |= sub.source.takePlannedInput();
      } catch (PartitionMovedException e) {
        // Not a failure: the previous owner or a zombie won the race for a checkpoint entry, or the
        // group took the partition away; exactly once holds whoever runs the batch.
        log.info(
            "Pipeline {}: sub-pipeline {} moved on; it is opened again from its checkpoint next"
                + " round ({})",
            settings.pipelineId(),
            n,
            e.getMessage());
        sub.close();
        open.remove(n);
      }
    }
    return input;
  }

  /** Where each source partition counts as read to the end now (keyed-by agreement). */
  private Map<Integer, Long> readableEnds() {
    Map<Integer, Long> out = new TreeMap<>();
    repartition
        .readableEnds(repartition.partitions())
        .forEach((tp, end) -> out.put(tp.partition(), end));
    return out;
  }

  private TreeSet<Integer> assignedNow() {
    List<TopicPartition> assigned =
        repartition.settings().groupAssignment()
            ? repartition.group().refreshAssignment()
            : repartition.partitions();
    TreeSet<Integer> out = new TreeSet<>();
    assigned.forEach(tp -> out.add(tp.partition()));
    return out;
  }

  private SubPipeline openSubPipeline(int n) throws IOException {
    ObjectStore store = ObjectStores.under(checkpointStore, "partitions/" + n);
    Checkpoint checkpoint = checkpoint(n);
    RecordProcessor processor =
        processors.open(
            n, store, settings.localDir().resolve("partitions").resolve(Integer.toString(n)));
    TableTxns txns =
        new TableTxns(
            subPipelineId(settings.pipelineId(), n), checkpoint.metadata().checkpointId());
    TopicPartition tp = new TopicPartition(topic, n);
    PartitionSource source =
        sourceTopic
            ? PartitionSource.ofSourceTopic(repartition, tp)
            : new PartitionSource(repartition, tp);
    TriggerLoop loop =
        TriggerLoop.Batches.writeAheadLog(
            new BatchBody.Settings(
                txns.pipelineId(), source, processor, progress, clock, settings.quarantineLimit()),
            checkpoint,
            txns,
            Map.of(),
            new WriteAheadLog.Tables(sink, quarantine, lateEvents),
            new WatermarkPolicy.Agreed(agreement));
    log.info(
        "Pipeline {}: running sub-pipeline {} ({} partition {}, checkpoint {})",
        settings.pipelineId(),
        txns.pipelineId(),
        topic,
        n,
        checkpoint.location());
    return new SubPipeline(n, processor, source, loop);
  }

  /** Partition n's checkpoint, opened once (creating its metadata if nobody ran it yet). */
  private Checkpoint checkpoint(int n) throws IOException {
    Checkpoint cp = checkpoints.get(n);
    if (cp == null) {
      Map<String, String> identity = new LinkedHashMap<>(settings.identity());
      identity.put("partition", Integer.toString(n));
      if (sourceTopic) {
        // the default partitioner's modulus: more partitions move keys, and their state with them
        identity.put(SOURCE_PARTITIONS, Integer.toString(partitions));
      }
      cp =
          Checkpoint.open(
              ObjectStores.under(checkpointStore, "partitions/" + n),
              settings.pipelineId(),
              identity,
              settings.compatible());
      Checkpoint raced = checkpoints.putIfAbsent(n, cp);
      cp = raced == null ? cp : raced;
    }
    return cp;
  }

  /**
   * Refuses a keyed-by source whose topic's partition count is not the one its sub-checkpoints were
   * written with (partitions were added: the default partitioner's modulus changed, so keys moved
   * to other partitions and their state would not follow), before any sub-checkpoint is created or
   * written. Opens the first existing sub-checkpoint (all record the same count); nothing to do for
   * a new checkpoint or a repartition topic.
   *
   * @throws CheckpointMismatchException naming the pipeline, the topic and both partition counts
   */
  public void refuseResizedSourceTopic() throws IOException {
    if (!sourceTopic) {
      return;
    }
    for (int n = 0; n < partitions; n++) {
      if (checkpointStore.sample("partitions/" + n + "/", 1).isEmpty()) {
        continue;
      }
      try {
        checkpoint(n);
      } catch (CheckpointMismatchException e) {
        if (!e.changedParts().equals(List.of(SOURCE_PARTITIONS))) {
          throw e; // another change (keyed-by switched on: the count is new too): its own words
        }
        throw new CheckpointMismatchException(
            "Cannot start pipeline "
                + settings.pipelineId()
                + ": source topic "
                + topic
                + " has "
                + partitions
                + " partitions now, but its keyed-by checkpoint "
                + checkpointStore.location()
                + " was written for another count ("
                + recordedChange(e.getMessage())
                + "). Added partitions move keys to other partitions (the default partitioner's"
                + " murmur2(key) % partitions) and their state would not follow. Start a new"
                + " checkpoint location (with source.kafka.starting-offsets: table to continue"
                + " after the data the sink table holds).",
            e.changedParts());
      }
      return;
    }
  }

  /** The checkpoint's own words for the count change: {@code source.partitions changed from …}. */
  private static String recordedChange(String message) {
    int at = message.indexOf(SOURCE_PARTITIONS + " changed from ");
    if (at < 0) {
      return SOURCE_PARTITIONS + " changed";
    }
    int end = message.indexOf(']', message.indexOf(" to ", at));
    return end < 0 ? message.substring(at) : message.substring(at, end + 1);
  }

  /** The read_committed end offset of every repartition partition, for {@link #allSettled}. */
  public Map<Integer, Long> endOffsets() {
    Map<Integer, Long> out = new TreeMap<>();
    repartition
        .latestOffsets(repartition.partitions())
        .forEach((tp, end) -> out.put(tp.partition(), end));
    return out;
  }

  /**
   * Whether stage 2 of the whole pipeline is done up to {@code endOffsets}, as any instance can
   * tell from the sub-checkpoints: every partition {@code 0..N-1} has its latest batch committed,
   * read to its end offset, and applied the agreed watermark (its latest offsets entry's watermark
   * is the minimum of what every partition's latest commits entry records).
   *
   * @param endOffsets per partition, the read_committed end offset of the repartition topic
   */
  public boolean allSettled(Map<Integer, Long> endOffsets) throws IOException {
    List<RecoveryPlan> plans = new ArrayList<>(partitions);
    for (int n = 0; n < partitions; n++) {
      RecoveryPlan plan = checkpoint(n).recover();
      if (plan.action() != RecoveryPlan.Action.RESUME) {
        return false;
      }
      OffsetRange range =
          plan.latestOffsets().orElseThrow().ranges().get(new SourcePartition(topic, n));
      long reached = range == null ? 0 : range.end();
      if (reached < endOffsets.getOrDefault(n, 0L)) {
        return false;
      }
      plans.add(plan);
    }
    OptionalLong agreed = agreement.ofPlans(plans);
    return plans.stream()
        .allMatch(p -> p.latestOffsets().orElseThrow().watermarkMicros().equals(agreed));
  }

  /** The partitions this instance runs, in order, as of the last round; thread-safe. */
  public List<Integer> ownedPartitions() {
    return owned;
  }

  /** The agreed watermark of the last round (empty: not every partition recorded one yet). */
  public OptionalLong agreedWatermark() {
    return agreement.current();
  }

  /**
   * The facts of every partition this instance runs (as of the last round), from their checkpoints;
   * thread-safe.
   */
  public List<PartitionFacts> facts() throws IOException {
    List<PartitionFacts> out = new ArrayList<>();
    for (int n : owned) {
      RecoveryPlan plan = checkpoint(n).recover();
      Optional<OffsetsEntry> latest = plan.latestOffsets();
      OffsetRange range =
          latest.map(e -> e.ranges().get(new SourcePartition(topic, n))).orElse(null);
      out.add(
          new PartitionFacts(
              n,
              latest.map(e -> OptionalLong.of(e.batchId())).orElse(OptionalLong.empty()),
              plan.action() == RecoveryPlan.Action.RESUME,
              latest.map(OffsetsEntry::watermarkMicros).orElse(OptionalLong.empty()),
              range == null ? 0 : range.end()));
    }
    return out;
  }

  /**
   * Aborts a blocking Kafka call of the round in progress (or the next one), which then throws a
   * {@link dev.tributary.service.engine.SourceStoppedException}; thread-safe. For a prompt stop
   * while the broker is unreachable; an unfinished batch is replayed by whoever opens its partition
   * next.
   */
  public void wakeup() {
    repartition.wakeup();
  }

  /**
   * Closes the sub-pipelines and the repartition source (leaving its group: others take its
   * partitions).
   */
  @Override
  public void close() {
    try {
      open.values().forEach(SubPipeline::close);
      open.clear();
      owned = List.of();
    } finally {
      repartition.close();
    }
  }

  /**
   * One partition's running pieces; the checkpoint and the shared source and tables are not its
   * own.
   */
  private record SubPipeline(
      int partition, RecordProcessor processor, PartitionSource source, TriggerLoop loop) {
    void close() {
      try {
        processor.close();
      } catch (RuntimeException e) {
        log.warn(
            "Sub-pipeline of repartition partition {}: closing its state failed: {}",
            partition,
            e.toString());
      }
    }
  }
}
