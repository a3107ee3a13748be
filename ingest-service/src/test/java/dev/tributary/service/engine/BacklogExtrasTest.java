package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The partitions a batch leaves behind are recorded in its offsets entry, so that a replay tells
 * the processor the same set (the per-partition watermark depends on it). The Kafka side, which
 * partitions a plan leaves behind, is {@code KafkaPlanFactsTest}.
 */
class BacklogExtrasTest {
  @Test
  void theBackloggedPartitionsAreWrittenSortedAndReadBackFromTheOffsetsEntry() {
    SourcePartition a1 = new SourcePartition("a/b", 1);
    SourcePartition c2 = new SourcePartition("c", 2);
    String value = BatchRange.backloggedValue(Set.of(c2, a1));
    assertThat(value).isEqualTo("a/b/1,c/2");

    OffsetsEntry entry =
        new OffsetsEntry(
            3,
            Map.of(a1, new OffsetRange(5, 5)),
            OptionalLong.empty(),
            Instant.EPOCH,
            Map.of(BatchRange.BACKLOGGED, value, "join.0.version", "4"));
    assertThat(BatchRange.of(entry).backlogged()).containsExactlyInAnyOrder(a1, c2);
  }

  @Test
  void anEntryWithoutTheFactHasNoBackloggedPartition() {
    assertThat(
            BatchRange.of(
                    new OffsetsEntry(0, Map.of(), OptionalLong.empty(), Instant.EPOCH, Map.of()))
                .backlogged())
        .isEmpty();
  }

  @Test
  void aNewCheckpointStartsWithEmptyRangesAtThePositionsItContinuesAfter() {
    SourcePartition p = new SourcePartition("t", 0);
    BatchRange start = BatchRange.startingAt(Map.of(p, 42L));
    assertThat(start.offsets()).containsExactly(Map.entry(p, new OffsetRange(42, 42)));
    assertThat(start.endOffsets()).containsExactly(Map.entry(p, 42L));
  }
}
