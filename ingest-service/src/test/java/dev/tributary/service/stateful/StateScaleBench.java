package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStores;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Large state off the heap: deduplication of {@code -Dstate.keys} (default 10 million) distinct
 * keys in batches of {@code -Dstate.batch} rows, printing heap, RSS and per-batch commit time. Not
 * part of CI; run with a 512 MB heap: {@code mvn -o -pl ingest-service surefire:test
 * -Dtest=StateScaleBench -Dstate.bench=true -DargLine=-Xmx512m}.
 */
@EnabledIfSystemProperty(named = "state.bench", matches = "true")
class StateScaleBench {
  @TempDir Path dir;

  @Test
  void tenMillionDedupKeysWithASmallHeap() throws Exception {
    long keys = Long.getLong("state.keys", 10_000_000L);
    int batch = Integer.getInteger("state.batch", 500_000);
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: scale
        source: { kafka: { bootstrap-servers: "localhost:9092", topics: [events] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp } } }
        deduplicate: { keys: [event_id] }
        sink: { delta: { path: /tmp/unused } }
        checkpoint: /tmp/unused-checkpoint
        """,
            "scale.yaml",
            Map.of());
    StatefulPlan plan = PipelineFactory.compile(spec).stateful().orElseThrow();
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    StatefulQuery query =
        new StatefulQuery(
            plan,
            ObjectStores.open(Files.createDirectories(dir.resolve("checkpoint")).toString(), null),
            dir.resolve("local"));
    long[] out = new long[1];
    Emitter emitter =
        new Emitter() {
          @Override
          public void output(Object[] row) {
            out[0]++;
          }

          @Override
          public void late(Object[] row, Late why) {}

          @Override
          public void filtered() {}
        };
    long started = System.nanoTime();
    long maxHeap = 0;
    long batchId = 0;
    for (long next = 0; next < keys; batchId++) {
      query.begin(batchId, OptionalLong.empty(), OptionalLong.empty());
      long end = Math.min(keys, next + batch);
      for (; next < end; next++) {
        query.accept(new Object[] {"event-" + next, t, "events", 0, next, t}, 0, emitter);
        if (next % 7 == 0) {
          query.accept(
              new Object[] {"event-" + next, t, "events", 0, next, t}, 0, emitter); // a duplicate
        }
      }
      query.end(emitter);
      long c0 = System.nanoTime();
      query.commit(batchId);
      long commitMs = (System.nanoTime() - c0) / 1_000_000;
      System.gc();
      long heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
      maxHeap = Math.max(maxHeap, heap);
      System.out.printf(
          "batch %d: keys %d, heap %d MB, rss %d MB, commit %d ms%n",
          batchId, query.metrics().get("keys"), heap >> 20, rssMb(), commitMs);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "%d keys in %.1f s (%.0f rows/s), max heap after batch %d MB, max heap allowed %d MB%n",
        keys,
        seconds,
        keys * 8 / 7 / seconds,
        maxHeap >> 20,
        Runtime.getRuntime().maxMemory() >> 20);
    assertThat(out[0]).isEqualTo(keys);
    query.close();
  }

  /**
   * The seed query's operators alone (no Kafka, no parse, no Delta): {@code -Dstate.events}
   * (default 2 million) rows, 10 ms apart with up to 5 s of disorder and 1 in 20 re-sent, in
   * batches of 500,000, with the state committed each batch. Prints rows/s and state size.
   */
  @Test
  void seedQueryOperatorsThroughput() throws Exception {
    int events = Integer.getInteger("state.events", 2_000_000);
    PipelineSpec spec =
        PipelineParser.parse(
            Files.readString(Path.of("../pipelines/stateful-tumbling-append.yaml")),
            "seed.yaml",
            Map.of());
    StatefulPlan plan = PipelineFactory.compile(spec).stateful().orElseThrow();
    List<String> columns = plan.inputSchema().fieldNames();
    StatefulQuery query =
        new StatefulQuery(
            plan,
            ObjectStores.open(Files.createDirectories(dir.resolve("checkpoint")).toString(), null),
            dir.resolve("local"));
    long[] out = new long[1];
    Emitter emitter =
        new Emitter() {
          @Override
          public void output(Object[] row) {
            out[0]++;
          }

          @Override
          public void late(Object[] row, Late why) {}

          @Override
          public void filtered() {}
        };
    Random random = new Random(1);
    String[] types = {"view", "click", "purchase", "refund"};
    Instant start = Instant.parse("2026-11-01T00:00:00Z");
    OptionalLong watermark = OptionalLong.empty();
    OptionalLong lateWatermark = OptionalLong.empty();
    long began = System.nanoTime();
    int batchId = 0;
    for (int i = 0; i < events; batchId++) {
      query.begin(batchId, watermark, lateWatermark);
      int end = Math.min(events, i + 500_000);
      for (; i < end; i++) {
        int id = random.nextInt(20) == 0 && i > 0 ? i - 1 - random.nextInt(Math.min(i, 1000)) : i;
        Object[] row = new Object[columns.size()];
        row[columns.indexOf("event_id")] = "e-" + id;
        row[columns.indexOf("event_type")] = types[id % 4];
        row[columns.indexOf("event_ts")] = start.plusMillis(id * 10L + (id * 7919L) % 5000);
        row[columns.indexOf("amount")] = BigDecimal.valueOf(id % 100_000, 2);
        query.accept(row, 0, emitter);
      }
      query.end(emitter);
      lateWatermark = watermark;
      watermark = query.nextWatermark();
      query.commit(batchId);
    }
    double seconds = (System.nanoTime() - began) / 1e9;
    System.out.printf(
        "seed query operators: %,d rows in %.1f s = %,.0f rows/s; %d windows emitted; state %s%n",
        events, seconds, events / seconds, out[0], query.metrics());
    query.close();
  }

  private static long rssMb() throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(Path.of("/proc/self/status")));
    for (String l : lines) {
      if (l.startsWith("VmRSS:")) {
        return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return -1;
  }
}
