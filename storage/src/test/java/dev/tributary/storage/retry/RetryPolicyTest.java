package dev.tributary.storage.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The policy's schedule, limits and counts, on a fake clock: nothing here really waits. */
class RetryPolicyTest {
  /** A clock that only moves when an attempt or a wait says so. */
  private long now = 1_000_000_000L;

  private final List<Duration> waits = new ArrayList<>();
  private final Sleeper sleeper =
      wait -> {
        waits.add(wait);
        now += wait.toNanos();
      };

  private <T, E extends Exception> T call(RetryPolicy policy, RetryPolicy.Attempt<T, E> attempt)
      throws E {
    return policy.call(attempt, sleeper, () -> now);
  }

  private static RetryPolicy retryingIo(String site) {
    return RetryPolicy.named(site).retryingOn(IOException.class::isInstance);
  }

  @Test
  void backoffDoublesFromTheInitialDelayUpToTheMaximum() {
    RetryPolicy policy =
        retryingIo("test.backoff")
            .withMaxAttempts(6)
            .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(1));
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                call(
                    policy,
                    n -> {
                      attempts.set(n);
                      throw new IOException("attempt " + n + " failed");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("attempt 6 failed");

    assertThat(attempts).hasValue(6);
    assertThat(waits)
        .containsExactly(
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(800),
            Duration.ofSeconds(1));
  }

  @Test
  void jitterDrawsEachWaitFromItsShareBelowTheDelay() throws IOException {
    RetryPolicy policy =
        retryingIo("test.jitter")
            .withMaxAttempts(4)
            .withBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
            .withJitter(0.5);
    List<List<Duration>> schedules = new ArrayList<>();
    for (int run = 0; run < 300; run++) {
      waits.clear();
      call(
          policy,
          n -> {
            if (n < 4) {
              throw new IOException("not yet");
            }
            return n;
          });
      schedules.add(List.copyOf(waits));
    }

    long[] delays = {100, 200, 400};
    for (int i = 0; i < delays.length; i++) {
      long d = Duration.ofMillis(delays[i]).toNanos();
      int retry = i;
      List<Long> drawn = schedules.stream().map(s -> s.get(retry).toNanos()).toList();
      assertThat(drawn).allSatisfy(w -> assertThat(w).isBetween(d / 2, d));
      // Spread over the range, not stuck at one end: 300 uniform draws cover both quarters.
      assertThat(drawn).anySatisfy(w -> assertThat(w).isLessThan(d * 5 / 8));
      assertThat(drawn).anySatisfy(w -> assertThat(w).isGreaterThan(d * 7 / 8));
    }
  }

  @Test
  void fullJitterMayWaitAnythingUpToTheDelay() throws IOException {
    RetryPolicy policy =
        retryingIo("test.full-jitter")
            .withMaxAttempts(2)
            .withBackoff(Duration.ofMillis(100), Duration.ofMillis(100))
            .withJitter(1);
    for (int run = 0; run < 200; run++) {
      call(
          policy,
          n -> {
            if (n == 1) {
              throw new IOException("once");
            }
            return n;
          });
    }

    assertThat(waits)
        .hasSize(200)
        .allSatisfy(w -> assertThat(w).isBetween(Duration.ZERO, Duration.ofMillis(100)))
        .anySatisfy(w -> assertThat(w).isLessThan(Duration.ofMillis(25)));
  }

  @Test
  void noRetryStartsAfterTheTotalTimeLimit() {
    RetryPolicy policy =
        retryingIo("test.total-time")
            .withMaxAttempts(100)
            .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
            .withMaxTotalTime(Duration.ofSeconds(10));
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                call(
                    policy,
                    n -> {
                      attempts.set(n);
                      now += Duration.ofSeconds(2).toNanos(); // each attempt takes 2 s
                      throw new IOException("slow failure " + n);
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("slow failure 4");

    // Attempts start at 0, 3, 6, 9 s; a fifth would start at 12 s, past the 10 s limit.
    assertThat(attempts).hasValue(4);
    assertThat(waits).hasSize(3);
  }

  @Test
  void thePredicateDecidesWhatIsRetried() {
    RetryPolicy policy =
        RetryPolicy.named("test.predicate")
            .withMaxAttempts(5)
            .retryingOn(
                e -> e instanceof IOException io && io.getMessage().startsWith("transient"));
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                call(
                    policy,
                    n -> {
                      attempts.set(n);
                      throw new IOException(n < 3 ? "transient " + n : "permanent " + n);
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("permanent 3");
    assertThat(attempts).hasValue(3);

    assertThatThrownBy(
            () ->
                call(
                    policy,
                    n -> {
                      attempts.set(n);
                      throw new IllegalStateException("a bug, not a transient failure");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a bug, not a transient failure");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void aNewPolicyRetriesNothing() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                call(
                    RetryPolicy.named("test.default").withMaxAttempts(5),
                    n -> {
                      attempts.set(n);
                      throw new IOException("not declared retryable");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("not declared retryable");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void runtimeExceptionsCanBeRetriedAndErrorsPassAtOnce() {
    RetryPolicy policy =
        RetryPolicy.named("test.runtime")
            .withMaxAttempts(3)
            .retryingOn(e -> true); // even "everything" never catches an Error
    AtomicInteger attempts = new AtomicInteger();

    String result =
        call(
            policy,
            n -> {
              if (n < 3) {
                throw new IllegalStateException("flaky");
              }
              return "done at " + n;
            });
    assertThat(result).isEqualTo("done at 3");

    assertThatThrownBy(
            () ->
                call(
                    policy,
                    n -> {
                      attempts.set(n);
                      throw new AssertionError("an error");
                    }))
        .isInstanceOf(AssertionError.class)
        .hasMessage("an error");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void countsEachRetryUnderItsSite() throws IOException {
    RetryPolicy policy = retryingIo("test.counted").withMaxAttempts(4);
    long before = RetryCounters.retries("test.counted");

    call(policy, n -> "first time");
    assertThat(RetryCounters.retries("test.counted")).isEqualTo(before);

    call(
        policy,
        n -> {
          if (n < 3) {
            throw new IOException("again");
          }
          return n;
        });
    assertThatThrownBy(
            () ->
                call(
                    policy,
                    n -> {
                      throw new IOException("always");
                    }))
        .hasMessage("always");

    // 2 retries, then 3 (the 4th failure ends the call without a retry).
    assertThat(RetryCounters.retries("test.counted")).isEqualTo(before + 5);
    assertThat(RetryCounters.snapshot()).containsEntry("test.counted", before + 5);
  }

  @Test
  void watchersSeeEachSiteOnceWhetherKnownBeforeOrAfter() throws Exception {
    RetryPolicy.named("test.watched-early");
    List<String> seen = new ArrayList<>();
    try (AutoCloseable watching = RetryCounters.watch(seen::add)) {
      RetryPolicy.named("test.watched-late");
      RetryPolicy.named("test.watched-late").withMaxAttempts(3);
    }
    RetryPolicy.named("test.watched-after-close");

    assertThat(seen).containsOnlyOnce("test.watched-early", "test.watched-late");
    assertThat(seen).doesNotContain("test.watched-after-close");
  }

  @Test
  void siteNamesMustBeLowCardinalityTags() {
    assertThatThrownBy(() -> RetryPolicy.named("s3://bucket/key"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Retry site 's3://bucket/key' is not a low-cardinality metric tag: use dotted lowercase"
                + " words such as delta.commit or s3.put-if-absent");
  }

  @Test
  void limitsAreChecked() {
    assertThatThrownBy(() -> RetryPolicy.named("test.limits").withMaxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Retry site test.limits: maxAttempts must be at least 1, was 0");
    assertThatThrownBy(
            () ->
                RetryPolicy.named("test.limits")
                    .withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Retry site test.limits: delays must satisfy 0 <= initial <= max, were PT2S and PT1S");
    assertThatThrownBy(() -> RetryPolicy.named("test.limits").withJitter(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Retry site test.limits: jitter must be between 0 and 1, was 1.5");
    assertThatThrownBy(() -> RetryPolicy.named("test.limits").withMaxTotalTime(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Retry site test.limits: maxTotalTime must be positive, was PT0S");
  }

  @Test
  void zeroDelaysRetryAtOnce() throws IOException {
    RetryPolicy policy = retryingIo("test.no-delay").withMaxAttempts(3);

    int result =
        call(
            policy,
            n -> {
              if (n < 3) {
                throw new IOException("again");
              }
              return n;
            });

    assertThat(result).isEqualTo(3);
    assertThat(waits).isEmpty();
  }

  @Test
  void anInterruptEndsTheWaitAndStaysSet() {
    Thread.currentThread().interrupt();
    try {
      long start = System.nanoTime();
      Sleeper.THREAD.sleep(Duration.ofMinutes(10));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMinutes(1));
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aCallerWithItsOwnLoopWaitsByTheSameSchedule() {
    RetryPolicy restarts =
        RetryPolicy.named("test.restart")
            .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    assertThat(restarts.delayBeforeRetry(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(restarts.delayBeforeRetry(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(restarts.delayBeforeRetry(5)).isEqualTo(Duration.ofSeconds(16));
    assertThat(restarts.delayBeforeRetry(6)).isEqualTo(Duration.ofSeconds(30));
    assertThat(restarts.delayBeforeRetry(1000)).isEqualTo(Duration.ofSeconds(30));
    assertThat(RetryPolicy.named("test.none").delayBeforeRetry(3)).isZero();
    assertThatThrownBy(() -> restarts.delayBeforeRetry(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retries count from 1, was 0");
  }
}
