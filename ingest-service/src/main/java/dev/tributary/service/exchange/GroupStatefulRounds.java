package dev.tributary.service.exchange;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.SourceStoppedException;
import dev.tributary.service.engine.TriggerLoop;
import dev.tributary.service.source.KafkaSource;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of a stateful pipeline in consumer-group mode as a {@link TriggerLoop.Step}
 * (docs/DESIGN.md, "Stateful pipelines in group mode"): each step is a round of one stage-1 batch
 * (the source partitions this instance owns, into the repartition topic in a Kafka transaction,
 * {@link ExchangeProgress}) and then one batch of each repartition partition this instance owns
 * (its sub-pipeline: state, watermark, sink; {@link PartitionPipelines}).
 *
 * <p>A bounded trigger (available-now, once) fixes the source's ceiling at start and ends when the
 * whole pipeline is done, which every instance can tell from Kafka and the sub-checkpoints: every
 * source partition's committed group offset is at the ceiling, and every repartition partition is
 * read to its end and applied the agreed watermark. An instance whose own part is done keeps taking
 * part until then, because the partitions of instances that ended move to it. {@code once} runs as
 * available-now here: one stage-1 batch does not end a stateful run whose windows are settled by
 * later batches of other instances.
 */
public final class GroupStatefulRounds implements TriggerLoop.Step {
  private static final Logger log = LoggerFactory.getLogger(GroupStatefulRounds.class);

  /** One short poll of the repartition consumer before the first round: it sends the group join. */
  private static final Duration JOIN_KICK = Duration.ofMillis(100);

  private final String pipelineId;
  private final KafkaSource sourceTopics;
  private final ExchangeProgress stage1Progress;
  private final TriggerLoop.Batches stage1;
  private final KafkaSource repartition;
  private final PartitionPipelines stage2;
  private volatile boolean inRound;

  /**
   * @param sourceTopics stage 1's source (group {@code tributary-<pipeline>})
   * @param stage1Progress stage 1's progress model, which {@code stage1} runs
   * @param repartition stage 2's source on the repartition topic, which {@code stage2} reads
   */
  public GroupStatefulRounds(
      String pipelineId,
      KafkaSource sourceTopics,
      ExchangeProgress stage1Progress,
      TriggerLoop.Batches stage1,
      KafkaSource repartition,
      PartitionPipelines stage2) {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.sourceTopics = Objects.requireNonNull(sourceTopics, "sourceTopics");
    this.stage1Progress = Objects.requireNonNull(stage1Progress, "stage1Progress");
    this.stage1 = Objects.requireNonNull(stage1, "stage1");
    this.repartition = Objects.requireNonNull(repartition, "repartition");
    this.stage2 = Objects.requireNonNull(stage2, "stage2");
    // one thread, two groups: a wait in either group keeps the other one's rebalances going
    sourceTopics.group().pollAlongside(repartition.group());
    repartition.group().pollAlongside(sourceTopics.group());
  }

  @Override
  public void start(TriggerSpec trigger) throws Exception {
    if (!(trigger instanceof TriggerSpec.ProcessingTime)) {
      Map<TopicPartition, Long> ceiling = sourceTopics.latestOffsets(sourceTopics.partitions());
      stage1Progress.bound(ceiling);
    }
    // Both groups are joined at once: a join waits out the broker's
    // group.initial.rebalance.delay.ms (3 s by default), and the repartition consumer is otherwise
    // first polled after stage 1's batch.
    repartition.idle(JOIN_KICK);
  }

  /**
   * One round. A stage-1 batch that was fenced off ends the round (the loop drops it): stage 2 runs
   * in the next round.
   *
   * @return whether stage 1 had records to read
   */
  @Override
  public boolean step() throws Exception {
    inRound = true;
    try {
      stage1.step();
      stage2.runRound();
    } catch (WakeupException e) {
      throw new SourceStoppedException(e); // a Kafka call the stop interrupted
    } finally {
      inRound = false;
    }
    return stage1Progress.lastPlanReadAnything();
  }

  @Override
  public boolean finished(TriggerSpec trigger, boolean didWork) throws Exception {
    boolean settled;
    try {
      settled =
          !didWork
              && stage1Progress.allPartitionsAtCeiling()
              && stage2.allSettled(stage2.endOffsets());
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    if (settled) {
      log.info(
          "Pipeline {}: every source partition is read to the end of this run and every"
              + " repartition partition is settled",
          pipelineId);
      return true;
    }
    return false;
  }

  /** Waits, polling both consumers so that this instance stays in both groups. */
  @Override
  public void idle(Duration wait) throws InterruptedException {
    Duration half = wait.dividedBy(2);
    sourceTopics.idle(half);
    repartition.idle(wait.minus(half));
  }

  @Override
  public void interrupt() {
    if (!inRound) {
      sourceTopics.wakeup();
      stage2.wakeup();
    }
  }
}
