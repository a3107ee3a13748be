package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpStatus;

/**
 * {@code POST /api/pipelines/{id}/backfill} with a range, through the controller over a real served
 * folder: every request refused before a job starts, with its status and the message {@code
 * tributary backfill} prints for the same arguments, naming the pipeline. Nothing is read or
 * written (the broker address is closed); the runs themselves: ServeBackfillIT.
 */
class BackfillEndpointTest {
  private static final String FROM = "2026-11-01T00:00:00Z";
  private static final String TO = "2026-11-02T00:00:00Z";

  @TempDir Path dir;
  private BackfillJobs jobs;
  private PipelinesController controller;

  @BeforeEach
  void serve() throws Exception {
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(
        pipelines.resolve("clicks.yaml"),
        pipeline("clicks", "watermark: { column: event_ts, delay: 10 minutes }"));
    Files.writeString(pipelines.resolve("plain.yaml"), pipeline("plain", ""));
    ServeSettings settings =
        new ServeSettings(
            pipelines,
            Optional.of("token"),
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)),
            Duration.ofSeconds(5),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5));
    ServedPipelines served =
        new ServedPipelines(
            settings, new SimpleMeterRegistry(), new Maintenance(), Clock.systemUTC());
    jobs = new BackfillJobs(Clock.systemUTC(), Duration.ofSeconds(5));
    controller =
        new PipelinesController(
            served,
            new Maintenance(),
            new ConsumerGroups(
                Duration.ofSeconds(1), Duration.ofSeconds(1), System::nanoTime, Clock.systemUTC()),
            new TableViews(),
            jobs);
  }

  @AfterEach
  void close() {
    jobs.close();
  }

  private String pipeline(String id, String watermark) {
    return """
        pipeline: %s
        source:
          kafka: { bootstrap-servers: "127.0.0.1:1", topics: [%s] }
        format:
          json: { schema: { id: long, event_ts: timestamp } }
        %s
        sink:
          delta: { path: %s/tables/%s }
        checkpoint: %s/checkpoints/%s
        """
        .formatted(id, id, watermark, dir, id, dir, id);
  }

  private AbstractThrowableAssert<?, ? extends Throwable> refused(
      String id, BackfillRequest request, HttpStatus status) {
    return assertThatThrownBy(() -> controller.backfill(id, request))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(status));
  }

  @Test
  void aBadOrEmptyRangeIsRefusedWithTheCommandsMessageNamingThePipeline() {
    String into = dir.resolve("fixed").toString();
    refused("clicks", new BackfillRequest(FROM, FROM, into, null), HttpStatus.BAD_REQUEST)
        .hasMessage(
            "Pipeline clicks: Cannot backfill: --to "
                + FROM
                + " is not after --from "
                + FROM
                + "; the range [from, to) holds the events with from <= event time < to, so give"
                + " a --to later than --from.");
    refused("clicks", new BackfillRequest(TO, FROM, into, null), HttpStatus.BAD_REQUEST)
        .hasMessageStartingWith("Pipeline clicks: Cannot backfill: --to " + FROM);
    refused("clicks", new BackfillRequest("yesterday", TO, into, null), HttpStatus.BAD_REQUEST)
        .hasMessage(
            "Pipeline clicks: Cannot backfill: --from 'yesterday' is not an instant; write it in"
                + " UTC like 2026-11-01T00:00:00Z.");
    assertThat(jobs.of("clicks")).isEmpty();
  }

  @Test
  void anIncompleteRequestSaysWhatItNeeds() {
    String shape =
        "; send {\"from\": \"2026-11-01T00:00:00Z\", \"to\": \"2026-11-02T00:00:00Z\", \"into\":"
            + " \"PATH\"} (a new table) or {\"from\": ..., \"to\": ..., \"replace\": true}.";
    refused("clicks", new BackfillRequest(null, TO, "x", null), HttpStatus.BAD_REQUEST)
        .hasMessage(
            "Cannot backfill pipeline clicks: the request needs \"from\" and \"to\"" + shape);
    refused("clicks", new BackfillRequest(FROM, TO, null, false), HttpStatus.BAD_REQUEST)
        .hasMessage(
            "Cannot backfill pipeline clicks: the request needs \"into\" (a new table) or"
                + " \"replace\": true"
                + shape);
    refused("clicks", new BackfillRequest(FROM, TO, "x", true), HttpStatus.BAD_REQUEST)
        .hasMessage(
            "Cannot backfill pipeline clicks: \"into\" and \"replace\" exclude each other" + shape);
  }

  @Test
  void replaceIsPlannedAsTheCommandPlansItWithItsRefusals() {
    refused("plain", new BackfillRequest(FROM, TO, null, true), HttpStatus.BAD_REQUEST)
        .hasMessageStartingWith("Cannot backfill pipeline plain: it declares no event-time column");
  }

  @Test
  void thePlansRefusalsAnswer400AndAnUnknownPipeline404() {
    String live = dir.resolve("tables/clicks").toString();
    refused("clicks", new BackfillRequest(FROM, TO, live + "/", null), HttpStatus.BAD_REQUEST)
        .hasMessageStartingWith(
            "Cannot backfill pipeline clicks into " + live + "/: that is the live pipeline's own");
    refused("plain", new BackfillRequest(FROM, TO, "x", null), HttpStatus.BAD_REQUEST)
        .hasMessageStartingWith("Cannot backfill pipeline plain: it declares no event-time column");
    refused(
            "clicks",
            new BackfillRequest(FROM, TO, dir.resolve("tables/plain/copy").toString(), null),
            HttpStatus.BAD_REQUEST)
        .hasMessageContaining("would share storage with a served pipeline")
        .hasMessageContaining("of plain.");
    refused("nope", new BackfillRequest(FROM, TO, "x", null), HttpStatus.NOT_FOUND)
        .hasMessage("No pipeline 'nope' is served; served pipelines: [clicks, plain].");
    assertThatThrownBy(() -> controller.backfillJob("clicks", "0000"))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.status()).isEqualTo(HttpStatus.NOT_FOUND))
        .hasMessageStartingWith("Pipeline clicks has no backfill job '0000'");
    assertThat(controller.backfills("clicks")).isEmpty();
  }
}
