package dev.tributary.service.server;

import dev.tributary.config.JoinSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The actuator health contributions of serve mode: {@code pipelines} (each pipeline's state; DOWN
 * when one is FAILED, UP when DEGRADED), {@code kafka} (every distinct bootstrap-servers list
 * answers a cluster description), {@code storage} (every distinct sink and checkpoint location
 * answers a metadata request) and {@code sourceTables} (every distinct table a pipeline reads, its
 * {@code source.delta} table and its {@code join} dimension tables, has a {@code _delta_log/} that
 * can be listed and read).
 *
 * <p>Remote checks are cheap for the service and its dependencies whatever the request rate: a
 * check's outcome is reused for {@link ServeSettings#healthCacheFor()}; at most one check per
 * cluster or location is in flight, and concurrent requests wait for that one instead of starting
 * their own; a request waits at most {@link ServeSettings#healthTimeout()} (a check still running
 * then goes on and its outcome serves the next requests). Each check that really ran is counted in
 * {@link MetricNames#HEALTH_CHECKS}. Details name only locations and bootstrap addresses, with the
 * pipelines' secrets masked.
 */
final class HealthChecks implements AutoCloseable {
  private final ServedPipelines pipelines;
  private final Duration timeout;
  private final long cacheNanos;
  private final LongSupplier nanoTime;
  private static final String DELTA_LOG = "_delta_log";

  private final Map<String, Probe> probes = new ConcurrentHashMap<>();
  private final Counter kafkaChecks;
  private final Counter storageChecks;
  private final Counter tableChecks;
  private final ExecutorService executor;

  HealthChecks(
      ServedPipelines pipelines,
      ServeSettings settings,
      MeterRegistry registry,
      LongSupplier nanoTime) {
    this(
        pipelines,
        settings,
        registry,
        nanoTime,
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "tributary-health");
              t.setDaemon(true);
              return t;
            }));
  }

  /** With the executor the checks run on (closed with this). */
  HealthChecks(
      ServedPipelines pipelines,
      ServeSettings settings,
      MeterRegistry registry,
      LongSupplier nanoTime,
      ExecutorService executor) {
    this.executor = executor;
    this.pipelines = pipelines;
    this.timeout = settings.healthTimeout();
    this.cacheNanos = settings.healthCacheFor().toNanos();
    this.nanoTime = nanoTime;
    this.kafkaChecks = registry.counter(MetricNames.HEALTH_CHECKS, MetricNames.CHECK, "kafka");
    this.storageChecks = registry.counter(MetricNames.HEALTH_CHECKS, MetricNames.CHECK, "storage");
    this.tableChecks =
        registry.counter(MetricNames.HEALTH_CHECKS, MetricNames.CHECK, "source-table");
  }

  /**
   * Pipelines: UP unless one is FAILED; details map each id to its state (and reason). A DEGRADED
   * pipeline leaves it UP: the outage is of a dependency, which the {@code kafka} and {@code
   * storage} checks report DOWN, and restarting the service (what a DOWN invites) cannot end it;
   * the pipeline resumes by itself once the dependency answers. Alert on the state metric instead.
   */
  HealthIndicator pipelines() {
    return () -> {
      Map<String, Object> details = new LinkedHashMap<>();
      boolean failed = false;
      for (ManagedPipeline p : pipelines.all()) {
        PipelineStatus s = p.status();
        failed |= s.state() == PipelineState.FAILED;
        details.put(s.id(), s.reason() == null ? s.state().name() : s.state() + ": " + s.reason());
      }
      return (failed ? Health.down() : Health.up()).withDetails(details).build();
    };
  }

  /** Kafka: one Admin cluster description per distinct bootstrap-servers list. */
  HealthIndicator kafka() {
    return () -> {
      Map<String, Object> details = new LinkedHashMap<>();
      boolean down = false;
      for (ManagedPipeline p : pipelines.all()) {
        if (p.spec().isEmpty()) {
          continue;
        }
        PipelineSpec spec = p.spec().get();
        if (spec.kafkaSource().isEmpty()) {
          continue; // a Delta source: no Kafka cluster to check
        }
        String cluster = spec.kafkaSource().get().bootstrapServers();
        String shown = p.mask(cluster);
        if (details.containsKey(shown)) {
          continue;
        }
        Probe probe =
            probes.computeIfAbsent(
                "kafka " + cluster,
                k -> new Probe(kafkaChecks, () -> describeCluster(spec, timeout)));
        String outcome = p.mask(probe.outcome());
        down |= !outcome.startsWith("UP");
        details.put(shown, outcome);
      }
      return (down ? Health.down() : details.isEmpty() ? Health.unknown() : Health.up())
          .withDetails(details)
          .build();
    };
  }

  /** Object stores: a metadata request on every distinct sink and checkpoint location. */
  HealthIndicator storage() {
    return () -> {
      Map<String, Object> details = new LinkedHashMap<>();
      boolean down = false;
      for (ManagedPipeline p : pipelines.all()) {
        if (p.spec().isEmpty()) {
          continue;
        }
        PipelineSpec spec = p.spec().get();
        List<String> locations = new ArrayList<>();
        spec.deltaSink()
            .ifPresent(d -> locations.add(d.tablesFolder())); // a routed sink: its folder
        locations.add(spec.checkpoint());
        for (String location : locations) {
          String shown = p.mask(location);
          if (details.containsKey(shown)) {
            continue;
          }
          Probe probe =
              probes.computeIfAbsent(
                  "storage " + location,
                  k -> new Probe(storageChecks, () -> probe(spec, location)));
          String outcome = p.mask(probe.outcome());
          down |= !outcome.startsWith("UP");
          details.put(shown, outcome);
        }
      }
      return (down ? Health.down() : details.isEmpty() ? Health.unknown() : Health.up())
          .withDetails(details)
          .build();
    };
  }

  /**
   * Tables read: every distinct {@code source.delta} table and {@code join} dimension table, with
   * the storage settings the pipeline reads it with, lists its {@code _delta_log/} (one object) and
   * reads a byte of what it lists. DOWN when the log is missing or empty (no table there, or a
   * wrong path) or cannot be listed or read (credentials, permissions, endpoint). UNKNOWN when no
   * pipeline reads a table.
   */
  HealthIndicator sourceTables() {
    return () -> {
      Map<String, Object> details = new LinkedHashMap<>();
      boolean down = false;
      for (ManagedPipeline p : pipelines.all()) {
        if (p.spec().isEmpty()) {
          continue;
        }
        PipelineSpec spec = p.spec().get();
        Map<String, S3Settings> tables = new LinkedHashMap<>();
        spec.deltaSource()
            .ifPresent(
                d ->
                    tables.put(
                        d.path(), PipelineFactory.s3Settings(d.storage().or(spec::storage))));
        for (JoinSpec join : spec.joins()) {
          tables.putIfAbsent(
              join.path(), PipelineFactory.s3Settings(join.storage().or(spec::storage)));
        }
        for (Map.Entry<String, S3Settings> table : tables.entrySet()) {
          String location = table.getKey();
          String shown = p.mask(location);
          if (details.containsKey(shown)) {
            continue;
          }
          Probe probe =
              probes.computeIfAbsent(
                  "table " + location,
                  k -> new Probe(tableChecks, () -> probeTable(location, table.getValue())));
          String outcome = p.mask(probe.outcome());
          down |= !outcome.startsWith("UP");
          details.put(shown, outcome);
        }
      }
      return (down ? Health.down() : details.isEmpty() ? Health.unknown() : Health.up())
          .withDetails(details)
          .build();
    };
  }

  /** Ends the checks still running. */
  @Override
  public void close() {
    executor.shutdownNow();
  }

  /**
   * One remote check with its cached outcome: a single flight at a time, its outcome reused until
   * it is older than the cache period.
   */
  private final class Probe {
    private final Counter runs;
    private final Callable<String> check;
    // Guarded by this.
    private CompletableFuture<String> inFlight;
    private String last;
    private long checkedAt;

    Probe(Counter runs, Callable<String> check) {
      this.runs = runs;
      this.check = check;
    }

    String outcome() {
      CompletableFuture<String> result = current();
      try {
        return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        return "DOWN: no answer within " + timeout.toMillis() + " ms";
      } catch (ExecutionException e) {
        return "DOWN: " + e.getCause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "DOWN: interrupted";
      }
    }

    private synchronized CompletableFuture<String> current() {
      if (last != null && nanoTime.getAsLong() - checkedAt < cacheNanos) {
        return CompletableFuture.completedFuture(last);
      }
      if (inFlight != null) {
        return inFlight;
      }
      runs.increment();
      CompletableFuture<String> started = CompletableFuture.supplyAsync(this::run, executor);
      inFlight = started;
      // A quick check may have completed already: then done() runs here and clears inFlight, so
      // the future to wait for is the one just started, not the field.
      started.whenComplete((outcome, error) -> done(outcome != null ? outcome : "DOWN: " + error));
      return started;
    }

    private synchronized void done(String outcome) {
      last = outcome;
      checkedAt = nanoTime.getAsLong();
      inFlight = null;
    }

    private String run() {
      try {
        return check.call();
      } catch (Exception e) {
        return "DOWN: " + Failures.describe(e, Secrets.NONE);
      }
    }
  }

  private static String describeCluster(PipelineSpec spec, Duration timeout) throws Exception {
    Properties props = new Properties();
    // The pipeline's consumer properties carry the security settings (SASL, TLS) the broker needs.
    var kafka = spec.kafkaSource().orElseThrow();
    props.putAll(kafka.properties());
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tributary-health");
    try (Admin admin = Admin.create(props)) {
      int nodes =
          admin
              .describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
              .nodes()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .size();
      return "UP (" + nodes + " broker" + (nodes == 1 ? "" : "s") + ")";
    }
  }

  private static String probe(PipelineSpec spec, String location) throws Exception {
    try (ObjectStore store = PipelineFactory.store(spec, location)) {
      // A metadata request for a key that need not exist: a round trip that proves reachability and
      // credentials without listing a large prefix.
      store.stat("_tributary_health_probe");
      return "UP";
    }
  }

  /**
   * One listing of the table's log (bounded: one object) and a one-byte read of what it lists: a
   * round trip that proves the table is there and that its log is readable with these settings,
   * without reading a large log. A local path is looked at first, because opening a local store
   * creates its directory.
   */
  static String probeTable(String location, S3Settings settings) throws Exception {
    if (!ObjectStores.isS3(location)) {
      Path root =
          location.regionMatches(true, 0, "file:", 0, 5)
              ? Path.of(URI.create(location))
              : Path.of(location);
      if (!Files.isDirectory(root.resolve(DELTA_LOG))) {
        return ServerMessages.noDeltaLog(location);
      }
    }
    try (ObjectStore store = ObjectStores.open(location, settings)) {
      List<ObjectInfo> log = store.sample(DELTA_LOG + "/", 1);
      if (log.isEmpty()) {
        return ServerMessages.noDeltaLog(location);
      }
      ObjectInfo first = log.get(0);
      if (first.size() > 0) {
        store.readRange(first.key(), 0, 1);
      }
      return "UP";
    } catch (IOException | RuntimeException e) {
      return ServerMessages.unreadableDeltaLog(location, Failures.describe(e, Secrets.NONE));
    }
  }
}
