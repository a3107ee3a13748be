package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.TributaryApplication;
import dev.tributary.service.testing.KafkaTestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A burst of health requests costs the broker and the store a handful of checks, not one per
 * request, and the pipeline goes on committing batches meanwhile. Counts only: the checks that ran
 * ({@link MetricNames#HEALTH_CHECKS}) and the rows the pipeline wrote.
 */
class HealthUnderLoadIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "load-token";
  private static final int REQUESTS = 1_000;
  private static final int IN_FLIGHT = 100;

  @TempDir Path dir;
  private ConfigurableApplicationContext context;

  @AfterEach
  void stop() {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void aThousandConcurrentHealthRequestsRunAHandfulOfChecksAndThePipelineGoesOn() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String topic = broker.createTopic("health-load", 2);
    broker.send(topic, 0, values(0, 100));
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(
        pipelines.resolve("steady.yaml"),
        """
        pipeline: steady
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/tables/steady
        checkpoint: %s/checkpoints/steady
        trigger: { processing-time: 100ms }
        """
            .formatted(broker.bootstrapServers(), topic, dir, dir));
    // A cache longer than the test: every check beyond the first per target would be a request's
    // own.
    context =
        new SpringApplication(TributaryApplication.class)
            .run(
                "--tributary.pipelines-dir=" + pipelines,
                "--tributary.api-token=" + TOKEN,
                "--tributary.health-cache=1h",
                "--server.port=0");
    Http http =
        new Http("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
    await()
        .atMost(Duration.ofMinutes(2))
        .untilAsserted(() -> assertThat(rowsOut(http)).isEqualTo(100));
    MeterRegistry registry = context.getBean(MeterRegistry.class);

    Semaphore slots = new Semaphore(IN_FLIGHT);
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < REQUESTS; i++) {
      if (i == REQUESTS / 2) {
        // Half-way through the burst: records the pipeline must pick up while the burst goes on.
        broker.send(topic, 1, values(100, 200));
      }
      slots.acquire();
      String auth = i % 2 == 0 ? "Bearer " + TOKEN : null;
      answers.add(
          http.client()
              .sendAsync(
                  http.getRequest("/actuator/health", auth), HttpResponse.BodyHandlers.ofString())
              .whenComplete((r, e) -> slots.release()));
    }
    CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);

    for (CompletableFuture<HttpResponse<String>> answer : answers) {
      HttpResponse<String> response = answer.get();
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }
    JsonNode details = JSON.readTree(answers.get(0).get().body()).get("components");
    assertThat(details.get("kafka").get("status").asText()).isEqualTo("UP");
    assertThat(details.get("storage").get("status").asText()).isEqualTo("UP");
    // One cluster, two locations (sink and checkpoint): one check each for the whole burst.
    assertThat(registry.counter(MetricNames.HEALTH_CHECKS, MetricNames.CHECK, "kafka").count())
        .isEqualTo(1.0);
    assertThat(registry.counter(MetricNames.HEALTH_CHECKS, MetricNames.CHECK, "storage").count())
        .isEqualTo(2.0);
    await()
        .atMost(Duration.ofMinutes(2))
        .untilAsserted(() -> assertThat(rowsOut(http)).isEqualTo(200));
    assertThat(context.getBean(ServedPipelines.class).find("steady").orElseThrow().state())
        .isEqualTo(PipelineState.RUNNING);
  }

  private static List<String> values(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "{\"id\":" + i + "}").toList();
  }

  private static long rowsOut(Http http) throws Exception {
    HttpResponse<String> response = http.get("/api/pipelines/steady?last=100", "Bearer " + TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    long total = 0;
    for (JsonNode batch : JSON.readTree(response.body()).get("progress")) {
      total += batch.get("outputRows").asLong();
    }
    return total;
  }
}
