package dev.tributary.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.FaultInjectingObjectStore;
import dev.tributary.storage.testing.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The lease contract on the in-memory store, time moved by a fake clock shared by the store and the
 * owners; plus the tests whose subject does not depend on the store.
 */
class InMemoryLeaseTest extends LeaseContract {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-29T08:00:00Z"));

  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore(clock);
  }

  @Override
  protected Clock clock() {
    return clock;
  }

  @Override
  protected void letTimePass(Duration time) {
    clock.advance(time);
  }

  @Test
  void expiryIsJudgedByTheStoresClockNotTheOwnersTimes() throws Exception {
    // An owner whose clock is an hour behind writes times that look long expired; the store's
    // modification time says it renewed just now.
    MutableClock behind = new MutableClock(clock.instant().minus(Duration.ofHours(1)));
    CheckpointLease.acquire(
        store,
        PIPELINE,
        new LeaseSettings(duration(), behind),
        LeaseOwner.thisProcess(),
        (name, interval, renewal) -> () -> {});
    assertThat(CheckpointLease.current(store).orElseThrow().expiresAt()).isBefore(clock.instant());

    assertThatThrownBy(this::acquire)
        .isInstanceOf(CheckpointInUseException.class)
        .hasMessageContaining(
            "the lease expires at " + clock.instant().plus(duration()) + " (in 30 s)");
    letTimePass(duration());
    assertThat(acquire().lease().epoch()).isEqualTo(1);
  }

  @Test
  void aCorruptLeaseFileIsReportedNotTakenOver() throws Exception {
    store.putIfAbsent(
        "lease/00000000000000000003", "v1\n{\"epoch\":3}\n".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(this::acquire)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessage(
            "Cannot read checkpoint file 'lease/00000000000000000003' in "
                + store.location()
                + ": field 'owner' is missing.");
  }

  @Test
  void theBackgroundRenewerRenewsEveryThirdOfTheDuration() throws Exception {
    try (ObjectStore real = new InMemoryObjectStore();
        CheckpointLease lease =
            CheckpointLease.acquire(
                real, PIPELINE, LeaseSettings.defaults().withDuration(Duration.ofSeconds(1)))) {
      Instant first = lease.lease().renewedAt();

      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> CheckpointLease.current(real).orElseThrow().renewedAt().isAfter(first));
      assertThat(LeaseSettings.defaults().withDuration(Duration.ofSeconds(1)).renewalInterval())
          .isEqualTo(Duration.ofMillis(333).plusNanos(333_333));
    }
  }

  @Test
  void aLeaseShorterThanASecondIsRefused() {
    assertThatThrownBy(() -> LeaseSettings.defaults().withDuration(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a checkpoint lease must last at least PT1S, got PT0.5S");
  }

  @Test
  void theNextRunOfThisProcessTakesOverALeaseItsEndedRunCouldNotRelease() throws Exception {
    InMemoryObjectStore real = new InMemoryObjectStore();
    FaultInjectingObjectStore disk = new FaultInjectingObjectStore(real);
    LeaseSettings settings = LeaseSettings.defaults().withDuration(Duration.ofMinutes(10));
    CheckpointLease first = CheckpointLease.acquire(disk, PIPELINE, settings);
    disk.failNext(FaultInjectingObjectStore.Operation.PUT, 1); // a full disk
    first.close(); // the release is not written: the lease stays live for 10 minutes
    assertThat(CheckpointLease.current(real).orElseThrow().released()).isFalse();

    try (CheckpointLease next = CheckpointLease.acquire(disk, PIPELINE, settings)) {
      assertThat(next.lease().epoch()).isEqualTo(first.lease().epoch() + 1);
    }
  }
}
