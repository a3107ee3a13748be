package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.service.source.SourcePlan;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The partitions a batch leaves behind are recorded in its offsets entry, so that a replay tells
 * the processor the same set (the per-partition watermark depends on it).
 */
class BacklogExtrasTest {
  @Test
  void thePartitionsWhoseRangeEndsBeforeTheLatestOffsetAreRecordedAndReadBack() {
    TopicPartition a0 = new TopicPartition("a/b", 0);
    TopicPartition a1 = new TopicPartition("a/b", 1);
    TopicPartition c2 = new TopicPartition("c", 2);
    SourcePlan plan = new SourcePlan(
        Map.of(a0, new OffsetRange(0, 10), a1, new OffsetRange(5, 5), c2, new OffsetRange(7, 9)),
        Map.of(a0, 10L, a1, 50L, c2, 100L), List.of());

    Map<String, String> extras = MicroBatchEngine.planExtras(plan);

    assertThat(extras).containsExactly(Map.entry(MicroBatchEngine.BACKLOGGED, "a/b/1,c/2"));
    OffsetsEntry entry = new OffsetsEntry(3, MicroBatchEngine.toCheckpoint(plan.ranges()), OptionalLong.empty(),
        Instant.EPOCH, extras);
    assertThat(MicroBatchEngine.backlogged(entry)).containsExactlyInAnyOrder(a1, c2);
  }

  @Test
  void aCaughtUpBatchRecordsNothing() {
    TopicPartition p = new TopicPartition("t", 0);
    SourcePlan plan = new SourcePlan(Map.of(p, new OffsetRange(0, 10)), Map.of(p, 10L), List.of());
    assertThat(MicroBatchEngine.planExtras(plan)).isEmpty();
    assertThat(MicroBatchEngine.backlogged(new OffsetsEntry(0, Map.of(), OptionalLong.empty(), Instant.EPOCH,
        Map.of()))).isEmpty();
  }
}
