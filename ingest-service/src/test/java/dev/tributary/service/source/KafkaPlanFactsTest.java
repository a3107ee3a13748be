package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.service.engine.BatchRange;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * What the Kafka source records of a plan besides its offsets: the partitions it leaves behind, the
 * gaps.
 */
class KafkaPlanFactsTest {
  @Test
  void thePartitionsWhoseRangeEndsBeforeTheLatestOffsetAreBacklogged() {
    TopicPartition a0 = new TopicPartition("a/b", 0);
    TopicPartition a1 = new TopicPartition("a/b", 1);
    TopicPartition c2 = new TopicPartition("c", 2);
    SourcePlan plan =
        new SourcePlan(
            Map.of(
                a0, new OffsetRange(0, 10), a1, new OffsetRange(5, 5), c2, new OffsetRange(7, 9)),
            Map.of(a0, 10L, a1, 50L, c2, 100L),
            List.of());

    assertThat(KafkaRanges.facts(plan))
        .containsExactly(Map.entry(BatchRange.BACKLOGGED, "a/b/1,c/2"));
  }

  @Test
  void aCaughtUpPlanRecordsNothingAndAGapIsRecorded() {
    TopicPartition p = new TopicPartition("t", 0);
    assertThat(
            KafkaRanges.facts(
                new SourcePlan(Map.of(p, new OffsetRange(0, 10)), Map.of(p, 10L), List.of())))
        .isEmpty();
    SourcePlan withGap =
        new SourcePlan(
            Map.of(p, new OffsetRange(6, 10)),
            Map.of(p, 10L),
            List.of(new SourcePlan.DataGap.Deleted(p, 2, 6)));
    assertThat(KafkaRanges.facts(withGap))
        .containsExactly(
            Map.entry(
                KafkaSource.DATA_LOSS,
                "[{\"topic\":\"t\",\"partition\":0,\"cause\":\"retention\",\"from\":2,\"to\":6}]"));
  }

  @Test
  void theTopicIdsAreRecordedAsAJsonObjectByTopic() {
    TopicPartition p = new TopicPartition("t", 0);
    SourcePlan plan =
        new SourcePlan(
            Map.of(p, new OffsetRange(0, 10)), Map.of(p, 10L), List.of(), Map.of("t", "AbC"));
    assertThat(KafkaRanges.facts(plan))
        .containsExactly(Map.entry(KafkaSource.TOPIC_IDS, "{\"t\":\"AbC\"}"));
  }
}
