package dev.tributary.service.exchange;

import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.SourceInput;
import dev.tributary.service.source.KafkaSource;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition {@code n} of the repartition topic, as the source of stage 2's sub-pipeline {@code
 * n} (docs/DESIGN.md, "Stateful pipelines in group mode"): a view of the instance's shared
 * group-mode {@link KafkaSource} on that topic (consumer group {@code
 * tributary-<pipeline>-repartition}, {@code isolation.level=read_committed}). Plans cover partition
 * {@code n} alone, starting at its earliest offset while the sub-checkpoint has no position for it,
 * and ending at its last stable offset: there is no available-now ceiling of its own, the caller's
 * run loop decides when the run ends. Reads go one partition in offset order (a stateful batch must
 * replay identically); offsets of transaction markers and aborted records are gaps the read
 * tolerates. A batch whose partition the group takes away while it reads fails with a {@link
 * dev.tributary.service.engine.RangeRevokedException}.
 *
 * <p>For a keyed-by source ({@link #ofSourceTopic}) the view is partition {@code n} of the source
 * topic itself, planned by {@link KafkaSource#planOwnPartition}: {@code starting-offsets} while the
 * sub-checkpoint has no position, and the available-now ceiling of the shared source.
 *
 * <p>Closing the view leaves the shared source open: its owner closes it.
 */
public final class PartitionSource implements Source {
  private final KafkaSource kafka;
  private final TopicPartition partition;
  private final boolean sourceTopic;
  private boolean plannedInput;

  /**
   * @param kafka the shared group-mode source on the repartition topic; used from the caller's
   *     thread
   * @param partition the repartition partition this view reads
   */
  public PartitionSource(KafkaSource kafka, TopicPartition partition) {
    this(kafka, partition, false);
  }

  private PartitionSource(KafkaSource kafka, TopicPartition partition, boolean sourceTopic) {
    this.kafka = Objects.requireNonNull(kafka, "kafka");
    this.partition = Objects.requireNonNull(partition, "partition");
    this.sourceTopic = sourceTopic;
  }

  /**
   * Partition {@code partition} of a keyed-by source topic, read directly.
   *
   * @param kafka the shared group-mode source on the source topic
   */
  public static PartitionSource ofSourceTopic(KafkaSource kafka, TopicPartition partition) {
    return new PartitionSource(kafka, partition, true);
  }

  /** Whether a plan since the last call had input (a batch to run); resets. */
  boolean takePlannedInput() {
    boolean had = plannedInput;
    plannedInput = false;
    return had;
  }

  /** The partition this view reads. */
  public TopicPartition partition() {
    return partition;
  }

  /** Nothing to fix: the run loop of the whole pipeline decides the end of a bounded run. */
  @Override
  public void boundToAvailableNow() {}

  @Override
  public PlannedBatch plan(BatchRange previous, boolean firstBatch) throws IOException {
    PlannedBatch plan =
        sourceTopic
            ? kafka.planOwnPartition(previous, partition)
            : kafka.planPartition(previous, partition);
    plannedInput |= plan.hasInput();
    return plan;
  }

  @Override
  public PlannedBatch replayed(BatchRange range) {
    return kafka.replayed(range);
  }

  @Override
  public List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input)
      throws Exception {
    return kafka.read(range, true, input);
  }

  @Override
  public Map<String, String> commitInfo(BatchRange range) {
    return kafka.commitInfo(range);
  }

  @Override
  public String describe(BatchRange range) {
    return kafka.describe(range);
  }

  /** Records the range end as the group's offset of the partition, for lag tools (best effort). */
  @Override
  public void committed(BatchRange range) {
    kafka.committed(range);
  }

  @Override
  public void wakeup() {
    kafka.wakeup();
  }

  /** The shared source stays open. */
  @Override
  public void close() {}
}
