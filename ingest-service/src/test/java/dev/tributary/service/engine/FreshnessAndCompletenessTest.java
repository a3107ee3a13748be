package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26 item 3 through the real engine (in-memory stores): each progress record carries the
 * newest Kafka record timestamp its batch committed, and each sink commit of a pipeline with a
 * watermark records the watermark its batch applied in its commitInfo (the completeness mark).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FreshnessAndCompletenessTest {
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");
  @TempDir Path dir;

  private final InMemorySource.Log topic = new InMemorySource.Log("events", 1);

  @Test
  void progressCarriesTheNewestRecordTimestampAndCommitsTheAppliedWatermark() throws Exception {
    MemoryPipeline pipeline =
        MemoryPipeline.declared(
            """
            pipeline: memory
            source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
            format: { json: { schema: { id: long, event_time: timestamp } } }
            watermark: { column: event_time, delay: 1 minute }
            deduplicate: { keys: [id, event_time] }
            sink: { delta: { path: /memory/sink } }
            quarantine: { delta: { path: /memory/quarantine } }
            checkpoint: /memory/checkpoint
            """,
            dir);
    // Record timestamps out of order within a batch: the newest counts, not the last.
    event(1, "10:00:00Z", 5_000);
    event(2, "10:05:00Z", 9_000);
    event(3, "10:10:00Z", 7_000);
    event(4, "10:20:00Z", 20_000);

    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, 2), Model.WRITE_AHEAD_LOG);
    List<BatchProgress> batches;
    try {
      process.loop().run(new TriggerSpec.AvailableNow());
      batches = process.progress().last(100);
    } finally {
      process.processor().close();
    }

    assertThat(batches.get(0).newestRecordAt()).isEqualTo(T.plusMillis(9_000));
    assertThat(batches.get(1).newestRecordAt()).isEqualTo(T.plusMillis(20_000));
    assertThat(batches.get(1).freshnessMs()).isPositive();

    Map<Long, Map<String, Object>> infoByBatch = new HashMap<>();
    DeltaLog log = new DeltaLog(pipeline.sinkStore);
    for (long v = 0; v <= log.load().orElseThrow().version(); v++) {
      for (Action a : log.readCommit(v)) {
        if (a instanceof CommitInfo info && info.values().containsKey("batchId")) {
          infoByBatch.put(
              Long.parseLong(String.valueOf(info.values().get("batchId"))), info.values());
        }
      }
    }
    // Batch 1 applies the watermark batch 0 computed: its max event time 10:05 minus 1 minute.
    Instant applied = Instant.parse("2026-03-01T10:04:00Z");
    assertThat(batches.get(1).watermark()).isEqualTo(applied);
    assertThat(infoByBatch.get(batches.get(1).batchId()))
        .containsEntry(BatchBody.WATERMARK_INFO, applied.toString());
    for (BatchProgress p : batches) {
      if (p.watermark() != null && infoByBatch.containsKey(p.batchId())) {
        assertThat(infoByBatch.get(p.batchId()))
            .containsEntry(BatchBody.WATERMARK_INFO, p.watermark().toString());
      }
    }
  }

  private void event(long id, String time, long timestampOffsetMs) {
    topic.appendAt(
        0,
        "{\"id\":" + id + ",\"event_time\":\"2026-03-01T" + time + "\"}",
        T.plusMillis(timestampOffsetMs).toEpochMilli());
  }
}
