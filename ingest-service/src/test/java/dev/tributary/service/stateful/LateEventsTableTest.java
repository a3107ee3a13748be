package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The late-events table's columns, and a table an older release created without them. */
class LateEventsTableTest {
  @TempDir Path dir;

  private CompiledPipeline pipeline() {
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: late-columns
        source: { kafka: { bootstrap-servers: "127.0.0.1:1", topics: [events] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, event_ts] }
        late-events: { delta: { path: %s/late } }
        sink: { delta: { path: %s/t } }
        checkpoint: %s/c
        """
                .formatted(dir, dir, dir),
            "late-columns.yaml",
            Map.of());
    return PipelineFactory.compile(spec);
  }

  @Test
  void theLateEventsTableHasTheInputColumnsThenWhyEachRowWasLate() {
    CompiledPipeline pipeline = pipeline();
    assertThat(pipeline.lateEventsSchema().fieldNames())
        .containsExactly(
            "event_id",
            "event_ts",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp",
            "_late_operator",
            "_late_watermark",
            "_late_window_start",
            "_late_window_end");
  }

  @Test
  void aLateEventsTableWrittenByAnOlderReleaseGetsTheNewColumnsAtStart() throws Exception {
    CompiledPipeline pipeline = pipeline();
    Object[] oldRow = {
      "e1",
      Instant.parse("2026-01-01T00:00:00Z"),
      "events",
      0,
      7L,
      Instant.parse("2026-01-01T00:00:01Z")
    };
    try (ObjectStore store =
        ObjectStores.open(Files.createDirectories(dir.resolve("late")).toString(), null)) {
      // what the previous release created and wrote: the input columns alone
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(pipeline.processor().outputSchema(), List.of(), Map.of());
      try (AppendTransaction append = table.newAppend(new TransactionId("old-release", 0))) {
        append.write(oldRow);
        append.commit(Map.of());
      }
    }

    try (PipelineRun run =
        PipelineRun.open(pipeline, new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      assertThat(run.spec().id()).isEqualTo("late-columns");
    }

    try (ObjectStore store = ObjectStores.open(dir.resolve("late").toString(), null)) {
      assertThat(DeltaTable.open(store, TableOptions.defaults()).snapshot().schema())
          .isEqualTo(pipeline.lateEventsSchema());
      assertThat(TableContents.rows(store))
          .singleElement()
          .satisfies(
              r ->
                  assertThat(Arrays.asList(r))
                      .containsExactly(
                          "e1", oldRow[1], "events", 0, 7L, oldRow[5], null, null, null, null));
    }
  }
}
