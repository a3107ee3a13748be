package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.checkpoint.CheckpointInUseException;
import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.Lease;
import dev.tributary.checkpoint.LeaseOwner;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.RunActivity;
import dev.tributary.service.source.NoSuchTopicException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The supervisor's outage rules, on a fake clock with runs the test drives: a run without progress
 * becomes DEGRADED after the stall threshold (reading records is progress), a transient failure
 * keeps the pipeline DEGRADED until the next run shows it works (no flapping through RUNNING), the
 * reason names what cannot be reached and for how long, and an outage that reaches the limit ends
 * in FAILED. Each step calls {@link PipelineSupervisor#check()} itself, so nothing depends on the
 * watchdog's timing (its ticks see the same fake time and change nothing more).
 */
class PipelineSupervisorTest {
  private static final Backoff FAST = new Backoff(Duration.ofMillis(5), Duration.ofMillis(20));
  private static final Duration STALL_AFTER = Duration.ofSeconds(30);

  private final FakeClock clock = new FakeClock(Instant.parse("2026-03-01T10:00:00Z"));
  private final ProgressLog progress = new ProgressLog(10, Secrets.NONE, new RunActivity(clock));
  private final RunActivity activity = progress.activity();
  private final PipelineLifecycle lifecycle =
      new PipelineLifecycle("orders", PipelineState.STARTING, null, clock, Secrets.NONE);
  private final Runs runs = new Runs();
  private final ExecutorService thread = Executors.newSingleThreadExecutor();

  @AfterEach
  void shutDown() {
    thread.shutdownNow();
  }

  private static PipelineSpec spec() {
    return PipelineParser.parse(
        """
        pipeline: orders
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
            path: /tmp/none/orders
        checkpoint: /tmp/none/orders-checkpoint
        """,
        "orders.yaml",
        Map.of());
  }

  private PipelineSupervisor supervisor(SupervisorSettings settings) {
    return new PipelineSupervisor(
        spec(), runs, settings, lifecycle, progress, clock, PipelineSupervisor.Observer.NONE);
  }

  private Future<PipelineSupervisor.Ending> start(PipelineSupervisor supervisor) {
    return thread.submit(() -> supervisor.run(TriggerSpec.DEFAULT));
  }

  private void awaitState(PipelineState state) {
    await().atMost(Duration.ofSeconds(10)).until(() -> lifecycle.state() == state);
  }

  @Test
  void aRunWithoutProgressWhilePlanningIsDegradedUntilARoundEndsWaiting() throws Exception {
    PipelineSupervisor supervisor = supervisor(SupervisorSettings.serve(FAST, STALL_AFTER));
    DrivenRun run = runs.thenRun();
    Future<PipelineSupervisor.Ending> ended = start(supervisor);
    run.awaitRunning();
    awaitState(PipelineState.RUNNING);

    activity.enter(RunActivity.Phase.PLANNING);
    clock.advance(STALL_AFTER.minusSeconds(1));
    supervisor.check();
    assertThat(lifecycle.state()).as("29 s without an answer").isEqualTo(PipelineState.RUNNING);

    clock.advance(Duration.ofSeconds(1));
    supervisor.check();
    assertThat(lifecycle.snapshot().state()).isEqualTo(PipelineState.DEGRADED);
    assertThat(lifecycle.snapshot().reason())
        .isEqualTo(
            "cannot reach Kafka at localhost:1 for 30 s: no progress while planning a batch"
                + " (no answer from the source) for 30 s");
    Instant degradedAt = lifecycle.snapshot().since();

    clock.advance(Duration.ofSeconds(12));
    supervisor.check();
    assertThat(lifecycle.snapshot().reason())
        .as("the time grows at every check")
        .startsWith("cannot reach Kafka at localhost:1 for 42 s:");
    assertThat(lifecycle.snapshot().since()).as("still the same outage").isEqualTo(degradedAt);

    activity.enter(RunActivity.Phase.WAITING); // planned, nothing to read: the source answers
    supervisor.check();
    assertThat(lifecycle.snapshot().state()).isEqualTo(PipelineState.RUNNING);
    assertThat(lifecycle.snapshot().reason()).isNull();

    supervisor.stop();
    assertThat(ended.get(10, TimeUnit.SECONDS)).isEqualTo(PipelineSupervisor.Ending.STOPPED);
    assertThat(lifecycle.state()).isEqualTo(PipelineState.STOPPED);
  }

  @Test
  void recordsReadAreProgressAndACommitWithoutAnAnswerIsTheSinks() throws Exception {
    PipelineSupervisor supervisor = supervisor(SupervisorSettings.serve(FAST, STALL_AFTER));
    DrivenRun run = runs.thenRun();
    Future<PipelineSupervisor.Ending> ended = start(supervisor);
    run.awaitRunning();
    awaitState(PipelineState.RUNNING);

    activity.enter(RunActivity.Phase.READING);
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(20));
      activity.progressed();
      supervisor.check();
    }
    assertThat(lifecycle.state())
        .as("a long batch that keeps reading is not stuck")
        .isEqualTo(PipelineState.RUNNING);
    clock.advance(STALL_AFTER);
    supervisor.check();
    assertThat(lifecycle.snapshot().reason())
        .isEqualTo(
            "cannot reach Kafka at localhost:1 for 30 s: no progress while reading a batch"
                + " (no record arrives) for 30 s");

    progress.add(batch(0));
    activity.enter(RunActivity.Phase.COMMITTING);
    supervisor.check();
    assertThat(lifecycle.state()).as("a batch completed").isEqualTo(PipelineState.RUNNING);
    clock.advance(STALL_AFTER);
    supervisor.check();
    assertThat(lifecycle.snapshot().reason())
        .startsWith(
            "cannot commit to /tmp/none/orders for 30 s: no progress while committing a batch");
    supervisor.stop();
    assertThat(ended.get(10, TimeUnit.SECONDS)).isEqualTo(PipelineSupervisor.Ending.STOPPED);
  }

  @Test
  void aTransientFailureStaysDegradedThroughTheRestartUntilABatchCompletes() throws Exception {
    PipelineSupervisor supervisor = supervisor(SupervisorSettings.serve(FAST, STALL_AFTER));
    DrivenRun first = runs.thenRun();
    DrivenRun second = runs.thenRun();
    Future<PipelineSupervisor.Ending> ended = start(supervisor);
    first.awaitRunning();
    awaitState(PipelineState.RUNNING);

    activity.enter(RunActivity.Phase.PLANNING);
    clock.advance(Duration.ofSeconds(30));
    first.fail(
        new IOException("Kafka at localhost:1 did not answer a metadata request within 30s"));
    second.awaitRunning();
    supervisor.check();

    PipelineLifecycle.Snapshot now = lifecycle.snapshot();
    assertThat(now.state())
        .as("the next run is open but has not shown that it works")
        .isEqualTo(PipelineState.DEGRADED);
    assertThat(now.restarts()).isEqualTo(1);
    assertThat(now.reason())
        .isEqualTo(
            "cannot reach Kafka at localhost:1 for 30 s: Kafka at localhost:1 did not answer a"
                + " metadata request within 30s — restart attempt 1 after 5 ms");

    clock.advance(Duration.ofSeconds(5));
    progress.add(batch(0));
    supervisor.check();
    assertThat(lifecycle.state()).isEqualTo(PipelineState.RUNNING);
    supervisor.stop();
    assertThat(ended.get(10, TimeUnit.SECONDS)).isEqualTo(PipelineSupervisor.Ending.STOPPED);
  }

  @Test
  void anOutageThatReachesTheLimitStopsTheRunAndFails() throws Exception {
    PipelineSupervisor supervisor =
        supervisor(new SupervisorSettings(FAST, STALL_AFTER, Optional.of(Duration.ofMinutes(1))));
    DrivenRun run = runs.thenRun();
    Future<PipelineSupervisor.Ending> ended = start(supervisor);
    run.awaitRunning();
    awaitState(PipelineState.RUNNING);

    activity.enter(RunActivity.Phase.PLANNING);
    clock.advance(STALL_AFTER);
    supervisor.check();
    assertThat(lifecycle.state()).isEqualTo(PipelineState.DEGRADED);
    clock.advance(Duration.ofSeconds(29));
    supervisor.check();
    assertThat(run.stopped).as("59 s: not yet").hasValue(0);

    clock.advance(Duration.ofSeconds(1));
    supervisor.check();
    assertThat(run.stopped).as("the run is asked to stop after its batch").hasValue(1);
    assertThatThrownBy(() -> ended.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(OutageLimitException.class)
        .hasMessage(
            "Pipeline orders gave up after an outage of 60 s, which reached the limit of 1 minute"
                + " (--max-outage): cannot reach Kafka at localhost:1 for 60 s: no progress while"
                + " planning a batch (no answer from the source) for 60 s. Nothing is lost: the"
                + " next run resumes from the checkpoint once the source and sink are reachable;"
                + " raise --max-outage to ride out longer outages.");
    assertThat(lifecycle.snapshot().state()).isEqualTo(PipelineState.FAILED);
    assertThat(lifecycle.snapshot().reason()).startsWith("Pipeline orders gave up after");
  }

  @Test
  void theLimitAlsoEndsABackoffWait() throws Exception {
    Backoff slow = new Backoff(Duration.ofMinutes(10), Duration.ofMinutes(10));
    PipelineSupervisor supervisor =
        supervisor(new SupervisorSettings(slow, STALL_AFTER, Optional.of(Duration.ofMinutes(1))));
    runs.thenFail(new IOException("connection refused"));
    Future<PipelineSupervisor.Ending> ended = start(supervisor);
    awaitState(PipelineState.DEGRADED);
    assertThat(lifecycle.snapshot().reason())
        .isEqualTo(
            "cannot open a run (checkpoint, tables, Kafka at localhost:1) for 0 s: connection"
                + " refused — restart attempt 1 after 600000 ms");

    clock.advance(Duration.ofMinutes(1));
    supervisor.check();
    assertThatThrownBy(() -> ended.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(OutageLimitException.class)
        .hasMessageStartingWith("Pipeline orders gave up after an outage of 60 s");
    assertThat(runs.opens).as("no second attempt").hasValue(1);
  }

  @Test
  void aLimitOfZeroGivesUpAtTheFirstTransientFailure() {
    PipelineSupervisor supervisor =
        supervisor(new SupervisorSettings(FAST, STALL_AFTER, Optional.of(Duration.ZERO)));
    runs.thenFail(new IOException("connection refused"));

    assertThatThrownBy(() -> supervisor.run(new TriggerSpec.AvailableNow()))
        .isInstanceOf(OutageLimitException.class)
        .hasMessageContaining("reached the limit of 0ms")
        .hasMessageContaining("connection refused");
    assertThat(lifecycle.state()).isEqualTo(PipelineState.FAILED);
  }

  @Test
  void aPermanentFailureIsThrownAsItIs() {
    PipelineSupervisor supervisor = supervisor(SupervisorSettings.serve(FAST, STALL_AFTER));
    CheckpointMismatchException mismatch =
        new CheckpointMismatchException("checkpoint was written by a different query", List.of());
    runs.thenFail(mismatch);

    assertThatThrownBy(() -> supervisor.run(TriggerSpec.DEFAULT)).isSameAs(mismatch);
    assertThat(lifecycle.snapshot().state()).isEqualTo(PipelineState.FAILED);
    assertThat(lifecycle.snapshot().reason())
        .contains("checkpoint was written by a different query");
  }

  @Test
  void aCheckpointAnotherProcessHoldsEndsARunButIsWaitedForWhenServed() throws Exception {
    CheckpointInUseException held =
        new CheckpointInUseException("in use by host-a, pid 42", heldLease());
    runs.thenFail(held);
    PipelineSupervisor run =
        supervisor(
            new SupervisorSettings(
                FAST,
                STALL_AFTER,
                Optional.of(Duration.ofMinutes(10)),
                SupervisorSettings.Awaited.FAIL));
    assertThatThrownBy(() -> run.run(new TriggerSpec.AvailableNow())).isSameAs(held);
    assertThat(lifecycle.snapshot().state()).isEqualTo(PipelineState.FAILED);
    assertThat(lifecycle.snapshot().reason()).contains("in use by host-a, pid 42");

    PipelineLifecycle servedLifecycle =
        new PipelineLifecycle("orders", PipelineState.STARTING, null, clock, Secrets.NONE);
    Runs servedRuns = new Runs();
    servedRuns.thenFail(new CheckpointInUseException("in use by host-a, pid 42", heldLease()));
    DrivenRun afterwards = servedRuns.thenRun();
    PipelineSupervisor served =
        new PipelineSupervisor(
            spec(),
            servedRuns,
            SupervisorSettings.serve(FAST, STALL_AFTER),
            servedLifecycle,
            progress,
            clock,
            PipelineSupervisor.Observer.NONE);
    Future<PipelineSupervisor.Ending> ended =
        thread.submit(() -> served.run(new TriggerSpec.AvailableNow()));
    afterwards.awaitRunning(); // restarted after the backoff: the other owner may have stopped
    afterwards.finish();
    assertThat(ended.get(10, TimeUnit.SECONDS)).isEqualTo(PipelineSupervisor.Ending.FINISHED);
  }

  @Test
  void aMissingTopicEndsARunButIsWaitedForWhenServed() throws Exception {
    NoSuchTopicException missing =
        new NoSuchTopicException(
            "Pipeline orders: topic 'ordrs' does not exist on b:9092", "ordrs");
    runs.thenFail(new IllegalStateException("planning failed", missing));
    PipelineSupervisor run =
        supervisor(
            new SupervisorSettings(
                FAST,
                STALL_AFTER,
                Optional.of(Duration.ofMinutes(10)),
                SupervisorSettings.Awaited.FAIL));
    assertThatThrownBy(() -> run.run(new TriggerSpec.AvailableNow())).hasCause(missing);
    assertThat(lifecycle.snapshot().state()).isEqualTo(PipelineState.FAILED);
    assertThat(lifecycle.snapshot().reason()).contains("topic 'ordrs' does not exist on b:9092");

    PipelineLifecycle servedLifecycle =
        new PipelineLifecycle("orders", PipelineState.STARTING, null, clock, Secrets.NONE);
    Runs servedRuns = new Runs();
    servedRuns.thenFail(missing);
    DrivenRun afterwards = servedRuns.thenRun();
    PipelineSupervisor served =
        new PipelineSupervisor(
            spec(),
            servedRuns,
            SupervisorSettings.serve(FAST, STALL_AFTER),
            servedLifecycle,
            progress,
            clock,
            PipelineSupervisor.Observer.NONE);
    Future<PipelineSupervisor.Ending> ended =
        thread.submit(() -> served.run(new TriggerSpec.AvailableNow()));
    afterwards.awaitRunning(); // restarted after the backoff: the topic may have been created
    assertThat(servedLifecycle.snapshot().state()).isEqualTo(PipelineState.DEGRADED);
    assertThat(servedLifecycle.snapshot().reason()).contains("topic 'ordrs' does not exist");
    afterwards.finish();
    assertThat(ended.get(10, TimeUnit.SECONDS)).isEqualTo(PipelineSupervisor.Ending.FINISHED);
  }

  private static Lease heldLease() {
    return new Lease(
        0,
        "orders",
        new LeaseOwner("id", "host-a", 42, Optional.empty(), Optional.empty(), Optional.empty()),
        Instant.EPOCH,
        Instant.EPOCH,
        Duration.ofSeconds(30),
        Optional.empty(),
        OptionalLong.empty());
  }

  @Test
  void aFiniteRunThatEndsWhileDegradedIsIdle() throws Exception {
    PipelineSupervisor supervisor = supervisor(SupervisorSettings.serve(FAST, STALL_AFTER));
    runs.thenFail(new IOException("connection refused"));
    DrivenRun second = runs.thenRun();
    Future<PipelineSupervisor.Ending> ended =
        thread.submit(() -> supervisor.run(new TriggerSpec.AvailableNow()));
    second.awaitRunning();
    assertThat(lifecycle.state()).isEqualTo(PipelineState.DEGRADED);

    second.finish(); // nothing was left to read
    assertThat(ended.get(10, TimeUnit.SECONDS)).isEqualTo(PipelineSupervisor.Ending.FINISHED);
    assertThat(lifecycle.snapshot().state()).isEqualTo(PipelineState.IDLE);
    assertThat(lifecycle.snapshot().reason()).isNull();
  }

  private static BatchProgress batch(long id) {
    return new BatchProgress(
        "orders",
        id,
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

  /** Each open takes the next step: a failure to throw, or a run the test drives. */
  private static final class Runs implements PipelineLauncher {
    final BlockingDeque<Object> steps = new LinkedBlockingDeque<>();
    final AtomicInteger opens = new AtomicInteger();

    DrivenRun thenRun() {
      DrivenRun run = new DrivenRun();
      steps.add(run);
      return run;
    }

    void thenFail(Exception failure) {
      steps.add(failure);
    }

    @Override
    public ActiveRun open(TriggerSpec trigger, ProgressLog progress) throws Exception {
      opens.incrementAndGet();
      Object step = steps.size() > 1 ? steps.poll() : steps.peek();
      if (step instanceof Exception e) {
        throw e;
      }
      return (DrivenRun) step;
    }
  }

  /** A run that blocks in run() until the test finishes or fails it, or it is stopped. */
  private static final class DrivenRun implements PipelineLauncher.ActiveRun {
    final CompletableFuture<Void> end = new CompletableFuture<>();
    final CompletableFuture<Void> running = new CompletableFuture<>();
    final AtomicInteger stopped = new AtomicInteger();

    @Override
    public void run() throws Exception {
      running.complete(null);
      try {
        end.get();
      } catch (ExecutionException e) {
        throw (Exception) e.getCause();
      }
    }

    void awaitRunning() throws Exception {
      running.get(10, TimeUnit.SECONDS);
    }

    void finish() {
      end.complete(null);
    }

    void fail(Exception failure) {
      end.completeExceptionally(failure);
    }

    @Override
    public void stop() {
      stopped.incrementAndGet();
      end.complete(null);
    }

    @Override
    public void close() {}
  }

  /** A clock the test moves. */
  private static final class FakeClock extends Clock {
    private final AtomicReference<Instant> now;

    FakeClock(Instant start) {
      this.now = new AtomicReference<>(start);
    }

    void advance(Duration by) {
      now.updateAndGet(t -> t.plus(by));
    }

    @Override
    public Instant instant() {
      return now.get();
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
