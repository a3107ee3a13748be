package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An honest state through a broker outage: {@code tributary serve} (a child JVM, stall threshold 3
 * s) runs a processing-time pipeline; the broker process is killed. The REST API must show DEGRADED
 * with a reason that names the broker and a last-batch age that grows, health must keep the
 * pipelines component UP (the outage is the broker's: the kafka component is DOWN) with the reason,
 * the metrics must show the degraded state and the age, and Kafka's once-a-second connection
 * warning must appear only once or twice in the log. Once the broker is back, the pipeline is
 * RUNNING again by itself and every record is in the table exactly once; SIGTERM then stops the
 * service with exit code 0.
 */
class BrokerOutageIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SLOW = Duration.ofMinutes(2);
  private static final String TOPIC = "visits";
  private static final int BEFORE = 300;
  private static final int AFTER = 300;

  /**
   * Long enough for Kafka's client to warn a dozen times (once a second after a burst) without the
   * filter; with it, once per kind (the consumer's bootstrap and broker addresses, the health
   * check's admin client).
   */
  private static final Duration OUTAGE = Duration.ofSeconds(10);

  @TempDir Path dir;
  private KafkaBrokerProcess broker;
  private Process serve;
  private Path serveLog;

  @AfterEach
  void stopAll() throws Exception {
    if (serve != null && serve.isAlive()) {
      serve.destroyForcibly().waitFor();
    }
    if (broker != null) {
      broker.close();
    }
  }

  /** Seconds since the test began at each step, printed at the end (where the time goes). */
  private final StringBuilder timeline = new StringBuilder();

  private final long began = System.nanoTime();

  private void step(String what) {
    timeline.append(String.format("%6.1f s  %s%n", (System.nanoTime() - began) / 1e9, what));
  }

  @Test
  void aPipelineWithoutItsBrokerIsDegradedThenRunningAgainWithEveryRecordOnce() throws Exception {
    broker = KafkaBrokerProcess.start(dir.resolve("broker"));
    step("broker up");
    broker.createTopic(TOPIC, 2);
    produce(0, BEFORE);
    Path table = dir.resolve("tables/visits");
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(
        pipelines.resolve("visits.yaml"),
        """
        pipeline: visits
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema:
              id: long
        sink:
          delta: { path: "%s" }
        checkpoint: "%s"
        trigger: { processing-time: 500ms }
        """
            .formatted(broker.bootstrapServers(), TOPIC, table, dir.resolve("checkpoint")));
    int port = ChildJvm.freePort();
    serveLog = dir.resolve("serve.log");
    serve =
        ChildJvm.start(
            List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            "dev.tributary.service.cli.Main",
            List.of(
                "serve", "--pipelines-dir", pipelines.toString(), "--port", Integer.toString(port)),
            serveLog,
            dir,
            Map.of("TRIBUTARY_STALL_AFTER", "3s"));
    Http http = new Http("http://127.0.0.1:" + port);
    await("the records before the outage in the table")
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(300))
        .failFast("serve exited:\n" + tail(), () -> !serve.isAlive())
        .until(() -> rowCount(table) >= BEFORE);
    assertThat(status(http).get("state").asText()).isEqualTo("RUNNING");
    step("serve up, the first records in the table");

    broker.kill();
    step("broker killed");
    await("DEGRADED with the reason")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .failFast("serve exited:\n" + tail(), () -> !serve.isAlive())
        .until(() -> status(http).get("state").asText().equals("DEGRADED"));
    step("DEGRADED");
    JsonNode degraded = status(http);
    assertThat(degraded.get("reason").asText())
        .as(degraded.toString())
        .startsWith("cannot reach Kafka at " + broker.bootstrapServers() + " for ")
        .contains("no progress while");
    long ageThen = degraded.get("lastBatchAgeSeconds").asLong();
    await("the last batch's age grows")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> status(http).get("lastBatchAgeSeconds").asLong() >= ageThen + 2);

    JsonNode health = JSON.readTree(http.get("/actuator/health").body());
    JsonNode pipelinesHealth = health.get("components").get("pipelines");
    assertThat(pipelinesHealth.get("status").asText())
        .as("an outage of the broker is not the pipelines' failure: %s", health)
        .isEqualTo("UP");
    assertThat(pipelinesHealth.get("details").get("visits").asText())
        .startsWith("DEGRADED: cannot reach Kafka at " + broker.bootstrapServers());
    String metrics = http.get("/actuator/prometheus").body();
    assertThat(metrics)
        .contains(
            "tributary_pipeline_state{application=\"tributary\",outcome=\"degraded\",pipeline=\"visits\"} 1.0")
        .contains(
            "tributary_pipeline_state{application=\"tributary\",outcome=\"running\",pipeline=\"visits\"} 0.0")
        .containsPattern(
            "tributary_last_batch_age_seconds\\{application=\"tributary\",pipeline=\"visits\"} [1-9]");

    await("an outage of " + OUTAGE.toSeconds() + " s, as the reason counts it")
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> outageSeconds(status(http).get("reason").asText()) >= OUTAGE.toSeconds());
    long warnings =
        Files.readAllLines(serveLog).stream()
            .filter(l -> l.contains("could not be established"))
            .count();
    assertThat(warnings)
        .as("Kafka's connection warnings in a %s s outage; log:%n%s", OUTAGE.toSeconds(), tail())
        .isBetween(1L, 6L);

    step("outage long enough");
    broker.restart();
    step("broker back");
    produce(BEFORE, AFTER);
    await("RUNNING again and every record in the table")
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .failFast("serve exited:\n" + tail(), () -> !serve.isAlive())
        .until(
            () ->
                rowCount(table) >= BEFORE + AFTER
                    && status(http).get("state").asText().equals("RUNNING"));
    step("RUNNING again, every record in the table");
    assertThat(status(http).get("reason").isNull()).isTrue();
    assertThat(TableContents.ids(table))
        .as("every record once")
        .isEqualTo(LongStream.range(0, BEFORE + AFTER).boxed().toList());
    assertThat(Files.readString(serveLog))
        .contains("Pipeline visits is RUNNING again after an outage of");

    serve.destroy(); // SIGTERM
    assertThat(serve.waitFor(90, TimeUnit.SECONDS)).as("stopped").isTrue();
    assertThat(serve.exitValue()).as("a graceful stop; log:%n%s", tail()).isZero();
    step("serve stopped");
    System.out.print(timeline);
  }

  /** The N of a DEGRADED reason's "cannot reach ... for N s: ...". */
  private static long outageSeconds(String reason) {
    Matcher m = Pattern.compile(" for (\\d+) s: ").matcher(reason);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private static JsonNode status(Http http) throws Exception {
    return JSON.readTree(http.get("/api/pipelines/visits?last=1").body()).get("status");
  }

  private void produce(int from, int count) throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (int id = from; id < from + count; id++) {
        acks.add(
            producer.send(
                new ProducerRecord<>(TOPIC, Integer.toString(id), "{\"id\":" + id + "}")));
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get(60, TimeUnit.SECONDS);
      }
    }
  }

  private static long rowCount(Path table) throws Exception {
    return Files.exists(table.resolve("_delta_log/00000000000000000000.json"))
        ? TableContents.ids(table).size()
        : 0;
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(serveLog, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
