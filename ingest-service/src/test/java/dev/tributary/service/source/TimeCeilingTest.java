package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TimeCeilingTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final Instant T = Instant.parse("2026-11-01T03:10:00Z");

  /** Partitions of records with the given timestamps (millis), from offset {@code start} on. */
  private record Log(Map<TopicPartition, Long> start, Map<TopicPartition, List<Long>> times)
      implements PartitionOffsets {
    @Override
    public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
      return new HashMap<>(start);
    }

    @Override
    public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
      Map<TopicPartition, Long> out = new HashMap<>();
      times.forEach((tp, ts) -> out.put(tp, start.get(tp) + ts.size()));
      return out;
    }

    @Override
    public Map<TopicPartition, Long> firstAtOrAfter(
        Collection<TopicPartition> partitions, Instant instant) {
      Map<TopicPartition, Long> out = new HashMap<>();
      times.forEach(
          (tp, ts) -> {
            for (int i = 0; i < ts.size(); i++) {
              if (ts.get(i) >= instant.toEpochMilli()) {
                out.put(tp, start.get(tp) + i);
                return;
              }
            }
          });
      return out;
    }

    @Override
    public Map<String, String> topicIds(Collection<String> topics) {
      return Map.of();
    }
  }

  private static long at(String instant) {
    return Instant.parse(instant).toEpochMilli();
  }

  @Test
  void endsBeforeTheFirstRecordAtTheTimeOrAtTheLatestOffsetWhereNoneHasReachedIt() {
    Log log =
        new Log(
            Map.of(P0, 0L, P1, 0L),
            Map.of(
                P0,
                List.of(
                    at("2026-11-01T03:00:00Z"),
                    at("2026-11-01T03:10:00Z"),
                    at("2026-11-01T04:00:00Z")),
                P1,
                List.of(at("2026-11-01T01:00:00Z"), at("2026-11-01T02:00:00Z"))));
    assertThat(TimeCeiling.at(log, List.of(P0, P1), T)).isEqualTo(Map.of(P0, 1L, P1, 2L));
  }

  @Test
  void aPartitionLostToRetentionFromTheStartOnIsAGap() {
    Log log =
        new Log(
            // P0 lost offsets 0-9, and its oldest retained record is after the start: a gap;
            // P1 lost offsets 0-4 too, but still holds a record older than the start
            Map.of(P0, 10L, P1, 5L),
            Map.of(
                P0, List.of(at("2026-11-01T01:00:00Z")),
                P1, List.of(at("2026-10-31T23:00:00Z"), at("2026-11-01T01:00:00Z"))));
    Instant start = Instant.parse("2026-11-01T00:20:00Z");
    assertThat(TimeCeiling.retentionGaps(log, List.of(P0, P1), start)).isEqualTo(Map.of(P0, 10L));
    // never lost anything: no gap even when every record is after the start
    Log whole = new Log(Map.of(P0, 0L), Map.of(P0, List.of(at("2026-11-01T01:00:00Z"))));
    assertThat(TimeCeiling.retentionGaps(whole, List.of(P0), start)).isEmpty();
  }
}
