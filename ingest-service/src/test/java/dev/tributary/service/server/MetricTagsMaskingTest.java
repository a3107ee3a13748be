package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Metric tags are what a dashboard groups by: a topic or table that comes from a plain {@code
 * ${NAME}} reference is shown as it is, and only the part a secret reference put in is masked. The
 * wiring is the service's: progress records pass the declaration's secrets on their way to the
 * meters, and the table tag is the masked sink location.
 */
class MetricTagsMaskingTest {

  @Test
  void aTopicFromAPlainReferenceIsATagAndASecretReferenceIsMaskedInIt() {
    PipelineSpec spec =
        PipelineParser.parse(
            """
            pipeline: tagged
            source:
              kafka:
                bootstrap-servers: localhost:1
                topics: ["${ORDERS_TOPIC}", "audit-${TENANT_TOKEN}"]
            format:
              json:
                schema:
                  id: long
            sink:
              delta:
                path: "${TABLES}/${TENANT_TOKEN}/orders"
            checkpoint: /tmp/none/tagged-checkpoint
            """,
            "tagged.yaml",
            Map.of(
                "ORDERS_TOPIC", "orders-eu", "TENANT_TOKEN", "tenant-42-xyz", "TABLES", "/data"));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ProgressLog progress = new ProgressLog(10, spec.secrets());
    PipelineMetrics metrics =
        new PipelineMetrics(
            registry,
            spec.id(),
            spec.secrets().mask(spec.sink().path()),
            () -> PipelineState.RUNNING,
            Clock.systemUTC());
    progress.addListener(metrics::batchDone);

    progress.add(
        batch(
            new BatchProgress.PartitionProgress("orders-eu", 0, 0, 10, 15),
            new BatchProgress.PartitionProgress("audit-tenant-42-xyz", 0, 0, 4, 4)));

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("topic=\"orders-eu\"")
        .contains("topic=\"audit-******\"")
        .contains("table=\"/data/******/orders\"")
        .doesNotContain("tenant-42-xyz");
  }

  private static BatchProgress batch(BatchProgress.PartitionProgress... partitions) {
    return new BatchProgress(
        "tagged",
        0,
        false,
        Instant.now(),
        14,
        14,
        0,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        List.of(partitions),
        1,
        null,
        List.of(),
        Map.of(),
        0,
        0);
  }
}
