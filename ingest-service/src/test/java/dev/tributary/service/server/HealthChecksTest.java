package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.config.Secrets;
import dev.tributary.service.join.DimensionTables;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health checks cost the brokers and stores the same whatever the request rate: one check per
 * cluster or location in flight, its outcome reused for the cache period (time is a fake clock).
 */
class HealthChecksTest {
  private static final Duration CACHE = Duration.ofSeconds(5);
  @TempDir Path dir;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicLong nanos = new AtomicLong();

  private HealthChecks checks() throws Exception {
    return checks(null);
  }

  private HealthChecks checks(ExecutorService executor) throws Exception {
    // Nothing listens on port 1: the cluster description fails within the health timeout.
    Files.writeString(
        dir.resolve("offline.yaml"),
        """
        pipeline: offline
        source:
          kafka:
            bootstrap-servers: 127.0.0.1:1
            topics: [t]
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/table
        checkpoint: %s/checkpoint
        """
            .formatted(dir, dir));
    ServeSettings settings =
        new ServeSettings(
            dir,
            Optional.empty(),
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)),
            Duration.ofSeconds(5),
            Duration.ofSeconds(1),
            CACHE);
    ServedPipelines served =
        new ServedPipelines(settings, registry, new Maintenance(), Clock.systemUTC());
    return executor == null
        ? new HealthChecks(served, settings, registry, nanos::get)
        : new HealthChecks(served, settings, registry, nanos::get, executor);
  }

  private double ran(String check) {
    return registry.counter(MetricNames.HEALTH_CHECKS, MetricNames.CHECK, check).count();
  }

  @Test
  void concurrentRequestsShareOneCheckAndItsOutcomeIsReusedUntilItExpires() throws Exception {
    try (HealthChecks checks = checks()) {
      int requests = 200;
      ExecutorService pool = Executors.newFixedThreadPool(50);
      try {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Health>> answers = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
          answers.add(
              pool.submit(
                  () -> {
                    go.await();
                    return checks.kafka().health();
                  }));
        }
        go.countDown();
        for (Future<Health> answer : answers) {
          assertThat(answer.get(30, TimeUnit.SECONDS).getStatus()).isEqualTo(Status.DOWN);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(ran("kafka")).isEqualTo(1.0);

      // Once the one check has ended, its outcome answers without a new check.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(checks.kafka().health().getDetails().get("127.0.0.1:1").toString())
                      .doesNotContain("no answer within"));
      assertThat(checks.kafka().health().getDetails().get("127.0.0.1:1").toString())
          .startsWith("DOWN: ");
      assertThat(ran("kafka")).isEqualTo(1.0);

      nanos.addAndGet(CACHE.toNanos() + 1);
      checks.kafka().health();
      assertThat(ran("kafka")).isEqualTo(2.0);
    }
  }

  @Test
  void aCheckThatCompletesAtOnceIsAnsweredToo() throws Exception {
    // Runs each check on the calling thread: it has completed before the request waits for it.
    ExecutorService inline =
        new AbstractExecutorService() {
          private volatile boolean shutdown;

          @Override
          public void execute(Runnable command) {
            command.run();
          }

          @Override
          public void shutdown() {
            shutdown = true;
          }

          @Override
          public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
          }

          @Override
          public boolean isShutdown() {
            return shutdown;
          }

          @Override
          public boolean isTerminated() {
            return shutdown;
          }

          @Override
          public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
          }
        };
    try (HealthChecks checks = checks(inline)) {
      assertThat(checks.storage().health().getStatus()).isEqualTo(Status.UP);
      assertThat(ran("storage")).isEqualTo(2.0);
    }
  }

  @Test
  void eachLocationIsCheckedOncePerCachePeriod() throws Exception {
    try (HealthChecks checks = checks()) {
      for (int i = 0; i < 20; i++) {
        Health health = checks.storage().health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsOnlyKeys(dir + "/table", dir + "/checkpoint");
      }
      assertThat(ran("storage")).isEqualTo(2.0);
      nanos.addAndGet(CACHE.toNanos());
      checks.storage().health();
      assertThat(ran("storage")).isEqualTo(4.0);
    }
  }

  @Test
  void everyTableAPipelineReadsIsProbedAndAMissingOrEmptyLogIsDownWithItsReasonMasked()
      throws Exception {
    DimensionTables.create(
        dir.resolve("bronze"), List.<Object[]>of(DimensionTables.customer("c1", "s1", "EU", 1)));
    DimensionTables.create(
        dir.resolve("customers"), List.<Object[]>of(DimensionTables.customer("c1", "s1", "EU", 1)));
    Files.createDirectories(dir.resolve("empty/_delta_log"));
    // A storage value is a secret wherever it appears, a path included.
    Files.writeString(
        dir.resolve("silver.yaml"),
        """
        pipeline: silver
        source:
          delta: { path: %1$s/bronze }
        join:
          - delta: { path: %1$s/customers }
            on: [customer_id]
            columns: [segment]
          - delta: { path: %1$s/tenant-secret-77/missing }
            on: [customer_id]
            columns: [region]
          - delta: { path: %1$s/empty }
            on: [customer_id]
            columns: [tier]
        sink:
          delta: { path: %1$s/silver }
        checkpoint: %1$s/chk
        storage:
          s3: { access-key: tenant-secret-77, secret-key: tenant-secret-88 }
        """
            .formatted(dir));
    try (HealthChecks checks = checks()) {
      Health health = checks.sourceTables().health();
      String missing = dir + "/" + Secrets.MASK + "/missing";
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails())
          .containsOnlyKeys(dir + "/bronze", dir + "/customers", missing, dir + "/empty");
      assertThat(health.getDetails().get(dir + "/bronze")).isEqualTo("UP");
      assertThat(health.getDetails().get(dir + "/customers")).isEqualTo("UP");
      assertThat(health.getDetails().get(missing))
          .isEqualTo(
              "DOWN: no Delta table at "
                  + missing
                  + ": its _delta_log/ is missing or empty. Check source.delta.path (or the join's delta.path), or start"
                  + " the pipeline that writes that table first.");
      assertThat(health.getDetails().get(dir + "/empty"))
          .asString()
          .startsWith("DOWN: no Delta table at " + dir + "/empty");
      assertThat(health.toString()).doesNotContain("tenant-secret-77");
      assertThat(dir.resolve("tenant-secret-77"))
          .as("a health check creates nothing")
          .doesNotExist();
      assertThat(ran("source-table")).isEqualTo(4.0);

      checks.sourceTables().health(); // within the cache period: no new check
      assertThat(ran("source-table")).isEqualTo(4.0);
      // The Kafka-only pipeline has no table to read; the storage check is not the table check.
      assertThat(checks.storage().health().getDetails()).doesNotContainKey(dir + "/bronze");
    }
  }

  @Test
  void aTableWhoseLogCannotBeReadIsDownNamingTheCause() throws Exception {
    Path log = Files.createDirectories(dir.resolve("broken/_delta_log"));
    Files.writeString(log.resolve("00000000000000000000.json"), "{}");
    assertThat(HealthChecks.probeTable(dir + "/broken", null)).isEqualTo("UP");
    // A file where the table's directory should be: there is no log to list.
    Files.writeString(dir.resolve("plain-file"), "not a table");
    assertThat(HealthChecks.probeTable(dir + "/plain-file", null))
        .startsWith("DOWN: no Delta table at " + dir + "/plain-file");
  }
}
