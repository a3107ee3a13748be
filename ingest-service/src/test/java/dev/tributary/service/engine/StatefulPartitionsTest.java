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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stateful processor as the engine drives it, with records of two topic partitions: the
 * watermark follows the slowest partition that has records in the batch, so the partition that is
 * behind loses nothing to lateness, and an idle partition does not hold the watermark back.
 */
class StatefulPartitionsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final long MINUTE = 60_000_000L;

  @TempDir Path dir;

  private static ConsumerRecord<byte[], byte[]> record(int partition, long offset, String id, int minute) {
    String json = "{\"event_id\":\"" + id + "\",\"event_ts\":\"" + T0.plusSeconds(60L * minute) + "\"}";
    return new ConsumerRecord<>("events", partition, offset, null, json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theSlowestPartitionWithRecordsSetsTheWatermark() throws Exception {
    PipelineSpec spec = PipelineParser.parse("""
        pipeline: partitions
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, event_ts] }
        sink: { delta: { path: %s/t } }
        checkpoint: %s/c
        """.formatted(dir, dir), "partitions.yaml", Map.of());
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    ObjectStore checkpoint = ObjectStores.open(Files.createDirectories(dir.resolve("c")).toString(), null);
    try (RecordProcessor processor = PipelineFactory.processor(pipeline, checkpoint, dir.resolve("state"))) {
      // batch 0: partition 0 is at minute 60, partition 1 (behind) at minute 20
      InMemoryBatchWriter late0 = new InMemoryBatchWriter();
      processor.beginBatch(new RecordProcessor.BatchContext(0, T0, OptionalLong.empty()));
      BatchOutputs outputs = new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), late0);
      processor.process(record(0, 0, "a", 60), outputs);
      processor.process(record(1, 0, "b", 20), outputs);
      processor.endBatch(outputs);
      OptionalLong next = processor.nextWatermarkMicros();
      assertThat(next).hasValue((T0.getEpochSecond() * 1_000_000L) + 10 * MINUTE); // 20 - 10
      processor.commit(0);

      // batch 1: partition 1 goes on at minute 15: not late (the watermark is at minute 10)
      InMemoryBatchWriter late1 = new InMemoryBatchWriter();
      processor.beginBatch(new RecordProcessor.BatchContext(1, T0, next));
      outputs = new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), late1);
      processor.process(record(1, 1, "c", 15), outputs);
      processor.process(record(1, 2, "d", 5), outputs); // behind the watermark: late
      processor.endBatch(outputs);
      assertThat(late1.rows).extracting(r -> r[0]).containsExactly("d");
      // only partition 1 had records (partition 0 is idle): it alone moves the watermark, never back
      assertThat(processor.nextWatermarkMicros()).isEqualTo(next);
      processor.commit(1);

      // batch 2: partition 0 alone, at minute 70: the idle partition 1 does not hold it back
      processor.beginBatch(new RecordProcessor.BatchContext(2, T0, next));
      outputs = new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), new InMemoryBatchWriter());
      processor.process(record(0, 1, "e", 70), outputs);
      processor.endBatch(outputs);
      assertThat(processor.nextWatermarkMicros()).hasValue((T0.getEpochSecond() * 1_000_000L) + 60 * MINUTE);
    }
  }

  @Test
  void aReplayAfterTheStateCommitThatSeesThePartitionsInAnotherOrderGoesOn() throws Exception {
    // within-watermark dedup keeps the first occurrence's event time: the order decides the state
    PipelineSpec spec = PipelineParser.parse("""
        pipeline: replay-order
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id], within-watermark: true }
        sink: { delta: { path: %s/t } }
        checkpoint: %s/c
        """.formatted(dir, dir), "replay-order.yaml", Map.of());
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    ObjectStore checkpoint = ObjectStores.open(Files.createDirectories(dir.resolve("c")).toString(), null);
    try (RecordProcessor first = PipelineFactory.processor(pipeline, checkpoint, dir.resolve("state-1"))) {
      first.beginBatch(new RecordProcessor.BatchContext(0, T0, OptionalLong.empty()));
      BatchOutputs outputs = new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), new InMemoryBatchWriter());
      first.process(record(0, 0, "a", 5), outputs);
      first.process(record(1, 0, "a", 8), outputs);
      first.endBatch(outputs);
      first.commit(0); // ... and the process dies before the batch's commits entry
    }
    try (RecordProcessor replay = PipelineFactory.processor(pipeline, checkpoint, dir.resolve("state-2"))) {
      replay.beginBatch(new RecordProcessor.BatchContext(0, T0, OptionalLong.empty()));
      BatchOutputs outputs = new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), new InMemoryBatchWriter());
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
