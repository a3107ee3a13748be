package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page of {@code run --ui-port} over HTTP: the page and uPlot from the jar without a
 * token, the API of the run's one pipeline under the token rule (every spelling of an API path
 * included), and stop as its one action, which ends the run.
 */
class RunStatusServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "run-token";

  @TempDir Path dir;
  private PipelineSpec spec;
  private ProgressLog progress;
  private PipelineSupervisor supervisor;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final List<RunStatusServer> servers = new ArrayList<>();

  @BeforeEach
  void declare() {
    spec =
        PipelineParser.parse(
            """
            pipeline: clicks
            source: { kafka: { bootstrap-servers: localhost:9092, topics: [clicks] } }
            format: { json: { schema: { id: long, page: string } } }
            sink: { delta: { path: %s/tables/clicks } }
            checkpoint: %s/checkpoints/clicks
            """
                .formatted(dir, dir),
            "clicks.yaml",
            Map.of());
    progress = new ProgressLog(100);
    // A run that blocks until stopped: what a run of an unbounded trigger does.
    PipelineLauncher launcher =
        (trigger, log) ->
            new PipelineLauncher.ActiveRun() {
              @Override
              public void run() throws InterruptedException {
                stopped.await();
              }

              @Override
              public void stop() {
                stopped.countDown();
              }

              @Override
              public void close() {}
            };
    Clock clock = Clock.systemUTC();
    supervisor =
        new PipelineSupervisor(
            spec,
            launcher,
            new SupervisorSettings(
                new Backoff(Duration.ofMillis(10), Duration.ofMillis(10)),
                SupervisorSettings.DEFAULT_STALL_AFTER,
                Optional.empty()),
            new PipelineLifecycle("clicks", PipelineState.STARTING, null, clock, spec.secrets()),
            progress,
            clock,
            PipelineSupervisor.Observer.NONE);
  }

  @AfterEach
  void close() {
    stopped.countDown();
    servers.forEach(RunStatusServer::close);
  }

  private Http start(Optional<String> token) throws Exception {
    RunStatusServer server =
        RunStatusServer.start(
            0, token, dir.resolve("clicks.yaml"), spec, TriggerSpec.DEFAULT, progress, supervisor);
    servers.add(server);
    return new Http("http://127.0.0.1:" + server.port());
  }

  @Test
  void servesThePageAndEveryScriptItLoadsWithoutAToken() throws Exception {
    Http http = start(Optional.of(TOKEN));
    HttpResponse<String> page = http.get("/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
    List<String> assets = new ArrayList<>();
    Matcher m = Pattern.compile("(?:src|href)=\"([^\"]+)\"").matcher(page.body());
    while (m.find()) {
      assets.add(m.group(1));
    }
    assertThat(assets)
        .as("uPlot from its WebJar, the page's own script and styles")
        .contains("status.js", "status.css")
        .anyMatch(a -> a.startsWith("webjars/uplot/") && a.endsWith(".js"));
    for (String asset : assets) {
      HttpResponse<String> response = http.get("/" + asset);
      assertThat(response.statusCode()).as(asset).isEqualTo(200);
      assertThat(response.body()).as(asset).isNotBlank();
    }
    assertThat(http.get("/nothing-here.js").statusCode()).isEqualTo(404);
    assertThat(http.get("/webjars/../application.yml").statusCode()).isEqualTo(404);
  }

  @Test
  void theWebJarTheServePageLoadsIsOnTheClasspath() throws Exception {
    // Serve mode answers /webjars/** from the same classpath folder (Spring's WebJar handler).
    String page;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("static/index.html")) {
      page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher m = Pattern.compile("\"(webjars/[^\"]+)\"").matcher(page);
    int found = 0;
    while (m.find()) {
      assertThat(getClass().getClassLoader().getResource("META-INF/resources/" + m.group(1)))
          .as(m.group(1) + ": keep index.html's uPlot version equal to the pom's")
          .isNotNull();
      found++;
    }
    assertThat(found).isEqualTo(2);
  }

  @Test
  void theApiNeedsTheTokenUnderEverySpellingOfItsPaths() throws Exception {
    Http http = start(Optional.of(TOKEN));
    for (String path :
        List.of(
            "/api/pipelines",
            "/api/pipelines/clicks",
            "/api/ui",
            "/x/../api/pipelines",
            "/api//pipelines",
            "/api/pipelines/",
            "/api/./pipelines")) {
      for (String auth : new String[] {null, "Bearer wrong"}) {
        HttpResponse<String> response = http.get(path, auth);
        assertThat(response.statusCode()).as(path + " " + auth).isEqualTo(401);
        assertThat(JSON.readTree(response.body()).get("message").asText())
            .startsWith("Missing or wrong bearer token");
      }
    }
    HttpResponse<String> params = http.get("/api;p=1/pipelines", null);
    assertThat(params.statusCode()).isEqualTo(400);
    assertThat(params.body()).doesNotContain("clicks");
    // A request target starting with // names an authority: whatever it reaches, never the API.
    HttpResponse<String> authority = http.get("//api/pipelines", null);
    assertThat(authority.statusCode()).isNotEqualTo(200);
    assertThat(authority.body()).doesNotContain("clicks");
    assertThat(http.post("/api/pipelines/clicks/stop", null).statusCode()).isEqualTo(401);
    assertThat(stopped.getCount()).as("not stopped").isEqualTo(1);
  }

  @Test
  void showsTheRunsPipelineItsBatchesAndTables() throws Exception {
    Http http = start(Optional.of(TOKEN));
    String auth = "Bearer " + TOKEN;
    progress.add(batch(0, Instant.parse("2026-12-01T10:00:00Z")));
    progress.add(batch(1, Instant.parse("2026-12-01T10:00:01Z")));

    JsonNode list = JSON.readTree(http.get("/api/pipelines", auth).body());
    assertThat(list).hasSize(1);
    assertThat(list.get(0).get("id").asText()).isEqualTo("clicks");
    assertThat(list.get(0).get("state").asText()).isEqualTo("STARTING");
    assertThat(list.get(0).get("lastBatch").get("batchId").asLong()).isEqualTo(1);
    assertThat(list.get(0).get("lag").asLong()).isEqualTo(5);
    assertThat(list.get(0).get("freshnessSeconds").isNumber()).isTrue();
    assertThat(list.get(0).get("trigger").asText()).isEqualTo("processing-time 10s");

    JsonNode details = JSON.readTree(http.get("/api/pipelines/clicks?last=1", auth).body());
    assertThat(details.get("progress")).hasSize(1);
    assertThat(details.get("progress").get(0).get("startedAt").asText())
        .isEqualTo("2026-12-01T10:00:01Z");
    assertThat(details.get("progress").get(0).get("quarantinedFraction").asDouble()).isEqualTo(0.1);
    assertThat(details.has("groups")).isFalse();

    JsonNode ui = JSON.readTree(http.get("/api/ui", auth).body());
    assertThat(ui.get("mode").asText()).isEqualTo("run");
    assertThat(ui.get("actions").toString()).isEqualTo("[\"stop\"]");
    assertThat(http.get("/api/pipelines/clicks/commits", auth).body()).isEqualTo("[]");
    assertThat(http.get("/api/pipelines/clicks/quarantine?last=5", auth).body()).isEqualTo("[]");

    HttpResponse<String> unknown = http.get("/api/pipelines/orders", auth);
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("orders").contains("clicks");
    HttpResponse<String> tooMany = http.get("/api/pipelines/clicks/commits?last=51", auth);
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(tooMany.body()).contains("between 1 and 50, was 51");
  }

  @Test
  void stopIsTheOneActionAndEndsTheRun() throws Exception {
    Http http = start(Optional.of(TOKEN));
    String auth = "Bearer " + TOKEN;
    CompletableFuture<PipelineSupervisor.Ending> run =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return supervisor.run(TriggerSpec.DEFAULT);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> state(http, auth).equals("RUNNING"));

    HttpResponse<String> compact = http.post("/api/pipelines/clicks/compact", auth);
    assertThat(compact.statusCode()).isEqualTo(405);
    assertThat(JSON.readTree(compact.body()).get("message").asText())
        .contains("not offered by `tributary run --ui-port`");

    HttpResponse<String> stop = http.post("/api/pipelines/clicks/stop", auth);
    assertThat(stop.statusCode()).isEqualTo(202);
    assertThat(JSON.readTree(stop.body()).get("action").asText()).isEqualTo("stop");
    assertThat(run.get(10, TimeUnit.SECONDS)).isEqualTo(PipelineSupervisor.Ending.STOPPED);
    assertThat(state(http, auth)).isEqualTo("STOPPED");
  }

  @Test
  void withoutATokenReadsAnswerOnLoopbackAndStopIsDisabled() throws Exception {
    Http http = start(Optional.empty());
    assertThat(http.get("/api/pipelines").statusCode()).isEqualTo(200);
    HttpResponse<String> stop = http.post("/api/pipelines/clicks/stop", null);
    assertThat(stop.statusCode()).isEqualTo(403);
    assertThat(stop.body()).contains("TRIBUTARY_API_TOKEN");
    assertThat(stopped.getCount()).as("not stopped").isEqualTo(1);
  }

  private static String state(Http http, String auth) throws Exception {
    return JSON.readTree(http.get("/api/pipelines/clicks", auth).body())
        .get("status")
        .get("state")
        .asText();
  }

  private static BatchProgress batch(long id, Instant at) {
    return new BatchProgress(
        "clicks",
        id,
        false,
        at,
        10,
        9,
        1,
        0,
        0,
        10,
        20,
        500,
        Map.of("process", 400L, "commit", 100L),
        List.of(new BatchProgress.PartitionProgress("clicks", 0, id * 10, id * 10 + 10, 25)),
        id + 1,
        null,
        List.of(),
        Map.of(),
        0,
        0,
        Map.of(),
        Map.of(),
        at.minusSeconds(2));
  }
}
