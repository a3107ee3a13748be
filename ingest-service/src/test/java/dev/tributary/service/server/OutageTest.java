package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.RunActivity;
import dev.tributary.service.engine.RunActivity.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The account of one outage, on snapshots written by hand. */
class OutageTest {
  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  private final Outage outage =
      new Outage("Kafka at k:9092", "s3://t/orders", Duration.ofSeconds(30));

  private static RunActivity.Snapshot seen(
      Phase phase, Instant quietSince, long batches, long changes) {
    return new RunActivity.Snapshot(
        phase, quietSince, quietSince, Optional.empty(), batches, changes);
  }

  @Test
  void anOutageBeginsWhenTheRunWentQuietAndLastsThroughFailuresAndStalls() {
    assertThat(outage.stalled(seen(Phase.PLANNING, T0, 3, 10), T0.plusSeconds(29))).isFalse();
    assertThat(outage.ongoing()).isFalse();

    outage.failed(seen(Phase.PLANNING, T0, 3, 10), "no answer", 1, Duration.ofSeconds(1));
    assertThat(outage.lasted(T0.plusSeconds(30))).hasSeconds(30);

    Instant reopened = T0.plusSeconds(32);
    RunActivity.Snapshot stuckAgain = seen(Phase.READING, reopened, 3, 13);
    assertThat(outage.stalled(stuckAgain, reopened.plusSeconds(30))).isTrue();
    assertThat(outage.stalled(stuckAgain, reopened.plusSeconds(40))).as("already noted").isFalse();
    assertThat(outage.reason(reopened.plusSeconds(40)))
        .isEqualTo(
            "cannot reach Kafka at k:9092 for 72 s: no progress while reading a batch (no record"
                + " arrives) for 40 s");
    assertThat(outage.endIfMovedOn(seen(Phase.COMMITTING, reopened, 3, 14), reopened))
        .as("committing is not done yet")
        .isEmpty();
    assertThat(outage.endIfMovedOn(seen(Phase.COMMITTING, reopened, 4, 15), T0.plusSeconds(80)))
        .contains(Duration.ofSeconds(80));
    assertThat(outage.ongoing()).isFalse();
  }

  @Test
  void aWaitSeenBeforeTheTroubleIsNoRecovery() {
    RunActivity.Snapshot waiting = seen(Phase.WAITING, T0, 0, 5);
    outage.failed(waiting, "idle poll failed", 1, Duration.ofSeconds(1));
    assertThat(outage.endIfMovedOn(waiting, T0.plusSeconds(2))).isEmpty();
    assertThat(outage.endIfMovedOn(seen(Phase.WAITING, T0.plusSeconds(3), 0, 8), T0.plusSeconds(3)))
        .contains(Duration.ofSeconds(3));
  }

  @Test
  void givingUpLeavesTheRestartOut() {
    outage.failed(seen(Phase.COMMITTING, T0, 0, 1), "503 Slow Down", 4, Duration.ofSeconds(8));
    assertThat(outage.reason(T0.plusSeconds(5)))
        .isEqualTo(
            "cannot commit to s3://t/orders for 5 s: 503 Slow Down — restart attempt 4 after 8000 ms");
    assertThat(outage.lastReason(T0.plusSeconds(5)))
        .isEqualTo("cannot commit to s3://t/orders for 5 s: 503 Slow Down");
  }
}
