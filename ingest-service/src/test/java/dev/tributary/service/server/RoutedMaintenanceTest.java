package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.join.DimensionTables;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.VacuumResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The served maintenance passes (schedule and REST) of a routed pipeline go over every table under
 * the folder of its routes, adding up what they did; before any table exists they are skipped.
 */
class RoutedMaintenanceTest {
  @TempDir Path dir;

  @Test
  void compactionAndVacuumPassOverEveryRoutedTable() throws Exception {
    PipelineSpec spec =
        PipelineParser.parse(
            """
            pipeline: routed
            source: { kafka: { bootstrap-servers: localhost:9092, topic-pattern: "shop-.*" } }
            format: { json: { schema: { id: string } } }
            sink:
              delta:
                path: %s/silver/{route}
                route: _kafka_topic
            checkpoint: %s/checkpoint
            maintenance:
              compaction: { schedule: "0 0 * * * *", min-files: 2 }
            """
                .formatted(dir, dir),
            "routed.yaml",
            Map.of());
    ManagedPipeline p =
        ManagedPipeline.invalid(
            "routed", dir.resolve("routed.yaml"), Optional.of(spec), "test", Clock.systemUTC());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PipelineMetrics metrics =
        new PipelineMetrics(registry, "routed", dir + "/silver", p::state, Clock.systemUTC());
    Maintenance maintenance = new Maintenance();

    assertThat(maintenance.compact(p, metrics).tableVersion())
        .as("no table yet: skipped")
        .isEqualTo(-1);

    for (String route : List.of("shop-customers", "shop-orders", "shop-items")) {
      DimensionTables table =
          DimensionTables.create(
              dir.resolve("silver").resolve(route),
              List.<Object[]>of(DimensionTables.customer("c1", "s", "EU", 1)));
      table.append(List.<Object[]>of(DimensionTables.customer("c2", "s", "EU", 1)));
    }
    CompactionResult compacted = maintenance.compact(p, metrics);
    assertThat(compacted.filesRemoved()).as("two files in each of three tables").isEqualTo(6);
    assertThat(compacted.filesAdded()).isEqualTo(3);
    assertThat(registry.get(MetricNames.COMPACTION_FILES).counter().count()).isEqualTo(6);

    VacuumResult vacuumed = maintenance.vacuum(p, metrics, true /* dryRun */);
    assertThat(vacuumed.deleted()).isFalse();
  }
}
