package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.InMemoryBatchWriter;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.stateful.ExchangeFront;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.stateful.StatefulProcessor;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stage 1's progress record ({@link ExchangeSink#progress}) taken in by a stage-2 sub-pipeline
 * ({@link StatefulProcessor#forExchange}): when {@code max-offsets-per-trigger} cuts a batch's
 * source partitions at different event times, each partition holds the watermark at its own
 * maximum, not the batch's (docs/DESIGN.md, "The agreed watermark"; docs/PERFORMANCE.md,
 * "Keyed-by").
 */
class ExchangeClockTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final long MINUTE = 60_000_000L;
  private static final TopicPartition FAST = new TopicPartition("events", 0);
  private static final TopicPartition SLOW = new TopicPartition("events", 1);

  @TempDir Path dir;
  private ExchangeFront front;
  private RecordProcessor stage2;

  @AfterEach
  void close() throws Exception {
    if (stage2 != null) {
      stage2.close();
    }
    if (front != null) {
      front.close();
    }
  }

  private CompiledPipeline compile() throws Exception {
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: clock
        source: { kafka: { bootstrap-servers: "127.0.0.1:1", topics: [events] } }
        format: { json: { schema: { event_id: string, event_type: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures: { events: count() }
        output-mode: append
        late-events: { delta: { path: %s/late } }
        sink: { delta: { path: %s/t } }
        checkpoint: %s/c
        """
                .formatted(dir, dir, dir),
            "clock.yaml",
            Map.of());
    return PipelineFactory.bindJoins(PipelineFactory.compile(spec));
  }

  private static long micros(int minute) {
    return T0.getEpochSecond() * 1_000_000L + minute * MINUTE;
  }

  private static ConsumerRecord<byte[], byte[]> source(TopicPartition tp, long offset, int minute) {
    String json =
        "{\"event_id\":\"%s-%d\",\"event_type\":\"click\",\"event_ts\":\"%s\"}"
            .formatted(tp, offset, T0.plusSeconds(60L * minute));
    return new ConsumerRecord<>(
        tp.topic(), tp.partition(), offset, null, json.getBytes(StandardCharsets.UTF_8));
  }

  /** Stage 1: the source records through the front, then the batch's progress record. */
  private List<ConsumerRecord<byte[], byte[]>> stage1(
      long batchId,
      ExchangeRecords exchange,
      Map<TopicPartition, OffsetRange> ranges,
      Map<TopicPartition, Long> latest,
      List<ConsumerRecord<byte[], byte[]>> records,
      long repartitionOffset)
      throws Exception {
    front.beginBatch(new RecordProcessor.BatchContext(batchId, T0, OptionalLong.empty()));
    BatchOutputs outputs =
        new BatchOutputs(
            new InMemoryBatchWriter(), new InMemoryBatchWriter(), new InMemoryBatchWriter());
    List<byte[]> values = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      front.process(r, outputs, row -> values.add(exchange.row(row).value()));
    }
    values.add(exchange.progress(ExchangeSink.progress(ranges, latest, front)).get(0).value());
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (byte[] v : values) {
      out.add(
          new ConsumerRecord<>(
              ExchangeRecords.topic("clock"), 0, repartitionOffset + out.size(), null, v));
    }
    return out;
  }

  private record Stage2(OptionalLong next, List<Object[]> late, long inputRows) {}

  private Stage2 stage2(
      long batchId, OptionalLong watermark, List<ConsumerRecord<byte[], byte[]>> records)
      throws Exception {
    stage2.beginBatch(
        new RecordProcessor.BatchContext(batchId, T0, watermark, watermark, Set.of(), Map.of()));
    List<Object[]> late = new ArrayList<>();
    BatchOutputs outputs =
        new BatchOutputs(
            new InMemoryBatchWriter(), new InMemoryBatchWriter(), new InMemoryBatchWriter(late));
    for (ConsumerRecord<byte[], byte[]> r : records) {
      stage2.process(r, outputs);
    }
    stage2.endBatch(outputs);
    stage2.commit(batchId);
    return new Stage2(stage2.nextWatermarkMicros(), late, outputs.inputRows());
  }

  /**
   * One stage-1 batch cuts partition 0 at minute 40 and partition 1 at minute 20, both with records
   * still to read; stage 2 takes it in, runs a batch without data at the watermark that gives, then
   * gets partition 1's remaining rows (minutes 21 to 24): none is late, as in one instance reading
   * both partitions. With the batch's maximum given to both partitions the watermark went to 40 -
   * 10 = 30 and all four were late.
   */
  @Test
  void aPartitionCutBehindHoldsTheWatermarkAtItsOwnMaximum() throws Exception {
    CompiledPipeline compiled = compile();
    StatefulPlan plan = compiled.stateful().orElseThrow();
    front = new ExchangeFront("clock", compiled.processor(), plan, true /* writesLateRows */);
    ExchangeRecords exchange = new ExchangeRecords(plan, 1);
    stage2 =
        StatefulProcessor.forExchange(
            "clock.0",
            plan,
            exchange,
            ObjectStores.open(
                Files.createDirectories(dir.resolve("c/partitions/0")).toString(), null),
            dir.resolve("s"));
    Map<TopicPartition, Long> latest = Map.of(FAST, 8L, SLOW, 8L);

    List<ConsumerRecord<byte[], byte[]>> first =
        stage1(
            0,
            exchange,
            Map.of(FAST, new OffsetRange(0, 4), SLOW, new OffsetRange(0, 4)),
            latest,
            List.of(
                source(FAST, 0, 10),
                source(SLOW, 0, 5),
                source(FAST, 1, 20),
                source(SLOW, 1, 10),
                source(FAST, 2, 30),
                source(SLOW, 2, 15),
                source(FAST, 3, 40),
                source(SLOW, 3, 20)),
            0);
    Stage2 taken = stage2(0, OptionalLong.empty(), first);
    assertThat(taken.late()).isEmpty();
    // both partitions are behind: the slower one's own maximum, minute 20, minus the delay
    assertThat(taken.next()).hasValue(micros(10));

    Stage2 noData = stage2(1, taken.next(), List.of());
    assertThat(noData.next()).isEqualTo(taken.next());

    List<ConsumerRecord<byte[], byte[]>> rest =
        stage1(
            1,
            exchange,
            Map.of(SLOW, new OffsetRange(4, 8)),
            latest,
            List.of(
                source(SLOW, 4, 21), source(SLOW, 5, 22), source(SLOW, 6, 23), source(SLOW, 7, 24)),
            first.size());
    Stage2 slow = stage2(2, noData.next(), rest);
    assertThat(slow.inputRows()).isEqualTo(4);
    assertThat(slow.late()).as("rows of the slower partition judged late").isEmpty();
  }
}
