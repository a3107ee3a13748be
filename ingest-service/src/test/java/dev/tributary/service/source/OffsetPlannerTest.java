package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetPlannerTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final TopicPartition P2 = new TopicPartition("t", 2);

  @Test
  void withoutLimitEveryPartitionReadsToLatest() {
    var ends =
        OffsetPlanner.ends(Map.of(P0, 5L, P1, 0L), Map.of(P0, 10L, P1, 7L), OptionalLong.empty());
    assertThat(ends).containsEntry(P0, 10L).containsEntry(P1, 7L);
  }

  @Test
  void limitIsSplitInProportionToBacklog() {
    var starts = new LinkedHashMap<TopicPartition, Long>();
    starts.put(P0, 0L);
    starts.put(P1, 0L);
    starts.put(P2, 100L);
    var ends =
        OffsetPlanner.ends(starts, Map.of(P0, 300L, P1, 100L, P2, 100L), OptionalLong.of(100));
    assertThat(ends).containsEntry(P0, 75L).containsEntry(P1, 25L).containsEntry(P2, 100L);
  }

  @Test
  void smallBacklogStillAdvances() {
    var ends =
        OffsetPlanner.ends(
            Map.of(P0, 0L, P1, 0L), Map.of(P0, 1_000_000L, P1, 1L), OptionalLong.of(10));
    assertThat(ends.get(P1)).isEqualTo(1L);
    assertThat(ends.get(P0)).isEqualTo(9L);
  }

  @Test
  void randomPlansRespectBoundsAndUseTheWholeLimit() {
    Random random = new Random(42);
    for (int round = 0; round < 1000; round++) {
      Map<TopicPartition, Long> starts = new LinkedHashMap<>();
      Map<TopicPartition, Long> latest = new LinkedHashMap<>();
      int partitions = 1 + random.nextInt(8);
      long backlog = 0;
      for (int p = 0; p < partitions; p++) {
        TopicPartition tp = new TopicPartition("t", p);
        long s = random.nextInt(1000);
        long n = random.nextInt(3) == 0 ? 0 : random.nextInt(5000);
        starts.put(tp, s);
        latest.put(tp, s + n);
        backlog += n;
      }
      long limit = 1 + random.nextInt(10_000);
      var ends = OffsetPlanner.ends(starts, latest, OptionalLong.of(limit));
      long planned = 0;
      for (var tp : starts.keySet()) {
        assertThat(ends.get(tp)).isBetween(starts.get(tp), latest.get(tp));
        planned += ends.get(tp) - starts.get(tp);
        if (latest.get(tp) > starts.get(tp)) {
          assertThat(ends.get(tp))
              .as("a partition with a backlog advances")
              .isGreaterThan(starts.get(tp));
        }
      }
      long nonEmpty =
          starts.keySet().stream().filter(tp -> latest.get(tp) > starts.get(tp)).count();
      assertThat(planned)
          .isEqualTo(Math.min(backlog, Math.max(limit, Math.min(backlog, nonEmpty))));
      // deterministic
      assertThat(OffsetPlanner.ends(starts, latest, OptionalLong.of(limit))).isEqualTo(ends);
    }
  }
}
