package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.RecoveryPlan;
import dev.tributary.checkpoint.SourcePartition;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The keyed-by rule of the agreed watermark: the maximum of what the partitions recorded, held back
 * by every partition with records still to read, none while such a partition has recorded none.
 */
class KeyedAgreementTest {
  private static final String TOPIC = "clicks";

  /** Partition {@code n} committed a batch that read to {@code end} and recorded {@code next}. */
  private static RecoveryPlan committed(int n, long end, long next) {
    OffsetsEntry entry =
        new OffsetsEntry(
            4,
            Map.of(new SourcePartition(TOPIC, n), new OffsetRange(0, end)),
            OptionalLong.of(1),
            OptionalLong.of(1),
            Instant.EPOCH,
            Map.of());
    return new RecoveryPlan(
        RecoveryPlan.Action.RESUME,
        Optional.of(entry),
        Optional.of(new CommitEntry(4, OptionalLong.of(next), Instant.EPOCH, Map.of())));
  }

  private static final RecoveryPlan FRESH =
      new RecoveryPlan(RecoveryPlan.Action.NONE, Optional.empty(), Optional.empty());

  @Test
  void everyPartitionReadToItsEndAgreesOnTheMaximumAsOneInstanceDoes() {
    List<RecoveryPlan> plans = List.of(committed(0, 10, 500), committed(1, 20, 900));
    assertThat(AgreedWatermark.keyedRule(plans, Map.of(0, 10L, 1, 20L), TOPIC)).hasValue(900);
  }

  @Test
  void aPartitionWithRecordsStillToReadHoldsTheWatermarkAtItsOwn() {
    List<RecoveryPlan> plans =
        List.of(committed(0, 10, 500), committed(1, 20, 900), committed(2, 5, 700));
    // partition 0 is behind (its end is 15): its rows may be older than the others' maximum
    assertThat(AgreedWatermark.keyedRule(plans, Map.of(0, 15L, 1, 20L, 2, 5L), TOPIC))
        .hasValue(500);
  }

  @Test
  void noneWhileABehindPartitionHasRecordedNothing() {
    List<RecoveryPlan> plans = List.of(committed(0, 10, 500), FRESH);
    assertThat(AgreedWatermark.keyedRule(plans, Map.of(0, 10L, 1, 3L), TOPIC)).isEmpty();
  }
}
