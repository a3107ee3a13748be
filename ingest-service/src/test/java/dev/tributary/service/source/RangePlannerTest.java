package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.config.StartingOffsets;
import dev.tributary.service.source.RangePlanner.NewPartitions;
import dev.tributary.service.source.RangePlanner.Positions;
import dev.tributary.service.source.SourcePlan.DataGap;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The planning rules of the Kafka source, against offsets held in maps: where each partition's
 * range starts and ends, and what happens to a partition that cannot be continued (retention, a
 * topic deleted and re-created, a log cut back, a partition gone).
 */
class RangePlannerTest {
  private static final TopicPartition T0 = new TopicPartition("orders", 0);
  private static final TopicPartition T1 = new TopicPartition("orders", 1);
  private static final TopicPartition T2 = new TopicPartition("orders", 2);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A broker's offsets in maps; counts the topic-id lookups. */
  private static final class Offsets implements PartitionOffsets {
    final Map<TopicPartition, Long> earliest = new HashMap<>();
    final Map<TopicPartition, Long> latest = new HashMap<>();
    final Map<TopicPartition, Long> atTimestamp = new HashMap<>();
    final Map<String, String> ids = new HashMap<>();
    final List<Collection<String>> idLookups = new ArrayList<>();

    Offsets partition(TopicPartition tp, long first, long next) {
      earliest.put(tp, first);
      latest.put(tp, next);
      return this;
    }

    @Override
    public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
      return only(earliest, partitions);
    }

    @Override
    public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
      return only(latest, partitions);
    }

    @Override
    public Map<TopicPartition, Long> firstAtOrAfter(
        Collection<TopicPartition> partitions, Instant instant) {
      return only(atTimestamp, partitions);
    }

    @Override
    public Map<String, String> topicIds(Collection<String> topics) {
      idLookups.add(List.copyOf(topics));
      Map<String, String> out = new HashMap<>(ids);
      out.keySet().retainAll(topics);
      return out;
    }

    private static <K, V> Map<K, V> only(Map<K, V> all, Collection<K> keys) {
      Map<K, V> out = new HashMap<>(all);
      out.keySet().retainAll(keys);
      return out;
    }
  }

  private static KafkaSourceSettings settings(
      boolean failOnDataLoss, StartingOffsets starting, OptionalLong max) {
    return new KafkaSourceSettings(
        "orders-raw",
        "broker-1:9092",
        List.of("orders"),
        Optional.empty(),
        starting,
        max,
        failOnDataLoss,
        Map.of(),
        KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)));
  }

  private static RangePlanner planner(boolean failOnDataLoss, Offsets offsets) {
    return new RangePlanner(
        settings(failOnDataLoss, new StartingOffsets.Earliest(), OptionalLong.empty()), offsets);
  }

  private static RangePlanner.Start after(
      Map<TopicPartition, Long> positions, Map<String, String> ids) {
    return new RangePlanner.Start(
        positions, ids, NewPartitions.AT_EARLIEST, Positions.IN_OFFSETS_LOG);
  }

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  void aPartitionContinuesAtItsPositionUpToTheLatestOffset() {
    Offsets offsets = new Offsets().partition(T0, 0, 50).partition(T1, 10, 30);

    SourcePlan plan =
        planner(true, offsets)
            .plan(List.of(T0, T1), after(Map.of(T0, 20L, T1, 30L), Map.of()), Map.of());

    assertThat(plan.ranges())
        .containsEntry(T0, new OffsetRange(20, 50))
        .containsEntry(T1, new OffsetRange(30, 30));
    assertThat(plan.gaps()).isEmpty();
  }

  @Test
  void offsetsDeletedByRetentionStopThePipelineOrAreSkippedAndRecorded() throws Exception {
    Offsets offsets = new Offsets().partition(T0, 6, 10);

    assertThatThrownBy(
            () ->
                planner(true, offsets).plan(List.of(T0), after(Map.of(T0, 2L), Map.of()), Map.of()))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining("Pipeline orders-raw lost data on orders/0")
        .hasMessageContaining("offsets [2, 6) were deleted by retention")
        .hasMessageContaining("fail-on-data-loss: false");

    SourcePlan plan =
        planner(false, offsets).plan(List.of(T0), after(Map.of(T0, 2L), Map.of()), Map.of());
    assertThat(plan.ranges()).containsEntry(T0, new OffsetRange(6, 10));
    assertThat(plan.gaps()).containsExactly(new DataGap.Deleted(T0, 2, 6));
    assertThat(json(DataGap.toJson(plan.gaps())))
        .isEqualTo(
            json(
                "[{\"topic\":\"orders\",\"partition\":0,\"cause\":\"retention\",\"from\":2,\"to\":6}]"));
  }

  @Test
  void aPartitionWhoseOffsetsWentBelowThePositionWasReCreatedAndIsReadFromItsStart()
      throws Exception {
    // the case: 1115 read from the old topic, the new one holds 3000 records from offset 0
    Offsets offsets = new Offsets().partition(T0, 0, 1000);

    SourcePlan plan =
        planner(false, offsets).plan(List.of(T0), after(Map.of(T0, 1115L), Map.of()), Map.of());

    assertThat(plan.ranges()).containsEntry(T0, new OffsetRange(0, 1000));
    assertThat(plan.gaps())
        .containsExactly(new DataGap.Reset(T0, 1115, 0, 1000, Optional.empty(), Optional.empty()));
    assertThat(json(plan.gaps().get(0).toJson()))
        .isEqualTo(
            json(
                "{\"topic\":\"orders\",\"partition\":0,\"cause\":\"partition-reset\",\"from\":1115,"
                    + "\"earliest\":0,\"latest\":1000}"));
  }

  @Test
  void withFailOnDataLossAResetStopsWithAdviceThatKeepsTheNewRecords() {
    Offsets offsets = new Offsets().partition(T0, 0, 1000);

    assertThatThrownBy(
            () ->
                planner(true, offsets)
                    .plan(List.of(T0), after(Map.of(T0, 1115L), Map.of()), Map.of()))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining("Pipeline orders-raw: orders/0 was deleted and re-created")
        .hasMessageContaining("the checkpoint's position is offset 1115")
        .hasMessageContaining("now holds offsets [0, 1000)")
        .hasMessageContaining("The new partition's 1000 records are unread")
        .hasMessageContaining("set source.kafka.fail-on-data-loss: false and run again")
        .hasMessageContaining("reads orders/0 from offset 0")
        .hasMessageNotContaining("continue from offset 1000");
  }

  @Test
  void aNewTopicIdMeansReCreatedEvenWhenTheNewTopicAlreadyHoldsMoreRecords() throws Exception {
    // offsets alone cannot tell: 3000 >= 1115
    Offsets offsets = new Offsets().partition(T0, 0, 3000);
    offsets.ids.put("orders", "new-id");

    SourcePlan plan =
        planner(false, offsets)
            .plan(List.of(T0), after(Map.of(T0, 1115L), Map.of("orders", "old-id")), Map.of());

    assertThat(plan.ranges()).containsEntry(T0, new OffsetRange(0, 3000));
    assertThat(json(plan.gaps().get(0).toJson()))
        .isEqualTo(
            json(
                "{\"topic\":\"orders\",\"partition\":0,\"cause\":\"partition-reset\",\"from\":1115,"
                    + "\"earliest\":0,\"latest\":3000,\"previousTopicId\":\"old-id\","
                    + "\"topicId\":\"new-id\"}"));
    assertThat(plan.topicIds()).containsExactly(Map.entry("orders", "new-id"));

    assertThatThrownBy(
            () ->
                planner(true, offsets)
                    .plan(
                        List.of(T0),
                        after(Map.of(T0, 1115L), Map.of("orders", "old-id")),
                        Map.of()))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining("topic orders has a new id (old-id, now new-id)");
  }

  @Test
  void offsetsBelowThePositionUnderTheSameTopicIdAreALogCutBackAndContinueAtItsEnd()
      throws Exception {
    Offsets offsets = new Offsets().partition(T0, 0, 500);
    offsets.ids.put("orders", "same");

    SourcePlan plan =
        planner(false, offsets)
            .plan(List.of(T0), after(Map.of(T0, 1115L), Map.of("orders", "same")), Map.of());

    // no record read twice: the records written from now on reuse offsets 500..1114
    assertThat(plan.ranges()).containsEntry(T0, new OffsetRange(500, 500));
    assertThat(json(plan.gaps().get(0).toJson()))
        .isEqualTo(
            json(
                "{\"topic\":\"orders\",\"partition\":0,\"cause\":\"log-truncated\",\"from\":500,"
                    + "\"to\":1115}"));
    assertThatThrownBy(
            () ->
                planner(true, offsets)
                    .plan(
                        List.of(T0), after(Map.of(T0, 1115L), Map.of("orders", "same")), Map.of()))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining("orders/0 ends at offset 500")
        .hasMessageContaining("already read up to offset 1115")
        .hasMessageContaining("continues at offset 500");
  }

  @Test
  void aPartitionThatIsGoneStopsThePipelineOrIsLeftOutAndRecorded() throws Exception {
    // re-created with one partition instead of two
    Offsets offsets = new Offsets().partition(T0, 0, 40);

    assertThatThrownBy(
            () ->
                planner(true, offsets)
                    .plan(List.of(T0), after(Map.of(T0, 40L, T1, 50L), Map.of()), Map.of()))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining("Pipeline orders-raw: orders/1 no longer exists on broker-1:9092")
        .hasMessageContaining("the checkpoint's position on it is offset 50")
        .hasMessageContaining("fail-on-data-loss: false");

    SourcePlan plan =
        planner(false, offsets)
            .plan(List.of(T0), after(Map.of(T0, 40L, T1, 50L), Map.of()), Map.of());
    assertThat(plan.ranges()).containsOnlyKeys(T0);
    assertThat(json(DataGap.toJson(plan.gaps())))
        .isEqualTo(
            json(
                "[{\"topic\":\"orders\",\"partition\":1,\"cause\":\"partition-gone\",\"from\":50}]"));
  }

  @Test
  void aTopicReCreatedWithMorePartitionsIsReadFromTheStartOfEach() {
    Offsets offsets = new Offsets().partition(T0, 0, 70).partition(T1, 0, 80).partition(T2, 0, 90);
    offsets.ids.put("orders", "b");

    SourcePlan plan =
        planner(false, offsets)
            .plan(
                List.of(T0, T1, T2),
                after(Map.of(T0, 40L, T1, 50L), Map.of("orders", "a")),
                Map.of());

    assertThat(plan.ranges())
        .containsEntry(T0, new OffsetRange(0, 70))
        .containsEntry(T1, new OffsetRange(0, 80))
        .containsEntry(T2, new OffsetRange(0, 90));
    assertThat(plan.gaps())
        .extracting(DataGap::partition, DataGap::cause, DataGap::from)
        .containsExactly(tuple(T0, "partition-reset", 40L), tuple(T1, "partition-reset", 50L));
  }

  @Test
  void positionsKeptInTablesOrTheGroupNeverMoveBackWhateverFailOnDataLossSays() {
    Offsets offsets = new Offsets().partition(T0, 0, 1000).partition(T1, 7, 9);
    offsets.ids.put("orders", "new-id");
    RangePlanner.Start group =
        new RangePlanner.Start(
            Map.of(T0, 1115L, T1, 2L),
            Map.of(),
            NewPartitions.AT_STARTING_OFFSETS,
            Positions.IN_TABLES_OR_GROUP);

    assertThatThrownBy(() -> planner(false, offsets).plan(List.of(T0, T1), group, Map.of()))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining("Pipeline orders-raw: orders/0 was deleted and re-created")
        .hasMessageContaining("consumer group tributary-orders-raw")
        .hasMessageContaining("cannot move back")
        .hasMessageContaining("whatever source.kafka.fail-on-data-loss says");
    // no topic ids in group mode: nothing records them
    assertThat(offsets.idLookups).isEmpty();

    // retention moves a position forward, which a table position can
    SourcePlan plan =
        planner(false, offsets)
            .plan(
                List.of(T1),
                new RangePlanner.Start(
                    Map.of(T1, 2L),
                    Map.of(),
                    NewPartitions.AT_STARTING_OFFSETS,
                    Positions.IN_TABLES_OR_GROUP),
                Map.of());
    assertThat(plan.ranges()).containsEntry(T1, new OffsetRange(7, 9));
    assertThat(plan.gaps()).containsExactly(new DataGap.Deleted(T1, 2, 7));
  }

  @Test
  void theTopicIdsAreLookedUpAfterTheOffsetsAndRecordedWithThePlan() {
    Offsets offsets = new Offsets().partition(T0, 0, 5).partition(T1, 0, 5);
    offsets.ids.put("orders", "id-1");

    SourcePlan plan =
        planner(true, offsets).plan(List.of(T0, T1), after(Map.of(), Map.of()), Map.of());

    assertThat(offsets.idLookups).containsExactly(List.of("orders"));
    assertThat(plan.topicIds()).containsExactly(Map.entry("orders", "id-1"));
  }

  @Test
  void withoutTopicIdsOnEitherSideOnlyOffsetsTellAReset() {
    Offsets offsets = new Offsets().partition(T0, 0, 3000);

    // the recorded id is unknown (an older checkpoint): 3000 >= 1115 continues, as before
    SourcePlan plan =
        planner(true, offsets).plan(List.of(T0), after(Map.of(T0, 1115L), Map.of()), Map.of());
    assertThat(plan.ranges()).containsEntry(T0, new OffsetRange(1115, 3000));

    // the broker tells no id now: the same
    SourcePlan noIdNow =
        planner(true, offsets)
            .plan(List.of(T0), after(Map.of(T0, 1115L), Map.of("orders", "old")), Map.of());
    assertThat(noIdNow.ranges()).containsEntry(T0, new OffsetRange(1115, 3000));
  }

  @Test
  void newPartitionsStartAtTheStartingOffsetsOnTheFirstBatchAndAtTheirEarliestLater() {
    Offsets offsets = new Offsets().partition(T0, 3, 10).partition(T1, 4, 20);
    offsets.atTimestamp.put(T0, 7L); // T1 has no record at or after the instant: latest

    RangePlanner latest =
        new RangePlanner(
            settings(true, new StartingOffsets.Latest(), OptionalLong.empty()), offsets);
    RangePlanner atTime =
        new RangePlanner(
            settings(
                true,
                new StartingOffsets.AtTimestamp(Instant.parse("2026-01-01T00:00:00Z")),
                OptionalLong.empty()),
            offsets);
    RangePlanner.Start first =
        new RangePlanner.Start(
            Map.of(), Map.of(), NewPartitions.AT_STARTING_OFFSETS, Positions.IN_OFFSETS_LOG);

    assertThat(latest.plan(List.of(T0, T1), first, Map.of()).ranges())
        .containsEntry(T0, new OffsetRange(10, 10))
        .containsEntry(T1, new OffsetRange(20, 20));
    assertThat(atTime.plan(List.of(T0, T1), first, Map.of()).ranges())
        .containsEntry(T0, new OffsetRange(7, 10))
        .containsEntry(T1, new OffsetRange(20, 20));
    assertThat(latest.plan(List.of(T0, T1), after(Map.of(T0, 5L), Map.of()), Map.of()).ranges())
        .containsEntry(T0, new OffsetRange(5, 10))
        .containsEntry(T1, new OffsetRange(4, 20));
  }

  @Test
  void theCeilingAndTheRateLimitBoundTheRanges() {
    Offsets offsets = new Offsets().partition(T0, 0, 300).partition(T1, 0, 100);
    RangePlanner limited =
        new RangePlanner(
            settings(true, new StartingOffsets.Earliest(), OptionalLong.of(100)), offsets);

    SourcePlan plan =
        limited.plan(List.of(T0, T1), after(Map.of(T0, 0L, T1, 0L), Map.of()), Map.of());
    assertThat(plan.ranges())
        .containsEntry(T0, new OffsetRange(0, 75))
        .containsEntry(T1, new OffsetRange(0, 25));

    SourcePlan capped =
        planner(true, offsets)
            .plan(
                List.of(T0, T1),
                after(Map.of(T0, 0L, T1, 60L), Map.of()),
                Map.of(T0, 40L, T1, 50L));
    assertThat(capped.ranges())
        .containsEntry(T0, new OffsetRange(0, 40))
        .containsEntry(T1, new OffsetRange(60, 60)); // a ceiling below the start reads nothing
  }
}
