package dev.tributary.checkpoint;

import static dev.tributary.checkpoint.Entries.commit;
import static dev.tributary.checkpoint.Entries.offsets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.tributary.checkpoint.internal.LocalProcess;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint lease on every kind of {@link ObjectStore}: acquire, refuse, renew, expire and
 * take over, fencing of the old owner, release on close, break. Two "processes" are two lease
 * holders with their own owner ids in this JVM; renewals are driven by the tests (no background
 * thread), and time passes through {@link #letTimePass} (a fake clock, or file times moved back),
 * never a sleep.
 */
abstract class LeaseContract {
  static final String PIPELINE = "orders-hourly";
  private static final CheckpointLease.Renewer BY_THE_TEST = (name, interval, renewal) -> () -> {};

  protected ObjectStore store;
  private final List<CheckpointLease> leases = new ArrayList<>();

  /** A new, empty store for one test. */
  protected abstract ObjectStore newStore() throws Exception;

  /** The lease duration of the tests' owners. */
  protected Duration duration() {
    return Duration.ofSeconds(30);
  }

  /** The owners' clock (the times written into lease files). */
  protected Clock clock() {
    return Clock.systemUTC();
  }

  /**
   * Lets {@code time} pass for the store: every object written so far looks {@code time} older to
   * the lease's expiry check.
   */
  protected abstract void letTimePass(Duration time) throws Exception;

  @BeforeEach
  void setUp() throws Exception {
    store = newStore();
  }

  @AfterEach
  void tearDown() throws Exception {
    leases.forEach(CheckpointLease::close);
    store.close();
  }

  /** A lease holder in this JVM with an owner id of its own: a "process" of the test. */
  protected CheckpointLease acquire() throws Exception {
    return acquire(LeaseOwner.thisProcess());
  }

  protected CheckpointLease acquire(LeaseOwner owner) throws Exception {
    CheckpointLease lease =
        CheckpointLease.acquire(
            store, PIPELINE, new LeaseSettings(duration(), clock()), owner, BY_THE_TEST);
    leases.add(lease);
    return lease;
  }

  private String text(String key) throws Exception {
    return new String(store.read(key), StandardCharsets.UTF_8);
  }

  @Test
  void theFirstOwnerTakesEpochZeroAndNamesItselfInTheFile() throws Exception {
    CheckpointLease lease = acquire();

    Lease held = lease.lease();
    LocalProcess self = LocalProcess.current();
    assertThat(held.epoch()).isZero();
    assertThat(held.pipelineId()).isEqualTo(PIPELINE);
    assertThat(held.owner().host()).isEqualTo(self.host());
    assertThat(held.owner().pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(held.released()).isFalse();
    assertThat(held.expiresAt()).isEqualTo(held.renewedAt().plus(duration()));
    assertThat(CheckpointLease.current(store)).contains(held);
    assertThat(text("lease/00000000000000000000"))
        .startsWith("v1\n{\"epoch\":0,\"pipelineId\":\"orders-hourly\",\"owner\":{\"id\":\"")
        .contains("\"pid\":" + ProcessHandle.current().pid(), "\"duration\":\"" + duration() + "\"")
        .doesNotContain("releasedAt");
  }

  @Test
  void aSecondProcessIsRefusedWhileTheLeaseIsLiveAndToldWhoHoldsIt() throws Exception {
    CheckpointLease first = acquire();
    Lease held = first.lease();

    assertThatThrownBy(this::acquire)
        .isInstanceOf(CheckpointInUseException.class)
        .hasMessageStartingWith(
            "Cannot start pipeline orders-hourly: its checkpoint "
                + store.location()
                + " is in use by another process (host "
                + held.owner().host()
                + ", pid "
                + held.owner().pid()
                + ", running pipeline orders-hourly since "
                + held.acquiredAt()
                + ").")
        .hasMessageContaining("the lease expires at ")
        .hasMessageContaining("stop the other process (a graceful stop releases the lease at once)")
        .hasMessageContaining("tributary break-lease --pipeline FILE")
        .satisfies(e -> assertThat(((CheckpointInUseException) e).holder()).isEqualTo(held));
    assertThat(CheckpointLease.current(store)).contains(held);
    first.checkHeld();
  }

  @Test
  void aLeaseNotRenewedForItsDurationIsTakenOverWithTheNextEpoch() throws Exception {
    CheckpointLease first = acquire();
    letTimePass(duration().plusSeconds(1));

    CheckpointLease second = acquire();

    assertThat(second.lease().epoch()).isEqualTo(1);
    assertThat(CheckpointLease.current(store)).contains(second.lease());
    assertThat(store.list("lease/"))
        .extracting(ObjectInfo::key)
        .contains("lease/00000000000000000000", "lease/00000000000000000001");
    second.checkHeld();
    assertThatThrownBy(first::checkHeld).isInstanceOf(LeaseLostException.class);
  }

  @Test
  void aRenewedLeaseStaysLivePastItsFirstExpiry() throws Exception {
    CheckpointLease first = acquire();
    letTimePass(duration().dividedBy(2));
    first.renew();
    // without the renewal, the lease would have expired now
    letTimePass(duration().dividedBy(2));

    assertThatThrownBy(this::acquire).isInstanceOf(CheckpointInUseException.class);
    assertThat(CheckpointLease.current(store).orElseThrow().epoch()).isZero();
  }

  @Test
  void theOldOwnerIsFencedBeforeItWritesAndToldWhoTookOver() throws Exception {
    CheckpointLease first = acquire();
    Checkpoint firstCheckpoint = Checkpoint.open(store, PIPELINE, Map.of()).fencedBy(first);
    firstCheckpoint.writeOffsets(offsets(0));
    letTimePass(duration().plusSeconds(1));
    CheckpointLease second = acquire();
    Lease successor = second.lease();

    assertThatThrownBy(() -> firstCheckpoint.writeCommit(commit(0)))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageStartingWith(
            "Pipeline orders-hourly: this process ("
                + first.lease().owner().describe()
                + ") no longer owns checkpoint "
                + store.location()
                + ": it lost its lease to "
                + successor.owner().describe()
                + " at "
                + successor.acquiredAt())
        .hasMessageContaining("It stops without writing to the checkpoint")
        .hasMessageNotContaining("Lease[");
    assertThatThrownBy(() -> firstCheckpoint.writeOffsets(offsets(1)))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(firstCheckpoint::purge).isInstanceOf(LeaseLostException.class);
    assertThat(store.stat("commits/00000000000000000000")).isEmpty();
    assertThat(store.stat("offsets/00000000000000000001")).isEmpty();

    Checkpoint secondCheckpoint = Checkpoint.open(store, PIPELINE, Map.of()).fencedBy(second);
    assertThat(secondCheckpoint.recover().action()).isEqualTo(RecoveryPlan.Action.REPLAY);
    secondCheckpoint.writeCommit(commit(0));
    secondCheckpoint.writeOffsets(offsets(1));
    assertThat(secondCheckpoint.latestOffsets()).contains(offsets(1));
  }

  @Test
  void theOldOwnerStopsRenewingAndItsCloseLeavesTheNewLeaseAlone() throws Exception {
    CheckpointLease first = acquire();
    letTimePass(duration().plusSeconds(1));
    CheckpointLease second = acquire();

    assertThatThrownBy(first::renew)
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("it lost its lease to " + second.lease().owner().describe());
    byte[] before = store.read("lease/00000000000000000000");
    first.close();

    assertThat(store.read("lease/00000000000000000000")).isEqualTo(before);
    assertThat(CheckpointLease.current(store)).contains(second.lease());
    assertThat(CheckpointLease.current(store).orElseThrow().released()).isFalse();
  }

  @Test
  void closeReleasesTheLeaseAndTheNextStartTakesItOverAtOnce() throws Exception {
    CheckpointLease first = acquire();
    first.close();

    assertThat(first.lease().released()).isTrue();
    assertThat(text("lease/00000000000000000000")).contains("\"releasedAt\":\"");
    CheckpointLease second = acquire();

    assertThat(second.lease().epoch()).isEqualTo(1);
    second.checkHeld();
  }

  @Test
  void aLeaseWhoseProcessIsGoneOnThisMachineIsTakenOverAtOnce() throws Exception {
    LocalProcess self = LocalProcess.current();
    assumeThat(self.bootId()).as("Linux: boot id and pid namespace known").isPresent();
    assumeThat(self.pidNamespace()).isPresent();
    Process ended = new ProcessBuilder("true").start();
    assertThat(ended.waitFor(30, TimeUnit.SECONDS)).isTrue();
    LeaseOwner gone =
        new LeaseOwner(
            UUID.randomUUID().toString(),
            self.host(),
            ended.pid(),
            Optional.empty(),
            self.bootId(),
            self.pidNamespace());
    acquire(gone);
    LeaseOwner elsewhere =
        new LeaseOwner(
            UUID.randomUUID().toString(),
            "another-host",
            ended.pid(),
            Optional.empty(),
            Optional.of("another-boot"),
            self.pidNamespace());

    CheckpointLease second = acquire();
    assertThat(second.lease().epoch()).isEqualTo(1);

    // The same pid on another machine may well run: that lease must expire instead.
    second.close();
    acquire(elsewhere);
    assertThatThrownBy(this::acquire)
        .isInstanceOf(CheckpointInUseException.class)
        .hasMessageContaining("host another-host, pid " + ended.pid());
  }

  @Test
  void ofSeveralProcessesStartingAtOnceExactlyOneGetsTheLease() throws Exception {
    int processes = 6;
    ExecutorService pool = Executors.newFixedThreadPool(processes);
    try {
      CyclicBarrier start = new CyclicBarrier(processes);
      List<Future<CheckpointLease>> outcomes = new ArrayList<>();
      for (int i = 0; i < processes; i++) {
        Callable<CheckpointLease> attempt =
            () -> {
              start.await();
              return acquire();
            };
        outcomes.add(pool.submit(attempt));
      }
      int winners = 0;
      for (Future<CheckpointLease> outcome : outcomes) {
        try {
          outcome.get(60, TimeUnit.SECONDS);
          winners++;
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(CheckpointInUseException.class);
        }
      }
      assertThat(winners).isEqualTo(1);
      assertThat(CheckpointLease.current(store).orElseThrow().epoch()).isZero();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aBrokenLeaseIsTakenOverAtOnceAndItsOwnerIsFenced() throws Exception {
    CheckpointLease first = acquire();
    Lease held = first.lease();

    assertThat(CheckpointLease.breakLease(store, PIPELINE, new LeaseSettings(duration(), clock())))
        .contains(held);

    assertThat(CheckpointLease.current(store).orElseThrow().brokenEpoch()).hasValue(0);
    CheckpointLease second = acquire();
    assertThat(second.lease().epoch()).isEqualTo(2);
    assertThatThrownBy(first::checkHeld)
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("its lease was broken with break-lease");
    assertThat(CheckpointLease.breakLease(store, PIPELINE, new LeaseSettings(duration(), clock())))
        .as("a live lease is broken again; a released one is not")
        .contains(second.lease());
    assertThat(CheckpointLease.breakLease(store, PIPELINE, new LeaseSettings(duration(), clock())))
        .isEmpty();
  }

  @Test
  void onlyTheLastElevenEpochsAreKept() throws Exception {
    for (int i = 0; i < 15; i++) {
      acquire().close();
    }

    assertThat(store.list("lease/"))
        .extracting(ObjectInfo::key)
        .filteredOn(k -> !k.equals("lease/clock"))
        .hasSize(11)
        .first()
        .isEqualTo("lease/00000000000000000004");
  }
}
