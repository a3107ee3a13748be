package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.table.stream.SourceRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link CompositeSource}: two inputs planned with their own limits into one range whose main part
 * reads as a single-input entry, the second input's partitions and facts namespaced {@code
 * stream.0}, read main first then second (announced, with the crash point between), and the same
 * range read again exactly.
 */
class CompositeSourceTest {
  private final InMemorySource.Log clicks = new InMemorySource.Log("clicks", 2);
  private final InMemorySource.Log purchases = new InMemorySource.Log("purchases", 1);

  private CompositeSource source(long mainMax, long secondMax) {
    return new CompositeSource(
        InMemorySource.of(clicks, mainMax), InMemorySource.of(purchases, secondMax));
  }

  private static SourcePartition p(String topic, int partition) {
    return new SourcePartition(topic, partition);
  }

  @Test
  void plansEachInputWithItsOwnLimitIntoOneRange() throws Exception {
    append(clicks, 0, 5);
    append(clicks, 1, 5);
    append(purchases, 0, 5);
    PlannedBatch plan = source(2, 3).plan(BatchRange.startingAt(Map.of()), true);

    assertThat(plan.hasInput()).isTrue();
    assertThat(plan.range().offsets())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                p("clicks", 0), new OffsetRange(0, 2),
                p("clicks", 1), new OffsetRange(0, 2),
                p("stream.0:purchases", 0), new OffsetRange(0, 3)));
    assertThat(plan.progress())
        .extracting(BatchProgress.PartitionProgress::topic)
        .containsExactly("clicks", "clicks", "stream.0:purchases");

    // the next plan continues each input after its own part of the previous range
    PlannedBatch next = source(2, 3).plan(plan.range(), false);
    assertThat(next.range().offsets())
        .containsEntry(p("clicks", 0), new OffsetRange(2, 4))
        .containsEntry(p("stream.0:purchases", 0), new OffsetRange(3, 5));
  }

  @Test
  void aBatchExistsWhenEitherInputHasInput() throws Exception {
    CompositeSource source = source(10, 10);
    assertThat(source.plan(BatchRange.startingAt(Map.of()), true).hasInput()).isFalse();

    append(purchases, 0, 1);
    PlannedBatch onlySecond = source.plan(BatchRange.startingAt(Map.of()), true);
    assertThat(onlySecond.hasInput()).isTrue();
    assertThat(onlySecond.range().offsets().get(p("clicks", 0))).isEqualTo(new OffsetRange(0, 0));

    PlannedBatch after = source.plan(onlySecond.range(), false);
    assertThat(after.hasInput()).isFalse();
    append(clicks, 1, 1);
    assertThat(source.plan(onlySecond.range(), false).hasInput()).isTrue();
  }

  @Test
  void availableNowBoundsBothInputs() throws Exception {
    append(clicks, 0, 3);
    append(purchases, 0, 3);
    CompositeSource source = source(100, 100);
    source.boundToAvailableNow();
    append(clicks, 0, 2);
    append(purchases, 0, 2);

    PlannedBatch plan = source.plan(BatchRange.startingAt(Map.of()), true);
    assertThat(plan.range().offsets().get(p("clicks", 0))).isEqualTo(new OffsetRange(0, 3));
    assertThat(plan.range().offsets().get(p("stream.0:purchases", 0)))
        .isEqualTo(new OffsetRange(0, 3));
    assertThat(source.plan(plan.range(), false).hasInput()).isFalse();
  }

  @Test
  void readsTheMainRangeThenTheSecondAnnouncedWithTheCrashPointBetweenAndAgainOnReplay()
      throws Exception {
    append(clicks, 0, 2);
    append(clicks, 1, 1);
    append(purchases, 0, 2);
    CompositeSource source = source(10, 10);
    BatchRange range = source.plan(BatchRange.startingAt(Map.of()), true).range();

    List<String> first = readRecording(source, range);
    assertThat(first)
        .containsExactly(
            "begin 0",
            "clicks-0@0",
            "clicks-0@1",
            "clicks-1@0",
            "point after-first-input",
            "begin 1",
            "purchases-0@0",
            "purchases-0@1");

    // a replay after a restart: the range as the offsets entry holds it, read by a new source
    OffsetsEntry entry =
        new OffsetsEntry(
            7,
            range.offsets(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            Instant.EPOCH,
            range.facts());
    append(clicks, 0, 5); // arrived since: not part of the batch
    assertThat(readRecording(source(10, 10), BatchRange.of(entry))).isEqualTo(first);
  }

  @Test
  void theMainPartOfARangeIsWhatASingleInputEntryHolds() {
    Map<SourcePartition, OffsetRange> offsets = new TreeMap<>();
    offsets.put(p("clicks", 0), new OffsetRange(4, 9));
    offsets.put(p("stream.0:purchases", 0), new OffsetRange(1, 2));
    offsets.put(p("stream.0:purchases", 1), new OffsetRange(3, 3));
    BatchRange range =
        new BatchRange(
            offsets,
            Map.of(
                "backlogged", "clicks/0",
                "join.0.version", "12",
                "stream.0.backlogged", "purchases/0",
                "stream.0.topicIds", "{\"purchases\":\"x\"}"));

    assertThat(CompositeSource.mainPart(range))
        .isEqualTo(
            new BatchRange(
                Map.of(p("clicks", 0), new OffsetRange(4, 9)),
                Map.of("backlogged", "clicks/0", "join.0.version", "12")));
    assertThat(CompositeSource.secondPart(range))
        .isEqualTo(
            new BatchRange(
                Map.of(
                    p("purchases", 0), new OffsetRange(1, 2),
                    p("purchases", 1), new OffsetRange(3, 3)),
                Map.of("backlogged", "purchases/0", "topicIds", "{\"purchases\":\"x\"}")));
    assertThat(CompositeSource.mainPart(range).backlogged()).containsExactly(p("clicks", 0));
    assertThat(
            CompositeSource.merged(
                CompositeSource.mainPart(range), CompositeSource.secondPart(range)))
        .isEqualTo(range);

    // an entry of a single-input pipeline is its own main part; its second part is empty
    BatchRange old =
        new BatchRange(Map.of(p("clicks", 0), new OffsetRange(0, 3)), Map.of("topicIds", "{}"));
    assertThat(CompositeSource.mainPart(old)).isEqualTo(old);
    assertThat(CompositeSource.secondPart(old)).isEqualTo(new BatchRange(Map.of(), Map.of()));
  }

  @Test
  void historyAndMessagesNameBothInputs() throws Exception {
    append(clicks, 0, 2);
    append(purchases, 0, 1);
    CompositeSource source = source(10, 10);
    BatchRange range = source.plan(BatchRange.startingAt(Map.of()), true).range();

    assertThat(source.commitInfo(range))
        .containsEntry("offsets", "clicks/0:0-2,clicks/1:0-0")
        .containsEntry("stream.0.offsets", "purchases/0:0-1")
        .hasSize(2);
    assertThat(source.describe(range))
        .isEqualTo(
            InMemorySource.of(clicks, 10).describe(CompositeSource.mainPart(range))
                + " and join[0] input "
                + InMemorySource.of(purchases, 10).describe(CompositeSource.secondPart(range)));
    assertThat(source.describe(range)).contains("purchases-0").doesNotContain("stream.0:");
  }

  @Test
  void refusesTheContinuousTrigger() {
    assertThatThrownBy(
            () -> source(1, 1).readFor(BatchRange.startingAt(Map.of()), Duration.ofMillis(1), null))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("stream-stream join")
        .hasMessageContaining("continuous");
  }

  private static List<String> readRecording(Source source, BatchRange range) throws Exception {
    List<String> seen = new ArrayList<>();
    CrashPoints.onThisThread(
        point -> seen.add("point " + point),
        () ->
            source.read(
                range,
                true /* inFixedOrder */,
                new SourceInput() {
                  @Override
                  public void record(ConsumerRecord<byte[], byte[]> record) {
                    seen.add(record.topic() + "-" + record.partition() + "@" + record.offset());
                  }

                  @Override
                  public void row(SourceRow row) {
                    seen.add("row");
                  }

                  @Override
                  public void beginInput(int input) {
                    seen.add("begin " + input);
                  }
                }));
    return seen;
  }

  private static void append(InMemorySource.Log log, int partition, int count) {
    for (int i = 0; i < count; i++) {
      log.append(partition, "{\"n\":" + i + "}");
    }
  }
}
