package dev.tributary.service.exchange;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchLoop;
import dev.tributary.service.engine.SourceStoppedException;
import dev.tributary.service.source.KafkaSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run loop of one instance of a stateful pipeline in consumer-group mode (docs/DESIGN.md,
 * "Stateful pipelines in group mode"): each round runs one stage-1 batch (the source partitions
 * this instance owns, into the repartition topic in a Kafka transaction) and then one batch of each
 * repartition partition this instance owns (its sub-pipeline: state, watermark, sink).
 *
 * <p>A bounded trigger (available-now, once) fixes the source's ceiling at start and ends when the
 * whole pipeline is done, which every instance can tell from Kafka and the sub-checkpoints: every
 * source partition's committed group offset is at the ceiling, and every repartition partition is
 * read to its end and applied the agreed watermark. An instance whose own part is done keeps taking
 * part until then, because the partitions of instances that ended move to it. {@code once} runs as
 * available-now here: one stage-1 batch does not end a stateful run whose windows are settled by
 * later batches of other instances.
 */
public final class GroupStatefulEngine implements BatchLoop {
  private static final Logger log = LoggerFactory.getLogger(GroupStatefulEngine.class);

  /** How long a bounded run waits between rounds in which nothing was read. */
  private static final Duration IDLE_ROUND = Duration.ofMillis(200);

  /** One short poll of the repartition consumer before the first round: it sends the group join. */
  private static final Duration JOIN_KICK = Duration.ofMillis(100);

  private final String pipelineId;
  private final KafkaSource sourceTopics;
  private final ExchangeWriter stage1;
  private final KafkaSource repartition;
  private final PartitionPipelines stage2;
  private final Clock clock;
  private final AtomicBoolean stopRequested = new AtomicBoolean();
  private volatile boolean inRound;

  /**
   * @param sourceTopics stage 1's source (group {@code tributary-<pipeline>}), which {@code stage1}
   *     reads
   * @param repartition stage 2's source on the repartition topic, which {@code stage2} reads
   */
  public GroupStatefulEngine(
      String pipelineId,
      KafkaSource sourceTopics,
      ExchangeWriter stage1,
      KafkaSource repartition,
      PartitionPipelines stage2,
      Clock clock) {
    this.pipelineId = pipelineId;
    this.sourceTopics = sourceTopics;
    this.stage1 = stage1;
    this.repartition = repartition;
    this.stage2 = stage2;
    this.clock = clock;
    // one thread, two groups: a wait in either group keeps the other one's rebalances going
    sourceTopics.group().pollAlongside(repartition.group());
    repartition.group().pollAlongside(sourceTopics.group());
  }

  @Override
  public void run(TriggerSpec trigger) throws Exception {
    try {
      runRounds(trigger);
    } catch (SourceStoppedException | WakeupException e) {
      if (!stopRequested.get()) {
        throw e;
      }
      log.info("Pipeline {}: stopped", pipelineId);
    }
  }

  private void runRounds(TriggerSpec trigger) throws Exception {
    boolean bounded = !(trigger instanceof TriggerSpec.ProcessingTime);
    Map<TopicPartition, Long> ceiling =
        bounded ? sourceTopics.latestOffsets(sourceTopics.partitions()) : Map.of();
    // Both groups are joined at once: a join waits out the broker's
    // group.initial.rebalance.delay.ms
    // (3 s by default), and the repartition consumer is otherwise first polled after stage 1's
    // batch.
    repartition.idle(JOIN_KICK);
    while (!stopRequested.get()) {
      Instant started = clock.instant();
      ExchangeWriter.Outcome written;
      inRound = true;
      try {
        written = stage1.runBatch(ceiling);
        stage2.runRound();
      } finally {
        inRound = false;
      }
      if (bounded) {
        if (!written.readAnything()
            && stage1.allPartitionsAtCeiling(ceiling)
            && stage2.allSettled(stage2.endOffsets())) {
          log.info(
              "Pipeline {}: every source partition is read to the end of this run and every repartition"
                  + " partition is settled",
              pipelineId);
          return;
        }
        if (!written.readAnything()) {
          idle(IDLE_ROUND);
        }
      } else {
        idleUntil(started.plus(((TriggerSpec.ProcessingTime) trigger).interval()));
      }
    }
  }

  /**
   * Waits until {@code deadline}, polling both consumers so that this instance stays in both
   * groups.
   */
  private void idleUntil(Instant deadline) throws InterruptedException {
    while (!stopRequested.get()) {
      long left = Duration.between(clock.instant(), deadline).toMillis();
      if (left <= 0) {
        return;
      }
      idle(Duration.ofMillis(Math.min(left, IDLE_ROUND.toMillis())));
    }
  }

  private void idle(Duration wait) throws InterruptedException {
    Duration half = wait.dividedBy(2);
    sourceTopics.idle(half);
    repartition.idle(wait.minus(half));
  }

  @Override
  public void stop() {
    stopRequested.set(true);
    if (!inRound) {
      sourceTopics.wakeup();
      stage2.wakeup();
    }
  }
}
