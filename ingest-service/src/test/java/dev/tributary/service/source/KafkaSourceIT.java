package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.config.StartingOffsets;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.testing.KafkaTestBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaSourceIT {
  private static final RangePlanner.NewPartitions FIRST =
      RangePlanner.NewPartitions.AT_STARTING_OFFSETS;
  private static final RangePlanner.NewPartitions LATER = RangePlanner.NewPartitions.AT_EARLIEST;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();

  private KafkaSourceSettings settings(String topic, OptionalLong max, boolean failOnDataLoss) {
    return new KafkaSourceSettings(
        "p1",
        broker.bootstrapServers(),
        List.of(topic),
        Optional.empty(),
        new StartingOffsets.Earliest(),
        max,
        failOnDataLoss,
        Map.of(),
        KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)));
  }

  private static List<String> values(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
  }

  @Test
  void readsExactlyThePlannedRangesAndReplaysThemIdentically() throws Exception {
    String topic = broker.createTopic("exact", 2);
    broker.send(topic, 0, values("a", 30));
    broker.send(topic, 1, values("b", 10));
    try (KafkaSource source = new KafkaSource(settings(topic, OptionalLong.of(20), true))) {
      SourcePlan first = source.plan(Map.of(), Map.of(), FIRST, Map.of());
      assertThat(first.offsetCount()).isEqualTo(20);
      assertThat(first.ranges().get(new TopicPartition(topic, 0)))
          .isEqualTo(new OffsetRange(0, 15));
      assertThat(first.ranges().get(new TopicPartition(topic, 1))).isEqualTo(new OffsetRange(0, 5));
      List<String> read = new ArrayList<>();
      source.read(first.ranges(), r -> read.add(new String(r.value(), StandardCharsets.UTF_8)));
      List<String> replay = new ArrayList<>();
      source.read(first.ranges(), r -> replay.add(new String(r.value(), StandardCharsets.UTF_8)));
      assertThat(read).hasSize(20).containsAll(values("a", 15)).containsAll(values("b", 5));
      assertThat(replay).containsExactlyInAnyOrderElementsOf(read);

      Map<TopicPartition, Long> ends =
          Map.of(new TopicPartition(topic, 0), 15L, new TopicPartition(topic, 1), 5L);
      SourcePlan second = source.plan(ends, Map.of(), LATER, Map.of());
      assertThat(second.ranges().get(new TopicPartition(topic, 0)))
          .isEqualTo(new OffsetRange(15, 30));
      assertThat(second.ranges().get(new TopicPartition(topic, 1)))
          .isEqualTo(new OffsetRange(5, 10));
      assertThat(second.lagAfter()).isZero();
    }
  }

  @Test
  void readsInPartitionOrderOnePartitionAfterTheOther() throws Exception {
    String topic = broker.createTopic("ordered", 3);
    broker.send(topic, 2, values("c", 4000));
    broker.send(topic, 0, values("a", 3000));
    broker.send(topic, 1, values("b", 2000));
    try (KafkaSource source = new KafkaSource(settings(topic, OptionalLong.empty(), true))) {
      SourcePlan plan = source.plan(Map.of(), Map.of(), FIRST, Map.of());
      Map<TopicPartition, OffsetRange> ranges = new HashMap<>(plan.ranges());
      ranges.put(new TopicPartition(topic, 0), new OffsetRange(100, 3000));
      for (int attempt = 0; attempt < 2; attempt++) {
        List<String> read = new ArrayList<>();
        source.readInPartitionOrder(ranges, r -> read.add(r.partition() + ":" + r.offset()));

        List<String> expected = new ArrayList<>();
        IntStream.range(100, 3000).forEach(o -> expected.add("0:" + o));
        IntStream.range(0, 2000).forEach(o -> expected.add("1:" + o));
        IntStream.range(0, 4000).forEach(o -> expected.add("2:" + o));
        assertThat(read).containsExactlyElementsOf(expected);
      }
    }
  }

  @Test
  void deletedOffsetsFailWithAMessageNamingTheGap() {
    String topic = broker.createTopic("loss", 1);
    broker.send(topic, 0, values("x", 10));
    broker.deleteRecordsBefore(topic, 0, 6);
    try (KafkaSource source = new KafkaSource(settings(topic, OptionalLong.empty(), true))) {
      assertThatThrownBy(
              () ->
                  source.plan(Map.of(new TopicPartition(topic, 0), 2L), Map.of(), LATER, Map.of()))
          .isInstanceOf(DataLossException.class)
          .hasMessageContaining("p1")
          .hasMessageContaining(topic + "/0")
          .hasMessageContaining("offsets [2, 6)")
          .hasMessageContaining("fail-on-data-loss: false");
    }
  }

  @Test
  void deletedOffsetsAreSkippedAndRecordedWhenAllowed() throws Exception {
    String topic = broker.createTopic("skip", 1);
    broker.send(topic, 0, values("x", 10));
    broker.deleteRecordsBefore(topic, 0, 6);
    try (KafkaSource source = new KafkaSource(settings(topic, OptionalLong.empty(), false))) {
      SourcePlan plan =
          source.plan(Map.of(new TopicPartition(topic, 0), 2L), Map.of(), LATER, Map.of());
      assertThat(plan.gaps())
          .containsExactly(new SourcePlan.DataGap.Deleted(new TopicPartition(topic, 0), 2, 6));
      List<String> read = new ArrayList<>();
      source.read(plan.ranges(), r -> read.add(new String(r.value(), StandardCharsets.UTF_8)));
      assertThat(read).containsExactly("x6", "x7", "x8", "x9");
    }
  }

  @Test
  void availableNowCeilingAndLatestStart() throws Exception {
    String topic = broker.createTopic("ceiling", 1);
    broker.send(topic, 0, values("x", 10));
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaSource source = new KafkaSource(settings(topic, OptionalLong.empty(), true))) {
      SourcePlan plan = source.plan(Map.of(), Map.of(), FIRST, Map.of(tp, 4L));
      assertThat(plan.ranges().get(tp)).isEqualTo(new OffsetRange(0, 4));
    }
    var latest =
        new KafkaSourceSettings(
            "p2",
            broker.bootstrapServers(),
            List.of(topic),
            Optional.empty(),
            new StartingOffsets.Latest(),
            OptionalLong.empty(),
            true,
            Map.of(),
            KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)));
    try (KafkaSource source = new KafkaSource(latest)) {
      assertThat(source.plan(Map.of(), Map.of(), FIRST, Map.of()).ranges().get(tp))
          .isEqualTo(new OffsetRange(10, 10));
    }
  }

  @Test
  void unknownTopicIsAClearError() {
    try (KafkaSource source =
        new KafkaSource(settings("no-such-topic-xyz", OptionalLong.empty(), true))) {
      assertThatThrownBy(() -> source.plan(Map.of(), Map.of(), FIRST, Map.of()))
          .hasMessageContaining("topic 'no-such-topic-xyz' does not exist")
          .hasMessageContaining("source.kafka.topics");
    }
  }

  @Test
  void topicPatternDiscoversNewTopicsAndPartitionsAtEveryPlan() throws Exception {
    String prefix = "pat" + System.nanoTime();
    String first = broker.createTopic(prefix + "-a", 1);
    broker.send(first, 0, values("a", 3));
    var settings =
        new KafkaSourceSettings(
            "p3",
            broker.bootstrapServers(),
            List.of(),
            Optional.of(Pattern.compile(prefix + "-.*")),
            new StartingOffsets.Latest(),
            OptionalLong.empty(),
            true,
            Map.of(),
            KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)));
    try (KafkaSource source = new KafkaSource(settings)) {
      SourcePlan plan = source.plan(Map.of(), Map.of(), FIRST, Map.of());
      assertThat(plan.ranges()).containsOnlyKeys(new TopicPartition(first, 0));
      assertThat(plan.ranges().get(new TopicPartition(first, 0))).isEqualTo(new OffsetRange(3, 3));

      String second = broker.createTopic(prefix + "-b", 2);
      broker.send(second, 1, values("b", 4));
      Map<TopicPartition, Long> ends = Map.of(new TopicPartition(first, 0), 3L);
      SourcePlan next = source.plan(ends, Map.of(), LATER, Map.of());
      // a topic that appears later starts at its earliest offset, whatever starting-offsets says
      assertThat(next.ranges())
          .containsEntry(new TopicPartition(second, 1), new OffsetRange(0, 4))
          .containsEntry(new TopicPartition(second, 0), new OffsetRange(0, 0));
    }
  }

  @Test
  void processedOffsetsAreVisibleInTheConsumerGroupForLagTools() throws Exception {
    String topic = broker.createTopic("group", 1);
    broker.send(topic, 0, values("g", 5));
    try (KafkaSource source = new KafkaSource(settings(topic, OptionalLong.empty(), true))) {
      source.commitToGroup(Map.of(new TopicPartition(topic, 0), 5L));
    }
    try (var admin = broker.admin()) {
      var offsets =
          admin.listConsumerGroupOffsets("tributary-p1").partitionsToOffsetAndMetadata().get();
      assertThat(offsets.get(new TopicPartition(topic, 0)).offset()).isEqualTo(5L);
    }
  }

  @Test
  void aReplayedRangeReportsThePartitionsLatestOffsetsAtTheReplay() throws Exception {
    String topic = broker.createTopic("replay-lag", 1);
    broker.send(topic, 0, values("a", 30));
    try (KafkaSource source = new KafkaSource(settings(topic, OptionalLong.of(10), true))) {
      PlannedBatch planned = source.plan(BatchRange.startingAt(Map.of()), true);
      assertThat(planned.progress())
          .singleElement()
          .satisfies(p -> assertThat(p.lag()).isEqualTo(20));
      broker.send(topic, 0, values("b", 5)); // after the plan, before the replay

      PlannedBatch replayed = source.replayed(planned.range());
      assertThat(replayed.range()).isEqualTo(planned.range());
      assertThat(replayed.hasInput()).isTrue();
      assertThat(replayed.progress())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.startOffset()).isZero();
                assertThat(p.endOffset()).isEqualTo(10);
                assertThat(p.latestOffset()).isEqualTo(35);
                assertThat(p.lag()).isEqualTo(25);
              });
    }
  }
}
