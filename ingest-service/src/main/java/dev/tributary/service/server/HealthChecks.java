package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The actuator health contributions of serve mode: {@code pipelines} (each pipeline's state; DOWN
 * when one is FAILED), {@code kafka} (every distinct bootstrap-servers list answers a cluster
 * description) and {@code storage} (every distinct sink and checkpoint location answers a metadata
 * request). Each remote check is bounded by {@link ServeSettings#healthTimeout()}; details never
 * include credentials (only locations and bootstrap addresses).
 */
final class HealthChecks {
  private HealthChecks() {}

  /** Pipelines: UP unless one is FAILED; details map each id to its state (and reason). */
  static HealthIndicator pipelines(ServedPipelines pipelines) {
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
  static HealthIndicator kafka(ServedPipelines pipelines, Duration timeout) {
    return () -> {
      Map<String, PipelineSpec> clusters = new LinkedHashMap<>();
      pipelines.all().forEach(p -> p.spec().ifPresent(s -> clusters.putIfAbsent(s.source().bootstrapServers(), s)));
      Map<String, Object> details = new LinkedHashMap<>();
      boolean down = false;
      for (Map.Entry<String, PipelineSpec> cluster : clusters.entrySet()) {
        String outcome = bounded(timeout, () -> describeCluster(cluster.getValue(), timeout));
        down |= !outcome.startsWith("UP");
        details.put(cluster.getKey(), outcome);
      }
      return (down ? Health.down() : clusters.isEmpty() ? Health.unknown() : Health.up()).withDetails(details).build();
    };
  }

  /** Object stores: a metadata request on every distinct sink and checkpoint location. */
  static HealthIndicator storage(ServedPipelines pipelines, Duration timeout) {
    return () -> {
      Map<String, PipelineSpec> locations = new LinkedHashMap<>();
      pipelines.all().forEach(p -> p.spec().ifPresent(s -> {
        locations.putIfAbsent(s.sink().path(), s);
        locations.putIfAbsent(s.checkpoint(), s);
      }));
      Map<String, Object> details = new LinkedHashMap<>();
      boolean down = false;
      for (Map.Entry<String, PipelineSpec> location : locations.entrySet()) {
        String outcome = bounded(timeout, () -> probe(location.getValue(), location.getKey()));
        down |= !outcome.startsWith("UP");
        details.put(location.getKey(), outcome);
      }
      return (down ? Health.down() : locations.isEmpty() ? Health.unknown() : Health.up()).withDetails(details).build();
    };
  }

  private static String describeCluster(PipelineSpec spec, Duration timeout) throws Exception {
    Properties props = new Properties();
    // The pipeline's consumer properties carry the security settings (SASL, TLS) the broker needs.
    props.putAll(spec.source().properties());
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, spec.source().bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tributary-health");
    try (Admin admin = Admin.create(props)) {
      int nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
          .nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).size();
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

  private static String bounded(Duration timeout, Callable<String> check) {
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "tributary-health");
      t.setDaemon(true);
      return t;
    });
    try {
      Future<String> result = executor.submit(check);
      return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return "DOWN: no answer within " + timeout.toMillis() + " ms";
    } catch (java.util.concurrent.ExecutionException e) {
      return "DOWN: " + Failures.describe(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "DOWN: interrupted";
    } finally {
      executor.shutdownNow();
    }
  }

}
