package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A served pipeline's protocol with scripted runs standing in for the engine (the engine itself is
 * exercised end to end by ServeEndToEndIT): restart with backoff, permanent failure, isolation,
 * stop during a batch and during a backoff wait. The supervisor's outage rules (stalls, recovery,
 * the outage limit) are in PipelineSupervisorTest.
 */
class ManagedPipelineTest {
  private static final Backoff FAST = new Backoff(Duration.ofMillis(5), Duration.ofMillis(20));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<ManagedPipeline> started = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    for (ManagedPipeline p : started) {
      p.stop();
      assertThat(p.awaitInactive(Duration.ofSeconds(10))).isTrue();
    }
  }

  private static PipelineSpec spec(String id) {
    return PipelineParser.parse(
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: localhost:1
            topics: [t]
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: /tmp/none/%s
        checkpoint: /tmp/none/%s-checkpoint
        """
            .formatted(id, id, id),
        id + ".yaml",
        Map.of());
  }

  /**
   * Each open takes the next scripted step: a failure to throw, or a run (a {@link Closing} step:
   * whose close() waits for a gate).
   */
  private static final class Script implements PipelineLauncher {
    final Deque<Object> steps = new ArrayDeque<>();
    final AtomicInteger opens = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();

    Script then(Object step) {
      steps.add(step);
      return this;
    }

    @Override
    public ActiveRun open(TriggerSpec trigger, ProgressLog progress) throws Exception {
      opens.incrementAndGet();
      Object step = steps.size() > 1 ? steps.poll() : steps.peek();
      if (step instanceof Exception e) {
        throw e;
      }
      return new BatchesUntilStopped(
          progress, trigger, closes, step instanceof Closing closing ? closing : null);
    }
  }

  /**
   * A run whose close() counts {@code entered} down, then waits for {@code gate} (a consumer slow
   * to leave its group).
   */
  private record Closing(CountDownLatch entered, CountDownLatch gate) {}

  /** Runs "batches" until stopped (or one batch for a finite trigger). */
  private static final class BatchesUntilStopped implements PipelineLauncher.ActiveRun {
    private final ProgressLog progress;
    private final TriggerSpec trigger;
    private final AtomicInteger closes;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Closing closing;

    /**
     * @param closing if not null, close() says it was entered and waits for its gate
     */
    BatchesUntilStopped(
        ProgressLog progress, TriggerSpec trigger, AtomicInteger closes, Closing closing) {
      this.progress = progress;
      this.trigger = trigger;
      this.closes = closes;
      this.closing = closing;
    }

    @Override
    public void run() throws Exception {
      progress.add(batch(progress.last(1).size()));
      if (trigger instanceof TriggerSpec.ProcessingTime) {
        stopped.await();
      }
    }

    @Override
    public void stop() {
      stopped.countDown();
    }

    @Override
    public void close() {
      if (closing != null) {
        closing.entered().countDown();
        try {
          closing.gate().await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      closes.incrementAndGet();
    }
  }

  private static BatchProgress batch(long id) {
    return new BatchProgress(
        "p",
        id,
        false,
        Instant.now(),
        10,
        9,
        1,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        List.of(new BatchProgress.PartitionProgress("t", 0, 0, 10, 15)),
        3,
        null,
        List.of(),
        Map.of("keys", 42L, "bytes", 4096L),
        2,
        1);
  }

  private ManagedPipeline managed(String id, Script script) {
    ManagedPipeline p =
        ManagedPipeline.runnable(spec(id), Path.of(id + ".yaml"), script, FAST, Clock.systemUTC());
    p.attach(new PipelineMetrics(registry, id, "/tmp/none/" + id, p::state, Clock.systemUTC()));
    started.add(p);
    return p;
  }

  @Test
  void restartsAfterTransientFailuresWithBackoffThenRuns() {
    Script script =
        new Script()
            .then(new IOException("broker down"))
            .then(new IOException("still down"))
            .then("run");
    ManagedPipeline p = managed("flaky", script);
    assertThat(p.start(TriggerSpec.DEFAULT)).isEqualTo(ManagedPipeline.StartOutcome.STARTED);

    // DEGRADED through both failures and the third opening; RUNNING once its batch completed
    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.RUNNING);
    assertThat(script.opens).hasValue(3);
    assertThat(p.status().reason()).isNull();
    assertThat(p.status().restarts()).isEqualTo(2);
    assertThat(registry.get(MetricNames.PIPELINE_RESTARTS).counter().count()).isEqualTo(2);
    assertThat(
            registry
                .get(MetricNames.PIPELINE_FAILURES)
                .tag(MetricNames.OUTCOME, "transient")
                .counter()
                .count())
        .isEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().lastBatch() != null);
    assertThat(p.status().lag()).isEqualTo(5);
    assertThat(p.status().lastBatchAt()).isNotNull();
    assertThat(p.status().lastBatchAgeSeconds()).isNotNegative();
    assertThat(p.status().activity()).as("a run is active").isNotNull();
    assertThat(registry.get(MetricNames.LAST_BATCH_AGE).gauge().value()).isNotNegative();
    assertThat(registry.get(MetricNames.RECORDS_IN).counter().count()).isEqualTo(10);
    assertThat(registry.get(MetricNames.LAG).tag(MetricNames.TOPIC, "t").gauge().value())
        .isEqualTo(5);
    assertThat(registry.get(MetricNames.STATE_ROWS).gauge().value()).isEqualTo(42);
    assertThat(registry.get(MetricNames.STATE_BYTES).gauge().value()).isEqualTo(4096);
    assertThat(registry.get(MetricNames.COMMIT_RETRIES).counter().count()).isEqualTo(2);
    assertThat(registry.get(MetricNames.COMMIT_CONFLICTS).counter().count()).isEqualTo(1);
    assertThat(
            registry.get(MetricNames.BATCH_DURATION).tag(MetricNames.PHASE, "plan").timer().count())
        .isEqualTo(1);
  }

  @Test
  void stoppedIsReportedOnlyOnceTheRunIsClosedAndThenAStartIsAccepted() throws Exception {
    Closing closing = new Closing(new CountDownLatch(1), new CountDownLatch(1));
    Script script = new Script().then(closing);
    ManagedPipeline p = managed("slow-close", script);
    p.start(TriggerSpec.DEFAULT);
    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.RUNNING);

    assertThat(p.stop()).isTrue();
    // The worker is inside close() and stays there until the gate opens: nothing can change the
    // state meanwhile, so what is seen now is what the API shows while a run closes.
    assertThat(closing.entered().await(10, TimeUnit.SECONDS)).as("close() entered").isTrue();
    assertThat(p.state()).as("still closing").isEqualTo(PipelineState.RUNNING);
    assertThat(p.active()).isTrue();
    assertThat(p.start(TriggerSpec.DEFAULT)).isEqualTo(ManagedPipeline.StartOutcome.ALREADY_ACTIVE);

    closing.gate().countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.STOPPED);
    assertThat(script.closes).hasValue(1);
    assertThat(p.stop()).as("nothing left to stop").isFalse();
    assertThat(p.start(TriggerSpec.DEFAULT)).isEqualTo(ManagedPipeline.StartOutcome.STARTED);
    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.RUNNING);
    assertThat(script.opens).hasValue(2);
  }

  @Test
  void aPermanentFailureEndsInFailedWithTheReasonAndNoRetry() {
    Script script =
        new Script()
            .then(
                new CheckpointMismatchException(
                    "Cannot start pipeline broken: checkpoint was written by a different query",
                    List.of("transform")));
    ManagedPipeline p = managed("broken", script);
    p.start(TriggerSpec.DEFAULT);

    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.FAILED);
    assertThat(p.status().reason()).contains("checkpoint was written by a different query");
    assertThat(script.opens).hasValue(1);
    assertThat(p.active()).isFalse();
    assertThat(
            registry
                .get(MetricNames.PIPELINE_STATE)
                .tag(MetricNames.PIPELINE, "broken")
                .tag(MetricNames.OUTCOME, "failed")
                .gauge()
                .value())
        .isEqualTo(1);
  }

  @Test
  void oneFailingPipelineNeverStopsAnother() {
    ManagedPipeline healthy = managed("healthy", new Script().then("run"));
    ManagedPipeline broken =
        managed(
            "doomed", new Script().then(new CheckpointMismatchException("mismatch", List.of())));
    ManagedPipeline flaky = managed("flaky", new Script().then(new IOException("always down")));
    healthy.start(TriggerSpec.DEFAULT);
    broken.start(TriggerSpec.DEFAULT);
    flaky.start(TriggerSpec.DEFAULT);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> broken.state() == PipelineState.FAILED && flaky.status().restarts() >= 3);
    assertThat(healthy.state()).isEqualTo(PipelineState.RUNNING);
    assertThat(flaky.state()).isEqualTo(PipelineState.DEGRADED);
    assertThat(flaky.status().reason())
        .startsWith("cannot open a run (checkpoint, tables, Kafka at localhost:1) for ")
        .contains("always down")
        .contains("restart attempt");
  }

  @Test
  void stopLetsTheRunEndAndClosesIt() throws InterruptedException {
    Script script = new Script().then("run");
    ManagedPipeline p = managed("stoppable", script);
    p.start(TriggerSpec.DEFAULT);
    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.RUNNING);
    assertThat(p.start(TriggerSpec.DEFAULT)).isEqualTo(ManagedPipeline.StartOutcome.ALREADY_ACTIVE);

    assertThat(p.stop()).isTrue();
    assertThat(p.awaitInactive(Duration.ofSeconds(10))).isTrue();
    assertThat(p.state()).isEqualTo(PipelineState.STOPPED);
    assertThat(script.closes).hasValue(1);
    assertThat(p.stop()).isFalse();

    assertThat(p.start(TriggerSpec.DEFAULT)).isEqualTo(ManagedPipeline.StartOutcome.STARTED);
    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.RUNNING);
  }

  @Test
  void stopCancelsABackoffWait() throws InterruptedException {
    Script script = new Script().then(new IOException("down"));
    ManagedPipeline p =
        ManagedPipeline.runnable(
            spec("slow"),
            Path.of("slow.yaml"),
            script,
            new Backoff(Duration.ofMinutes(10), Duration.ofMinutes(10)),
            Clock.systemUTC());
    started.add(p);
    p.start(TriggerSpec.DEFAULT);
    await().atMost(Duration.ofSeconds(10)).until(() -> p.state() == PipelineState.DEGRADED);

    p.stop();
    assertThat(p.awaitInactive(Duration.ofSeconds(10))).isTrue();
    assertThat(p.state()).isEqualTo(PipelineState.STOPPED);
    assertThat(script.opens).hasValue(1);
  }

  @Test
  void aFiniteRunEndsIdleAndCanRunAgain() throws InterruptedException {
    ManagedPipeline p = managed("backfill", new Script().then("run"));
    p.start(new TriggerSpec.AvailableNow());
    assertThat(p.awaitInactive(Duration.ofSeconds(10))).isTrue();
    assertThat(p.state()).isEqualTo(PipelineState.IDLE);
    assertThat(p.status().trigger()).isEqualTo("available-now");

    assertThat(p.start(new TriggerSpec.AvailableNow()))
        .isEqualTo(ManagedPipeline.StartOutcome.STARTED);
    assertThat(p.awaitInactive(Duration.ofSeconds(10))).isTrue();
    assertThat(p.progress().last(10)).hasSize(2);
  }

  @Test
  void anInvalidFileIsFailedAndNeverRuns() {
    ManagedPipeline p =
        ManagedPipeline.invalid(
            "bad",
            Path.of("bad.yaml"),
            Optional.empty(),
            "bad.yaml:3:1: unknown key 'sorce'",
            Clock.systemUTC());
    assertThat(p.start(TriggerSpec.DEFAULT)).isEqualTo(ManagedPipeline.StartOutcome.NOT_RUNNABLE);
    assertThat(p.status().state()).isEqualTo(PipelineState.FAILED);
    assertThat(p.status().reason()).isEqualTo("bad.yaml:3:1: unknown key 'sorce'");
  }
}
