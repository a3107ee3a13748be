package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stateful processor as the engine drives it, with records of two topic partitions: with the
 * global policy the watermark is the max event time over all partitions; with {@code per-partition}
 * it follows the slowest partition that has rows in the batch, an idle or caught-up partition does
 * not hold it back, and a backlogged partition whose records all failed to reach the operators
 * (filtered, quarantined, late) holds it.
 */
class StatefulPartitionsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final long MINUTE = 60_000_000L;
  private static final TopicPartition P1 = new TopicPartition("events", 1);

  @TempDir Path dir;

  private static ConsumerRecord<byte[], byte[]> record(
      int partition, long offset, String id, int minute) {
    String json =
        "{\"event_id\":\"" + id + "\",\"event_ts\":\"" + T0.plusSeconds(60L * minute) + "\"}";
    return new ConsumerRecord<>(
        "events", partition, offset, null, json.getBytes(StandardCharsets.UTF_8));
  }

  private static OptionalLong minute(int m) {
    return OptionalLong.of(T0.getEpochSecond() * 1_000_000L + m * MINUTE);
  }

  private RecordProcessor processor(String policy) throws Exception {
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: partitions
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp } } }
        transform:
          - filter: "event_id <> 'skip'"
        watermark: { column: event_ts, delay: 10 minutes, policy: %s }
        deduplicate: { keys: [event_id, event_ts] }
        sink: { delta: { path: %s/t } }
        checkpoint: %s/c
        """
                .formatted(policy, dir, dir),
            "partitions.yaml",
            Map.of());
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    ObjectStore checkpoint =
        ObjectStores.open(Files.createDirectories(dir.resolve("c-" + policy)).toString(), null);
    return PipelineFactory.processor(pipeline, checkpoint, dir.resolve("state-" + policy));
  }

  /** Runs one batch of {@code records}; returns the watermark the next batch evicts with. */
  private static OptionalLong batch(
      RecordProcessor processor,
      long id,
      OptionalLong evict,
      OptionalLong late,
      Set<TopicPartition> backlogged,
      InMemoryBatchWriter lateRows,
      List<ConsumerRecord<byte[], byte[]>> records)
      throws Exception {
    processor.beginBatch(
        new RecordProcessor.BatchContext(id, T0, evict, late, backlogged, Map.of()));
    BatchOutputs outputs =
        new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), lateRows);
    for (ConsumerRecord<byte[], byte[]> r : records) {
      processor.process(r, outputs);
    }
    processor.endBatch(outputs);
    return processor.nextWatermarkMicros();
  }

  @Test
  void theGlobalWatermarkIsTheMaxOverAllPartitions() throws Exception {
    try (RecordProcessor processor = processor("global")) {
      OptionalLong next =
          batch(
              processor,
              0,
              OptionalLong.empty(),
              OptionalLong.empty(),
              Set.of(),
              new InMemoryBatchWriter(),
              List.of(record(0, 0, "a", 60), record(1, 0, "b", 20)));
      assertThat(next).isEqualTo(minute(50)); // 60 - 10: the partition behind does not count
    }
  }

  @Test
  void theSlowestPartitionWithRowsSetsThePerPartitionWatermark() throws Exception {
    try (RecordProcessor processor = processor("per-partition")) {
      // batch 0: partition 0 is at minute 60, partition 1 (behind) at minute 20
      OptionalLong w1 =
          batch(
              processor,
              0,
              OptionalLong.empty(),
              OptionalLong.empty(),
              Set.of(),
              new InMemoryBatchWriter(),
              List.of(record(0, 0, "a", 60), record(1, 0, "b", 20)));
      assertThat(w1).isEqualTo(minute(10)); // 20 - 10
      processor.commit(0);

      // batch 1: only partition 1 has rows (partition 0 is idle): it alone moves the watermark,
      // never back
      OptionalLong w2 =
          batch(
              processor,
              1,
              w1,
              OptionalLong.empty(),
              Set.of(),
              new InMemoryBatchWriter(),
              List.of(record(1, 1, "c", 15), record(1, 2, "d", 5)));
      assertThat(w2).isEqualTo(w1);
      processor.commit(1);

      // batch 2: partition 1's only record is late (at or behind 10): caught up, it does not count
      InMemoryBatchWriter late2 = new InMemoryBatchWriter();
      OptionalLong w3 =
          batch(
              processor,
              2,
              w2,
              w1,
              Set.of(),
              late2,
              List.of(record(0, 1, "e", 70), record(1, 3, "f", 9)));
      assertThat(late2.rows).extracting(r -> r[0]).containsExactly("f");
      assertThat(w3).isEqualTo(minute(60));
      processor.commit(2);

      // batch 3: partition 1's only record is filtered by the transform, and the batch leaves
      // partition 1 backlogged: its next records may be far behind, so the watermark holds
      List<ConsumerRecord<byte[], byte[]>> records =
          List.of(record(0, 2, "g", 80), record(1, 4, "skip", 70));
      assertThat(batch(processor, 3, w3, w2, Set.of(P1), new InMemoryBatchWriter(), records))
          .isEqualTo(w3);
      // the same batch with partition 1 caught up: it does not hold the watermark
      assertThat(batch(processor, 3, w3, w2, Set.of(), new InMemoryBatchWriter(), records))
          .isEqualTo(minute(70));

      // a backlogged partition whose records are all late holds it too
      List<ConsumerRecord<byte[], byte[]>> lateOnly =
          List.of(record(0, 2, "g", 80), record(1, 4, "h", 1));
      assertThat(batch(processor, 3, w3, w2, Set.of(P1), new InMemoryBatchWriter(), lateOnly))
          .isEqualTo(w3);
    }
  }

  @Test
  void aReplayAfterTheStateCommitThatSeesThePartitionsInAnotherOrderGoesOn() throws Exception {
    // within-watermark dedup keeps the first occurrence's event time: the order decides the state
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: replay-order
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id], within-watermark: true }
        sink: { delta: { path: %s/t } }
        checkpoint: %s/c
        """
                .formatted(dir, dir),
            "replay-order.yaml",
            Map.of());
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    ObjectStore checkpoint =
        ObjectStores.open(Files.createDirectories(dir.resolve("c")).toString(), null);
    try (RecordProcessor first =
        PipelineFactory.processor(pipeline, checkpoint, dir.resolve("state-1"))) {
      first.beginBatch(new RecordProcessor.BatchContext(0, T0, OptionalLong.empty()));
      BatchOutputs outputs =
          new BatchOutputs(
              new InMemoryBatchWriter(), new InMemoryBatchWriter(), new InMemoryBatchWriter());
      first.process(record(0, 0, "a", 5), outputs);
      first.process(record(1, 0, "a", 8), outputs);
      first.endBatch(outputs);
      first.commit(0); // ... and the process dies before the batch's commits entry
    }
    try (RecordProcessor replay =
        PipelineFactory.processor(pipeline, checkpoint, dir.resolve("state-2"))) {
      replay.beginBatch(new RecordProcessor.BatchContext(0, T0, OptionalLong.empty()));
      BatchOutputs outputs =
          new BatchOutputs(
              new InMemoryBatchWriter(), new InMemoryBatchWriter(), new InMemoryBatchWriter());
      replay.process(record(1, 0, "a", 8), outputs);
      replay.process(record(0, 0, "a", 5), outputs);
      replay.endBatch(outputs);
      replay.commit(0); // the state of the first attempt stands: not a second writer

      InMemoryBatchWriter sink = new InMemoryBatchWriter();
      replay.beginBatch(new RecordProcessor.BatchContext(1, T0, replay.nextWatermarkMicros()));
      outputs = new BatchOutputs(sink, new InMemoryBatchWriter(), new InMemoryBatchWriter());
      replay.process(record(0, 1, "a", 9), outputs);
      replay.process(record(0, 2, "b", 9), outputs);
      replay.endBatch(outputs);
      replay.commit(1);
      assertThat(sink.rows).extracting(r -> r[0]).containsExactly("b");
    }
  }
}
