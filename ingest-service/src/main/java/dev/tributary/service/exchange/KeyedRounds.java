package dev.tributary.service.exchange;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.SourceStoppedException;
import dev.tributary.service.engine.TriggerLoop;
import dev.tributary.service.source.KafkaSource;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of a keyed-by stateful pipeline in consumer-group mode as a {@link TriggerLoop.Step}
 * (docs/DESIGN.md, "Keyed-by sources: no exchange"): each step is a round of one batch of each
 * source partition this instance owns ({@link PartitionPipelines#overSourceTopic}). There is no
 * stage 1 and no repartition topic.
 *
 * <p>A bounded trigger (available-now, once) fixes the source's ceiling at start and ends when the
 * whole pipeline is done, which every instance can tell from the sub-checkpoints: every source
 * partition's latest batch is committed, read to the ceiling, and applied the agreed watermark.
 * Until then an instance keeps taking part (it may get the partitions of an instance that ended).
 */
public final class KeyedRounds implements TriggerLoop.Step {
  private static final Logger log = LoggerFactory.getLogger(KeyedRounds.class);

  /** One short poll before the first round: it sends the group join. */
  private static final Duration JOIN_KICK = Duration.ofMillis(100);

  private final String pipelineId;
  private final KafkaSource source;
  private final PartitionPipelines partitions;
  private volatile boolean inRound;

  /**
   * @param source the group-mode source on the pipeline's topic, which {@code partitions} reads
   */
  public KeyedRounds(String pipelineId, KafkaSource source, PartitionPipelines partitions) {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.source = Objects.requireNonNull(source, "source");
    this.partitions = Objects.requireNonNull(partitions, "partitions");
  }

  /**
   * Refuses a source topic whose partition count changed since the sub-checkpoints were written
   * ({@link PartitionPipelines#refuseResizedSourceTopic}), then fixes the ceiling of a bounded run
   * and sends the group join.
   */
  @Override
  public void start(TriggerSpec trigger) throws Exception {
    partitions.refuseResizedSourceTopic();
    if (!(trigger instanceof TriggerSpec.ProcessingTime)) {
      source.boundToAvailableNow();
    }
    source.idle(JOIN_KICK);
  }

  /**
   * @return whether a sub-pipeline had input
   */
  @Override
  public boolean step() throws Exception {
    inRound = true;
    try {
      return partitions.runRound();
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    } finally {
      inRound = false;
    }
  }

  @Override
  public boolean finished(TriggerSpec trigger, boolean didWork) throws Exception {
    boolean settled;
    try {
      Map<Integer, Long> ends = new TreeMap<>();
      source.readableEnds(source.partitions()).forEach((tp, end) -> ends.put(tp.partition(), end));
      settled = !didWork && partitions.allSettled(ends);
    } catch (WakeupException e) {
      throw new SourceStoppedException(e);
    }
    if (settled) {
      log.info(
          "Pipeline {}: every source partition is read to the end of this run and settled",
          pipelineId);
    }
    return settled;
  }

  /** Waits, polling the consumer so that this instance stays in the group. */
  @Override
  public void idle(Duration wait) throws InterruptedException {
    source.idle(wait);
  }

  @Override
  public void interrupt() {
    if (!inRound) {
      partitions.wakeup();
    }
  }
}
