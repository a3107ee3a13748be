package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.TributaryApplication;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Serve mode in-process, without a token and without a reachable broker: mutating endpoints are
 * disabled (403, never open), the read endpoints and the health details answer this loopback client
 * (and only loopback clients, see ApiAccessFilterTest) and the start says so, a file that does not
 * parse is FAILED with its reason while the other pipeline keeps retrying, and health reports Kafka
 * DOWN within its time bound.
 */
@ExtendWith(OutputCaptureExtension.class)
class ServeWithoutTokenIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  private static ConfigurableApplicationContext context;
  private static Http http;
  private static String startOutput;

  @BeforeAll
  static void serve(CapturedOutput output) throws Exception {
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(pipelines.resolve("broken.yaml"), "pipeline: broken\nsorce: {}\n");
    Files.writeString(
        pipelines.resolve("offline.yaml"),
        """
        pipeline: offline
        source:
          kafka:
            bootstrap-servers: 127.0.0.1:1
            topics: [nowhere]
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
    SpringApplication app = new SpringApplication(TributaryApplication.class);
    // Command-line properties: they win over application.yml (which sets server.port 8080).
    context =
        app.run(
            "--tributary.pipelines-dir=" + pipelines,
            "--tributary.api-token=",
            "--tributary.health-timeout=1s",
            "--tributary.restart.initial-backoff=100ms",
            "--tributary.restart.max-backoff=1s",
            "--server.port=0");
    http =
        new Http("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
    startOutput = output.getAll();
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void mutatingEndpointsAreDisabledWithoutAConfiguredToken() throws Exception {
    for (String action : new String[] {"stop", "start", "backfill", "compact", "vacuum"}) {
      HttpResponse<String> response =
          http.post("/api/pipelines/offline/" + action, "Bearer anything");
      assertThat(response.statusCode()).as(action).isEqualTo(403);
      assertThat(JSON.readTree(response.body()).get("message").asText())
          .startsWith("Mutating endpoints are disabled because no API token is configured")
          .contains("TRIBUTARY_API_TOKEN");
    }
  }

  @Test
  void anInvalidFileIsFailedWithItsReasonAndTheOtherPipelineKeepsTrying() throws Exception {
    HttpResponse<String> response = http.get("/api/pipelines");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode list = JSON.readTree(response.body());
    assertThat(list).hasSize(2);
    JsonNode broken = list.get(0);
    assertThat(broken.get("id").asText()).isEqualTo("broken");
    assertThat(broken.get("state").asText()).isEqualTo("FAILED");
    assertThat(broken.get("reason").asText()).contains("sorce");
    assertThat(list.get(1).get("id").asText()).isEqualTo("offline");
    assertThat(list.get(1).get("state").asText()).isNotEqualTo("FAILED");
  }

  @Test
  void healthIsDownWithinItsTimeBoundWhenKafkaIsUnreachable() throws Exception {
    long started = System.nanoTime();
    HttpResponse<String> response = http.get("/actuator/health");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    assertThat(response.statusCode()).isEqualTo(503);
    JsonNode components = JSON.readTree(response.body()).get("components");
    assertThat(components.get("kafka").get("status").asText()).isEqualTo("DOWN");
    assertThat(components.get("kafka").get("details").get("127.0.0.1:1").asText())
        .startsWith("DOWN");
    assertThat(components.get("pipelines").get("details").get("broken").asText())
        .startsWith("FAILED");
    assertThat(components.get("storage").get("status").asText()).isEqualTo("UP");
  }

  @Test
  void prometheusListsThePipelineMeters() throws Exception {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              HttpResponse<String> response = http.get("/actuator/prometheus");
              assertThat(response.statusCode()).isEqualTo(200);
              assertThat(response.body())
                  .contains(
                      "tributary_records_in_total{application=\"tributary\",pipeline=\"offline\"} 0.0")
                  .containsPattern(
                      "tributary_pipeline_state\\{application=\"tributary\",outcome=\"(starting|running|degraded)\","
                          + "pipeline=\"offline\"} 1.0");
            });
  }

  @Test
  void theStartSaysThatNoTokenIsConfigured() {
    assertThat(startOutput)
        .contains(
            "No API token is configured (TRIBUTARY_API_TOKEN): the pipelines API and the"
                + " health details answer only requests from loopback");
  }

  @Test
  void healthShowsItsDetailsToALoopbackClientAndProbesAreOpen() throws Exception {
    JsonNode health = JSON.readTree(http.get("/actuator/health").body());
    assertThat(health.get("components").get("pipelines").get("details").get("broken").asText())
        .startsWith("FAILED");
    assertThat(http.get("/actuator/health/liveness").statusCode()).isEqualTo(200);
  }

  @Test
  void unknownPipelinesAndBadParametersAreExplained() throws Exception {
    HttpResponse<String> unknown = http.get("/api/pipelines/nope");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(unknown.body()).get("message").asText())
        .isEqualTo("No pipeline 'nope' is served; served pipelines: [broken, offline].");
    HttpResponse<String> bad = http.get("/api/pipelines/offline?last=0");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(bad.body()).get("message").asText())
        .isEqualTo("Parameter 'last' must be between 1 and 100, was 0.");
  }
}
