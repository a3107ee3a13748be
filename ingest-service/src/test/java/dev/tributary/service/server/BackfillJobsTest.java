package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.backfill.BackfillPlan;
import dev.tributary.service.backfill.BackfillRange;
import dev.tributary.service.backfill.BackfillSummary;
import dev.tributary.service.engine.BatchProgress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpStatus;

/**
 * The job registry of range backfills: one running job per pipeline, the states a job ends in, a
 * stop before and after the run opens, the bounded history and the one-owner rule for the
 * backfill's locations. The plans are real ({@link BackfillPlan}); the work is a stand-in that
 * waits for the test, so that "still running" is a fact of the test, not a race.
 */
class BackfillJobsTest {
  private static final BackfillRange RANGE =
      new BackfillRange(
          Instant.parse("2026-11-01T00:00:00Z"), Instant.parse("2026-11-02T00:00:00Z"));

  @TempDir Path dir;
  private final BackfillJobs jobs = new BackfillJobs(Clock.systemUTC(), Duration.ofSeconds(10));
  private final List<CountDownLatch> gates = new ArrayList<>();

  @AfterEach
  void release() {
    gates.forEach(CountDownLatch::countDown);
    jobs.close();
  }

  private PipelineSpec spec(String id) {
    return PipelineParser.parse(
        """
        pipeline: %s
        source:
          kafka: { bootstrap-servers: "127.0.0.1:1", topics: [%s] }
        format:
          json: { schema: { id: long, event_ts: timestamp } }
        watermark: { column: event_ts, delay: 10 minutes }
        sink:
          delta: { path: %s/tables/%s }
        checkpoint: %s/checkpoints/%s
        """
            .formatted(id, id, dir, id, dir, id),
        id + ".yaml",
        Map.of());
  }

  private BackfillPlan plan(PipelineSpec live, String into) {
    return BackfillPlan.into(live, RANGE, dir.resolve(into).toString());
  }

  private static BackfillSummary summary(BackfillPlan plan, int batches) {
    return new BackfillSummary(
        plan.id(),
        plan.target(),
        "rows by event_ts in " + RANGE,
        batches,
        42,
        3,
        2,
        batches,
        false,
        plan.spec().checkpoint(),
        "Kafka timestamps",
        List.of());
  }

  /** A work that commits one batch, then waits for the gate (or a stop) before it returns. */
  private BackfillJob.Planned gated(BackfillPlan plan, CountDownLatch gate) {
    gates.add(gate);
    return new BackfillJob.Planned(
        plan,
        (progress, stoppable) -> {
          AtomicBoolean stopped = new AtomicBoolean();
          stoppable.accept(() -> stopped.set(true));
          progress.add(batch(plan.id()));
          while (!stopped.get() && !gate.await(10, TimeUnit.MILLISECONDS)) {
            // waiting as a run waits for its next batch
          }
          return BackfillJob.Done.into(summary(plan, 1));
        });
  }

  private static BatchProgress batch(String pipeline) {
    return new BatchProgress(
        pipeline,
        0,
        false,
        Instant.now(),
        1,
        1,
        0,
        0,
        0,
        0,
        0,
        1,
        Map.of(),
        List.of(),
        0,
        null,
        List.of(),
        Map.of(),
        0,
        0);
  }

  private BackfillJob start(PipelineSpec live, BackfillJob.Planned planned) {
    return jobs.start(
        live.id(),
        new BackfillRequest(
            RANGE.from().toString(), RANGE.to().toString(), planned.plan().target(), null),
        planned,
        Secrets.NONE,
        List.of(spec("clicks"), spec("orders")));
  }

  @Test
  void aPipelineRunsOneBackfillAtATimeAndTheJobEndsSucceededWithItsSummary() throws Exception {
    PipelineSpec clicks = spec("clicks");
    CountDownLatch gate = new CountDownLatch(1);
    BackfillJob first = start(clicks, gated(plan(clicks, "fixed"), gate));
    assertThat(first.status().state()).isEqualTo(BackfillJobState.RUNNING);
    await().untilAsserted(() -> assertThat(first.status().batches()).isEqualTo(1));

    assertThatThrownBy(() -> start(clicks, gated(plan(clicks, "other"), new CountDownLatch(1))))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.status()).isEqualTo(HttpStatus.CONFLICT))
        .hasMessage(
            "Cannot backfill pipeline clicks: backfill job "
                + first.id()
                + " of "
                + RANGE
                + " into "
                + dir.resolve("fixed")
                + " is running, and a pipeline runs one backfill at a time; wait for it to end"
                + " (GET /api/pipelines/clicks/backfills/"
                + first.id()
                + ") or stop it (DELETE the same path).");
    // another pipeline's backfill is not held up
    PipelineSpec orders = spec("orders");
    BackfillJob beside = start(orders, gated(plan(orders, "orders-fixed"), new CountDownLatch(0)));
    await().until(() -> beside.state() == BackfillJobState.SUCCEEDED);
    assertThat(first.state()).isEqualTo(BackfillJobState.RUNNING);

    gate.countDown();
    await().until(() -> first.state() == BackfillJobState.SUCCEEDED);
    BackfillJobStatus done = first.status();
    assertThat(done.endedAt()).isAfterOrEqualTo(done.startedAt());
    assertThat(done.summary().rowsAdded()).isEqualTo(42);
    assertThat(done.summary().target()).isEqualTo(dir.resolve("fixed").toString());
    assertThat(done.message()).isNull();
    assertThat(done.backfillId()).startsWith("clicks-backfill-");
    assertThat(first.stop()).as("nothing to stop once ended").isFalse();

    BackfillJob second = start(clicks, gated(plan(clicks, "other"), new CountDownLatch(0)));
    await().until(() -> second.state() == BackfillJobState.SUCCEEDED);
    assertThat(jobs.of("clicks"))
        .extracting(BackfillJob::id)
        .containsExactly(second.id(), first.id());
    assertThat(jobs.find("clicks", first.id())).contains(first);
    assertThat(jobs.find("orders", first.id())).isEmpty();
  }

  @Test
  void aStopEndsTheJobStoppedWhetherItComesBeforeOrAfterTheRunOpens() throws Exception {
    PipelineSpec clicks = spec("clicks");
    BackfillJob running = start(clicks, gated(plan(clicks, "fixed"), new CountDownLatch(1)));
    await().untilAsserted(() -> assertThat(running.status().batches()).isEqualTo(1));
    assertThat(running.stop()).isTrue();
    await().until(() -> running.state() == BackfillJobState.STOPPED);
    assertThat(running.status().message())
        .isEqualTo(
            "Stopped on request after its batch in progress. POST the same from, to and into to"
                + " /api/pipelines/clicks/backfill (or run tributary backfill with them) to"
                + " continue it from its own checkpoint.");

    // Stopped before the run opens: the stop is applied the moment it opens.
    CountDownLatch opening = new CountDownLatch(1);
    gates.add(opening);
    BackfillPlan plan = plan(clicks, "fixed");
    AtomicBoolean stoppedOnOpen = new AtomicBoolean();
    BackfillJob early =
        start(
            clicks,
            new BackfillJob.Planned(
                plan,
                (progress, stoppable) -> {
                  opening.await();
                  stoppable.accept(() -> stoppedOnOpen.set(true));
                  // a run stopped before its first batch has no table to summarize
                  throw new IllegalStateException("No value present");
                }));
    assertThat(early.stop()).isTrue();
    opening.countDown();
    await().until(() -> early.state() == BackfillJobState.STOPPED);
    assertThat(stoppedOnOpen).isTrue();
    assertThat(early.status().summary()).isNull();
  }

  @Test
  void aFailedJobKeepsItsErrorWithTheSecretsMasked() throws Exception {
    PipelineSpec clicks = spec("clicks");
    BackfillJob failing =
        jobs.start(
            "clicks",
            new BackfillRequest("a", "b", "x", null),
            new BackfillJob.Planned(
                plan(clicks, "fixed"),
                (progress, stoppable) -> {
                  throw new IllegalStateException(
                      "Cannot reach s3://bucket with key hunter22-secret");
                }),
            Secrets.of(List.of("hunter22-secret")),
            List.of());
    await().until(() -> failing.state() == BackfillJobState.FAILED);
    assertThat(failing.status().message())
        .isEqualTo("Cannot reach s3://bucket with key " + Secrets.MASK);
    assertThat(failing.status().summary()).isNull();
    assertThat(failing.status().endedAt()).isNotNull();
  }

  @Test
  void keepsTheNewestJobsOfEachPipeline() {
    PipelineSpec clicks = spec("clicks");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < BackfillJobs.KEPT + 3; i++) {
      BackfillJob job = start(clicks, gated(plan(clicks, "fixed"), new CountDownLatch(0)));
      await().until(() -> job.state().ended());
      ids.add(0, job.id());
    }
    assertThat(jobs.of("clicks"))
        .extracting(BackfillJob::id)
        .containsExactlyElementsOf(ids.subList(0, BackfillJobs.KEPT));
  }

  @Test
  void aBackfillMayNotWriteWhereAServedPipelineOrARunningBackfillDoes() {
    PipelineSpec clicks = spec("clicks");
    PipelineSpec orders = spec("orders");
    String inside = dir.resolve("tables/orders/fixed").toString();
    assertThatThrownBy(
            () -> start(clicks, gated(plan(clicks, "tables/orders/fixed"), new CountDownLatch(0))))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.status()).isEqualTo(HttpStatus.BAD_REQUEST))
        .hasMessage(
            "Cannot backfill pipeline clicks into "
                + inside
                + ": the backfill's table, quarantine or checkpoint would share storage with a"
                + " served pipeline or a running backfill, whose vacuum or rewrite could delete"
                + " its files. Its table '"
                + inside
                + "' overlaps the table '"
                + dir.resolve("tables/orders")
                + "' of orders. Give the backfill a path of its own, beside the pipelines'"
                + " tables.");
    assertThat(jobs.of("clicks")).isEmpty();

    BackfillJob running = start(clicks, gated(plan(clicks, "shared"), new CountDownLatch(1)));
    assertThatThrownBy(() -> start(orders, gated(plan(orders, "shared"), new CountDownLatch(0))))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("Its table '" + dir.resolve("shared") + "' overlaps the table")
        .hasMessageContaining("of " + running.spec().id() + ".");
  }

  /**
   * A replace stages inside its own pipeline's table (by design), but still may not share another
   * pipeline's storage, nor a running backfill's.
   */
  @Test
  void aReplaceStagesInsideItsOwnLiveTableOnly() {
    PipelineSpec clicks = spec("clicks");
    BackfillPlan replace = BackfillPlan.replace(clicks, RANGE);
    assertThat(replace.stagesInLiveTable()).isTrue();
    assertThat(plan(clicks, "fixed").stagesInLiveTable()).isFalse();
    BackfillJob staged = start(clicks, gated(replace, new CountDownLatch(1)));
    assertThat(staged.state()).isEqualTo(BackfillJobState.RUNNING);

    PipelineSpec orders = spec("orders");
    String intoStaging = "tables/clicks/_tributary_backfill/x";
    assertThatThrownBy(() -> start(orders, gated(plan(orders, intoStaging), new CountDownLatch(0))))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining(
            "overlaps the table '" + dir.resolve("tables/clicks") + "' of clicks");
  }
}
