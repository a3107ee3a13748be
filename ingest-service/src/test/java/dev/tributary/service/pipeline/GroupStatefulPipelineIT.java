package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.SeedEvents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed query (watermark, dedup, 5-minute tumbling windows per type, append) with {@code
 * assignment: group}, wired end to end in one JVM: two instances run available-now at once over a
 * topic of 4 partitions, through the repartition topic and the per-partition sub-pipelines; both
 * end by themselves once every partition is settled, and the tables equal one exclusive instance's
 * and a direct computation. (GroupStatefulScaleOutIT does the same with instance processes, kills
 * and freezes.)
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class GroupStatefulPipelineIT {

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void twoInstancesLandTheSeedQueryAsOneInstanceDoes() throws Exception {
    String topic = broker.createTopic("seed-group", 4);
    SeedEvents events = new SeedEvents(11, 4, 12, 120, 7, 40);
    events.produce(broker, topic, 600);

    PipelineSpec group = spec("seed-group", topic, "group");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        runs.add(
            pool.submit(
                () -> {
                  run(group);
                  return null;
                }));
      }
      for (Future<?> f : runs) {
        f.get(180, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    run(spec("seed-single", topic, "exclusive"));

    assertThat(SeedEvents.windows(dir.resolve("seed-group/sink")))
        .isEqualTo(SeedEvents.windows(dir.resolve("seed-single/sink")))
        .isEqualTo(events.expected());
    assertThat(SeedEvents.quarantined(dir.resolve("seed-group/quarantine")))
        .containsExactlyInAnyOrderElementsOf(
            SeedEvents.quarantined(dir.resolve("seed-single/quarantine")))
        .containsExactlyInAnyOrderElementsOf(events.malformed())
        .hasSize(600 / 40);
    // the sink was written by the sub-pipelines of the 4 repartition partitions, each with its own
    // batch key
    try (ObjectStore store = ObjectStores.open(dir.resolve("seed-group/sink").toString(), null)) {
      var txns =
          DeltaTable.open(store, TableOptions.defaults())
              .snapshot()
              .state()
              .transactions()
              .keySet();
      for (int n = 0; n < 4; n++) {
        String key = "seed-group." + n + "@";
        assertThat(txns).as("batch key of partition %s", n).anyMatch(t -> t.startsWith(key));
      }
    }
  }

  private PipelineSpec spec(String id, String topic, String assignment) {
    Path base = dir.resolve(id);
    return PipelineParser.parse(
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: %s
            properties: { session.timeout.ms: "6000", heartbeat.interval.ms: "1000" }
        format:
          json:
            schema: %s
        %s
        sink:
          delta: { path: %s/sink }
        quarantine:
          delta: { path: %s/quarantine }
        checkpoint: %s/checkpoint
        """
            .formatted(
                id,
                broker.bootstrapServers(),
                topic,
                assignment,
                SeedEvents.SCHEMA,
                SeedEvents.QUERY.strip(),
                base,
                base,
                base),
        id + ".yaml",
        Map.of());
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }
}
