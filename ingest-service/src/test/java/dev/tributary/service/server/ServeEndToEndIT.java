package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.S3TestServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docker-compose topology without Docker: a real Kafka broker process, the S3 test server and
 * {@code tributary serve} as a child JVM (secrets and token from its environment, JSON logs). Every
 * REST endpoint and the token rule are checked over HTTP, Prometheus output for the metric names,
 * and SIGTERM for a clean stop after which the next run resumes exactly.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServeEndToEndIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "e2e-token-" + UUID.randomUUID();
  private static final String AUTH = "Bearer " + TOKEN;
  private static final Duration SLOW = Duration.ofMinutes(3);

  @TempDir static Path dir;
  private static KafkaBrokerProcess broker;
  private static String clicksTopic;
  private static String historyTopic;
  private static S3TestServer s3;
  private static String bucket;
  private static Process serve;
  private static Path log;
  private static Http http;

  @BeforeAll
  static void startTopology() throws Exception {
    broker = KafkaBrokerProcess.shared();
    s3 = S3TestServer.shared();
    bucket = s3.createBucket();
    clicksTopic = broker.newTopic("clicks", 2);
    historyTopic = broker.newTopic("history", 1);
    produce(clicksTopic, 0, 200);
    produce(historyTopic, 0, 50);

    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(
        pipelines.resolve("clicks.yaml"),
        pipeline(
            "clicks",
            clicksTopic,
            "trigger: { processing-time: 300ms }\nmaintenance:\n  compaction: { schedule: \"*/2 * * * * *\", min-files: 2 }\n"));
    Files.writeString(
        pipelines.resolve("history.yaml"),
        pipeline(
            "history",
            historyTopic,
            "trigger: { available-now: true }\nbackfill: { schedule: \"0 0 2 * * *\" }\n"
                + "maintenance:\n  compaction: { schedule: \"0 0 3 * * *\", min-files: 2 }\n"));
    Files.writeString(pipelines.resolve("broken.yaml"), "pipeline: broken\nsorce: {}\n");

    int port = ChildJvm.freePort();
    log = dir.resolve("serve.log");
    serve =
        ChildJvm.start(
            List.of("-Xmx384m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of(
                "serve", "--pipelines-dir", pipelines.toString(), "--port", Integer.toString(port)),
            log,
            dir,
            Map.of(
                "S3_ACCESS_KEY",
                S3TestServer.ACCESS_KEY,
                "S3_SECRET_KEY",
                S3TestServer.SECRET_KEY,
                "TRIBUTARY_API_TOKEN",
                TOKEN,
                "TRIBUTARY_LOG_FORMAT",
                "json"));
    http = new Http("http://127.0.0.1:" + port);
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .failFast("serve exited:\n" + tail(), () -> !serve.isAlive())
        .until(() -> http.get("/api/pipelines", AUTH).statusCode() == 200);
  }

  @AfterAll
  static void stopTopology() throws Exception {
    if (serve != null && serve.isAlive()) {
      serve.destroyForcibly().waitFor();
    }
  }

  private static String pipeline(String id, String topic, String extra) {
    return """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema:
              id: long
              page: string
        sink:
          delta:
            path: s3://%s/tables/%s
        checkpoint: s3://%s/checkpoints/%s
        storage:
          s3: { endpoint: "%s", region: us-east-1, path-style: true,
                access-key: "${S3_ACCESS_KEY}", secret-key: "${S3_SECRET_KEY}" }
        %s"""
        .formatted(
            id, broker.bootstrapServers(), topic, bucket, id, bucket, id, s3.endpoint(), extra);
  }

  private static void produce(String topic, int from, int to) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", broker.bootstrapServers());
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
      for (int i = from; i < to; i++) {
        producer.send(
            new ProducerRecord<>(
                topic, Integer.toString(i), "{\"id\":" + i + ",\"page\":\"/p" + (i % 7) + "\"}"));
      }
      producer.flush();
    }
  }

  private static String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static JsonNode pipelineJson(String id) throws Exception {
    HttpResponse<String> response = http.get("/api/pipelines/" + id + "?last=100", AUTH);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static long rowsOut(String id) throws Exception {
    long total = 0;
    for (JsonNode p : pipelineJson(id).get("progress")) {
      total += p.get("outputRows").asLong();
    }
    return total;
  }

  private static String state(String id) throws Exception {
    return pipelineJson(id).get("status").get("state").asText();
  }

  private static void assertNoSecret(String text) {
    assertThat(text).doesNotContain(S3TestServer.SECRET_KEY).doesNotContain(TOKEN);
  }

  @Test
  @Order(1)
  void listsEveryPipelineWithStateLastBatchAndLag() throws Exception {
    await().atMost(SLOW).untilAsserted(() -> assertThat(rowsOut("clicks")).isEqualTo(200));
    await().atMost(SLOW).untilAsserted(() -> assertThat(state("history")).isEqualTo("IDLE"));
    assertThat(rowsOut("history")).isEqualTo(50);

    HttpResponse<String> response = http.get("/api/pipelines", AUTH);
    assertNoSecret(response.body());
    JsonNode list = JSON.readTree(response.body());
    assertThat(list.findValuesAsText("id")).containsExactly("broken", "clicks", "history");
    JsonNode broken = list.get(0);
    assertThat(broken.get("state").asText()).isEqualTo("FAILED");
    assertThat(broken.get("reason").asText()).contains("sorce");
    JsonNode clicks = list.get(1);
    assertThat(clicks.get("state").asText()).isEqualTo("RUNNING");
    assertThat(clicks.get("lag").asLong()).isZero();
    assertThat(clicks.get("lastBatch").get("pipeline").asText()).isEqualTo("clicks");
    assertThat(clicks.get("trigger").asText()).isEqualTo("processing-time 0.3s");
    assertThat(clicks.get("schedules").get("compaction").asText()).isEqualTo("*/2 * * * * *");
    assertThat(clicks.get("sink").asText()).isEqualTo("s3://" + bucket + "/tables/clicks");

    JsonNode details = JSON.readTree(http.get("/api/pipelines/clicks?last=1", AUTH).body());
    assertThat(details.get("progress")).hasSize(1);
    assertThat(details.get("status").get("id").asText()).isEqualTo("clicks");
  }

  @Test
  @Order(2)
  void readingThePipelinesNeedsTheBearerTokenToo() throws Exception {
    for (String path :
        new String[] {"/api/pipelines", "/api/pipelines/clicks", "/api/pipelines/nope"}) {
      for (String auth : new String[] {null, "Bearer wrong"}) {
        HttpResponse<String> response = http.get(path, auth);
        assertThat(response.statusCode()).as(path + " " + auth).isEqualTo(401);
        assertThat(JSON.readTree(response.body()).get("message").asText())
            .startsWith("Missing or wrong bearer token");
        assertThat(response.body()).doesNotContain("clicks", "sorce");
      }
    }
    // Other spellings of the same path are dispatched to the same endpoint: they are guarded too.
    for (String path :
        new String[] {
          "/x/../api/pipelines", "/api;p=1/pipelines", "//api/pipelines", "/api/pipelines/"
        }) {
      HttpResponse<String> response = http.get(path, null);
      assertThat(response.statusCode()).as(path + ": " + response.body()).isNotEqualTo(200);
      assertThat(response.body()).as(path).doesNotContain("clicks", "sorce");
    }
  }

  @Test
  @Order(2)
  void mutatingEndpointsNeedTheBearerToken() throws Exception {
    for (String auth : new String[] {null, "Bearer wrong", "Basic " + TOKEN}) {
      HttpResponse<String> response = http.post("/api/pipelines/clicks/stop", auth);
      assertThat(response.statusCode()).as(String.valueOf(auth)).isEqualTo(401);
      assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
      assertThat(JSON.readTree(response.body()).get("message").asText())
          .startsWith("Missing or wrong bearer token");
      assertNoSecret(response.body());
    }
    assertThat(state("clicks")).isEqualTo("RUNNING");
  }

  @Test
  @Order(3)
  void stopAndStartAPipeline() throws Exception {
    String auth = "Bearer " + TOKEN;
    HttpResponse<String> stop = http.post("/api/pipelines/clicks/stop", auth);
    assertThat(stop.statusCode()).as(stop.body()).isEqualTo(202);
    assertThat(JSON.readTree(stop.body()).get("action").asText()).isEqualTo("stop");
    await().atMost(SLOW).until(() -> state("clicks").equals("STOPPED"));
    HttpResponse<String> again = http.post("/api/pipelines/clicks/stop", auth);
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(again.body()).get("message").asText())
        .isEqualTo("Pipeline clicks has no active run to stop.");

    produce(clicksTopic, 200, 230);
    assertThat(http.post("/api/pipelines/clicks/start", auth).statusCode()).isEqualTo(202);
    await().atMost(SLOW).untilAsserted(() -> assertThat(rowsOut("clicks")).isEqualTo(230));
    HttpResponse<String> busy = http.post("/api/pipelines/clicks/start", auth);
    assertThat(busy.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(busy.body()).get("message").asText())
        .startsWith("Cannot start pipeline clicks: a run is already active");

    HttpResponse<String> broken = http.post("/api/pipelines/broken/start", auth);
    assertThat(broken.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(broken.body()).get("message").asText())
        .startsWith("Pipeline broken cannot run")
        .contains("sorce");
  }

  @Test
  @Order(4)
  void backfillRunsAnAvailableNowRun() throws Exception {
    String auth = "Bearer " + TOKEN;
    produce(historyTopic, 50, 70);
    HttpResponse<String> backfill = http.post("/api/pipelines/history/backfill", auth);
    assertThat(backfill.statusCode()).as(backfill.body()).isEqualTo(202);
    await()
        .atMost(SLOW)
        .untilAsserted(
            () -> {
              assertThat(state("history")).isEqualTo("IDLE");
              assertThat(rowsOut("history")).isEqualTo(70);
            });
    HttpResponse<String> onRunning = http.post("/api/pipelines/clicks/backfill", auth);
    assertThat(onRunning.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(onRunning.body()).get("message").asText())
        .startsWith("Cannot backfill pipeline clicks: a run is already active");
  }

  @Test
  @Order(5)
  void compactAndVacuumOnDemand() throws Exception {
    String auth = "Bearer " + TOKEN;
    await()
        .atMost(SLOW)
        .untilAsserted(
            () -> {
              HttpResponse<String> compact = http.post("/api/pipelines/history/compact", auth);
              assertThat(compact.statusCode()).as(compact.body()).isEqualTo(200);
              // Two available-now runs wrote at least two small files: the pass replaces them.
              assertThat(JSON.readTree(compact.body()).get("filesRemoved").asInt())
                  .isGreaterThanOrEqualTo(2);
            });
    HttpResponse<String> vacuum = http.post("/api/pipelines/history/vacuum?dry-run=true", auth);
    assertThat(vacuum.statusCode()).as(vacuum.body()).isEqualTo(200);
    assertThat(JSON.readTree(vacuum.body()).get("deleted").asBoolean()).isFalse();
    HttpResponse<String> unknown = http.post("/api/pipelines/nope/compact", auth);
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(unknown.body()).get("message").asText())
        .isEqualTo("No pipeline 'nope' is served; served pipelines: [broken, clicks, history].");
  }

  @Test
  @Order(6)
  void healthAndPrometheus() throws Exception {
    // Without the token: the overall status only, no component and no reason.
    HttpResponse<String> anonymous = http.get("/actuator/health");
    assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(503);
    assertThat(JSON.readTree(anonymous.body()).get("status").asText()).isEqualTo("DOWN");
    assertThat(anonymous.body()).doesNotContain("components", "sorce", "broken", "kafka", bucket);
    assertThat(http.get("/actuator/health/pipelines").body()).doesNotContain("sorce", "broken");
    assertThat(http.get("/actuator/health/readiness").statusCode()).isEqualTo(200);

    HttpResponse<String> health = http.get("/actuator/health", AUTH);
    assertNoSecret(health.body());
    assertThat(health.statusCode()).as(health.body()).isEqualTo(503); // broken.yaml is FAILED
    JsonNode components = JSON.readTree(health.body()).get("components");
    assertThat(components.get("kafka").get("status").asText()).isEqualTo("UP");
    assertThat(components.get("storage").get("status").asText()).isEqualTo("UP");
    assertThat(components.get("pipelines").get("details").get("clicks").asText())
        .isEqualTo("RUNNING");
    assertThat(http.get("/actuator/health/liveness").statusCode()).isEqualTo(200);

    await()
        .atMost(SLOW)
        .untilAsserted(
            () -> {
              String metrics = http.get("/actuator/prometheus").body();
              assertThat(metrics)
                  .contains(
                      "tributary_records_in_total{application=\"tributary\",pipeline=\"clicks\"} 230.0")
                  .contains(
                      "tributary_records_out_total{application=\"tributary\",pipeline=\"clicks\"")
                  .contains("tributary_records_quarantined_total{")
                  .contains("tributary_records_late_total{")
                  .contains("tributary_batches_total{")
                  .containsPattern(
                      "tributary_batch_duration_seconds_count\\{application=\"tributary\",phase=\"commit\",pipeline=\"clicks\"}")
                  .contains(
                      "tributary_lag{application=\"tributary\",pipeline=\"clicks\",topic=\""
                          + clicksTopic
                          + "\"} 0.0")
                  .contains("tributary_watermark_delay_seconds{")
                  .contains("tributary_state_rows{")
                  .contains("tributary_state_bytes{")
                  .contains("tributary_commit_retries_total{")
                  .contains("tributary_commit_conflicts_total{")
                  .contains(
                      "tributary_retries_total{application=\"tributary\",site=\"delta.commit\"}")
                  .contains("tributary_compaction_files_total{")
                  .contains("tributary_compaction_bytes_total{")
                  .contains(
                      "tributary_compaction_runs_total{application=\"tributary\",outcome=\"success\",pipeline=\"clicks\"}")
                  .contains(
                      "tributary_backfill_runs_total{application=\"tributary\",outcome=\"started\",pipeline=\"history\"} 1.0")
                  .contains(
                      "tributary_pipeline_state{application=\"tributary\",outcome=\"running\",pipeline=\"clicks\"} 1.0");
              assertThat(metrics).doesNotContainPattern("partition=|offset=");
            });
  }

  @Test
  @Order(7)
  void sigtermStopsCleanlyAndTheNextRunResumesExactly() throws Exception {
    produce(clicksTopic, 230, 300);
    await().atMost(SLOW).untilAsserted(() -> assertThat(rowsOut("clicks")).isGreaterThan(230));
    produce(clicksTopic, 300, 400);
    serve.destroy(); // SIGTERM
    assertThat(serve.waitFor(3, TimeUnit.MINUTES)).as(tail()).isTrue();
    String output = Files.readString(log);
    assertThat(output).contains("All pipelines stopped");
    assertNoSecret(output);
    // JSON logs were selected through TRIBUTARY_LOG_FORMAT=json.
    assertThat(output.lines().filter(l -> l.contains("Serving 3 pipeline(s)")))
        .singleElement()
        .satisfies(line -> assertThat(line).startsWith("{").contains("\"@timestamp\""));

    PipelineSpec spec =
        PipelineParser.parse(
            dir.resolve("pipelines/clicks.yaml"),
            Map.of(
                "S3_ACCESS_KEY",
                S3TestServer.ACCESS_KEY,
                "S3_SECRET_KEY",
                S3TestServer.SECRET_KEY));
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
    try (ObjectStore table = PipelineFactory.store(spec, spec.sink().path())) {
      List<Object[]> rows = TableContents.rows(table);
      Set<Long> ids = new HashSet<>();
      rows.forEach(r -> ids.add((Long) r[0]));
      assertThat(rows).hasSize(400);
      assertThat(ids).hasSize(400);
    }
  }
}
