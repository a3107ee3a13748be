package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.TributaryApplication;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.KafkaTestBroker;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A range backfill through the REST API of {@code serve} (in process, a real broker, local-disk
 * tables) while the live pipeline keeps running: the token rule, a bad range answered 400 with the
 * command's message, a body that is not JSON 400, a second backfill while one runs 409, a stop that
 * ends the job STOPPED, and the same request posted again continuing from the backfill's own
 * checkpoint to SUCCEEDED, its table then holding exactly the range's events. The live pipeline
 * stays RUNNING and writes every event into its own table.
 */
class ServeBackfillIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "backfill-token";
  private static final String AUTH = "Bearer " + TOKEN;
  private static final Duration SLOW = Duration.ofMinutes(3);

  /** Recent: the broker deletes records whose timestamps are older than its retention. */
  private static final Instant DAY =
      Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));

  private static final int EVENTS = 240; // one a minute over 4 hours
  private static final Instant FROM = DAY.plus(Duration.ofHours(1));
  private static final Instant TO = DAY.plus(Duration.ofHours(3));

  @TempDir Path dir;
  private ConfigurableApplicationContext context;
  private Http http;

  @AfterEach
  void stop() {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void aRangeBackfillFromTheApiWritesExactlyTheRangeBesideTheLivePipeline() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String topic = broker.createTopic("serve-backfill", 2);
    produce(broker, topic);
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    // Four records a batch: the backfill takes dozens of batches, so that it is still running
    // when the test posts a second one and stops it.
    Files.writeString(
        pipelines.resolve("clicks.yaml"),
        """
        pipeline: clicks
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 4
        format:
          json:
            schema: { id: long, event_ts: timestamp }
        transform:
          - derive: { id_x10: "id * 10" }
        watermark: { column: event_ts, delay: 10 minutes }
        sink:
          delta: { path: %s/tables/clicks }
        checkpoint: %s/checkpoints/clicks
        trigger: { processing-time: 100ms }
        """
            .formatted(broker.bootstrapServers(), topic, dir, dir));
    context =
        new SpringApplication(TributaryApplication.class)
            .run(
                "--tributary.pipelines-dir=" + pipelines,
                "--tributary.api-token=" + TOKEN,
                "--server.port=0");
    http =
        new Http("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
    await().atMost(SLOW).until(() -> "RUNNING".equals(liveState()));

    String into = dir.resolve("tables/clicks-fixed").toString();
    String range = range(FROM, TO, into);
    assertThat(post(range, "Bearer wrong").statusCode()).isEqualTo(401);
    HttpResponse<String> empty = post(range(TO, FROM, into), AUTH);
    assertThat(empty.statusCode()).isEqualTo(400);
    assertThat(message(empty))
        .isEqualTo(
            "Pipeline clicks: Cannot backfill: --to "
                + FROM
                + " is not after --from "
                + TO
                + "; the range [from, to) holds the events with from <= event time < to, so give"
                + " a --to later than --from.");

    HttpResponse<String> notJson = post("{\"from\": ", AUTH);
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(message(notJson)).startsWith("The request body is not the JSON this endpoint takes");

    HttpResponse<String> accepted = post(range, AUTH);
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
    JsonNode job = JSON.readTree(accepted.body());
    String first = job.get("job").asText();
    assertThat(accepted.headers().firstValue("Location"))
        .contains("/api/pipelines/clicks/backfills/" + first);
    assertThat(job.get("state").asText()).isEqualTo("RUNNING");
    assertThat(job.get("backfillId").asText()).startsWith("clicks-backfill-");

    HttpResponse<String> second = post(range(FROM, TO, into + "-2"), AUTH);
    assertThat(second.statusCode()).isEqualTo(409);
    assertThat(message(second))
        .startsWith("Cannot backfill pipeline clicks: backfill job " + first + " of [" + FROM);

    // Stopped after some of its batches: it ends STOPPED, its table holding part of the range.
    await().atMost(SLOW).until(() -> job(first).get("batches").asInt() >= 2);
    assertThat(delete(first).statusCode()).isEqualTo(202);
    await().atMost(SLOW).until(() -> "STOPPED".equals(job(first).get("state").asText()));
    assertThat(job(first).get("message").asText()).contains("POST the same from, to and into");

    // The same request again continues the same backfill to its end.
    HttpResponse<String> again = post(range, AUTH);
    assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
    String resumed = JSON.readTree(again.body()).get("job").asText();
    await()
        .atMost(SLOW)
        .failFast(() -> "FAILED".equals(job(resumed).get("state").asText()))
        .until(() -> "SUCCEEDED".equals(job(resumed).get("state").asText()));
    JsonNode done = job(resumed);
    assertThat(done.get("summary").get("resumed").asBoolean()).isTrue();
    assertThat(done.get("summary").get("target").asText()).isEqualTo(into);
    assertThat(done.get("backfillId").asText()).isEqualTo(job.get("backfillId").asText());
    assertThat(done.get("endedAt").isNull()).isFalse();

    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      if (!eventTime(i).isBefore(FROM) && eventTime(i).isBefore(TO)) {
        expected.add((long) i);
      }
    }
    assertThat(expected).hasSize(120);
    assertThat(TableContents.ids(Path.of(into))).isEqualTo(expected);

    JsonNode list = JSON.readTree(http.get("/api/pipelines/clicks/backfills", AUTH).body());
    assertThat(list).hasSize(2);
    assertThat(list.get(0).get("job").asText()).as("newest first").isEqualTo(resumed);
    assertThat(list.get(1).get("state").asText()).isEqualTo("STOPPED");
    assertThat(delete(resumed).statusCode()).as("nothing to stop").isEqualTo(409);

    // The live pipeline ran on beside it, over its own checkpoint, and writes every event.
    assertThat(liveState()).isEqualTo("RUNNING");
    await()
        .atMost(SLOW)
        .untilAsserted(
            () -> assertThat(TableContents.ids(dir.resolve("tables/clicks"))).hasSize(EVENTS));

    // The same range swapped into the live table while the pipeline runs: one commit removes the
    // range's rows and adds the recomputed ones; every event is still there once.
    HttpResponse<String> replace =
        post("{\"from\": \"%s\", \"to\": \"%s\", \"replace\": true}".formatted(FROM, TO), AUTH);
    assertThat(replace.statusCode()).as(replace.body()).isEqualTo(202);
    String swapJob = JSON.readTree(replace.body()).get("job").asText();
    await()
        .atMost(SLOW)
        .failFast(() -> "FAILED".equals(job(swapJob).get("state").asText()))
        .until(() -> "SUCCEEDED".equals(job(swapJob).get("state").asText()));
    JsonNode swap = job(swapJob).get("swap");
    assertThat(swap.get("alreadySwapped").asBoolean()).isFalse();
    assertThat(swap.get("rowsRemoved").asLong()).isEqualTo(expected.size());
    assertThat(swap.get("rowsAdded").asLong()).isEqualTo(expected.size());
    assertThat(swap.get("stagingTable").asText()).contains("_tributary_backfill");
    List<Long> all = new ArrayList<>();
    for (long i = 0; i < EVENTS; i++) {
      all.add(i);
    }
    assertThat(TableContents.ids(dir.resolve("tables/clicks"))).isEqualTo(all);
  }

  private static Instant eventTime(int i) {
    return DAY.plusSeconds(60L * i);
  }

  /**
   * Event i at DAY + i minutes in partition i % 2; every seventh reaches the broker 5 minutes late.
   */
  private static void produce(KafkaTestBroker broker, String topic) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < EVENTS; i++) {
        Instant t = eventTime(i);
        Instant arrival = i % 7 == 0 ? t.plus(Duration.ofMinutes(5)) : t;
        String value = "{\"id\":%d,\"event_ts\":\"%s\"}".formatted(i, t);
        producer.send(
            new ProducerRecord<>(
                topic,
                i % 2,
                arrival.toEpochMilli(),
                null,
                value.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }

  private static String range(Instant from, Instant to, String into) {
    return "{\"from\":\"%s\",\"to\":\"%s\",\"into\":\"%s\"}".formatted(from, to, into);
  }

  private HttpResponse<String> post(String body, String authorization) throws Exception {
    return http.client()
        .send(
            HttpRequest.newBuilder(URI.create(base() + "/api/pipelines/clicks/backfill"))
                .header("Authorization", authorization)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> delete(String job) throws Exception {
    return http.client()
        .send(
            HttpRequest.newBuilder(URI.create(base() + "/api/pipelines/clicks/backfills/" + job))
                .header("Authorization", AUTH)
                .timeout(Duration.ofSeconds(60))
                .DELETE()
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private String base() {
    return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  private JsonNode job(String id) throws Exception {
    HttpResponse<String> response = http.get("/api/pipelines/clicks/backfills/" + id, AUTH);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private String liveState() throws Exception {
    return JSON.readTree(http.get("/api/pipelines/clicks?last=1", AUTH).body())
        .get("status")
        .get("state")
        .asText();
  }

  private static String message(HttpResponse<String> response) throws Exception {
    return JSON.readTree(response.body()).get("message").asText();
  }
}
