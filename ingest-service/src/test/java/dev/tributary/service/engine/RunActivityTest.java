package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.Secrets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a run reports about itself: phases, quiet time, completed batches. */
class RunActivityTest {
  private Instant now = Instant.parse("2026-03-01T10:00:00Z");
  private final Clock clock =
      new Clock() {
        @Override
        public Instant instant() {
          return now;
        }

        @Override
        public ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          return this;
        }
      };

  @Test
  void aPhaseChangeIsTimedAndCounted() {
    RunActivity activity = new RunActivity(clock);
    RunActivity.Snapshot opening = activity.snapshot();
    assertThat(opening.phase()).isEqualTo(RunActivity.Phase.OPENING);
    assertThat(opening.lastBatch()).isEmpty();

    now = now.plusSeconds(3);
    activity.enter(RunActivity.Phase.PLANNING);
    now = now.plusSeconds(2);
    activity.enter(RunActivity.Phase.PLANNING); // again: nothing changes
    RunActivity.Snapshot planning = activity.snapshot();
    assertThat(planning.phase()).isEqualTo(RunActivity.Phase.PLANNING);
    assertThat(planning.since()).isEqualTo(now.minusSeconds(2));
    assertThat(planning.quietSince()).isEqualTo(now.minusSeconds(2));
    assertThat(planning.changes()).isEqualTo(opening.changes() + 1);
  }

  @Test
  void aRecordReadIsNoticedByTheNextSnapshot() {
    RunActivity activity = new RunActivity(clock);
    activity.enter(RunActivity.Phase.READING);
    Instant entered = now;
    now = now.plusSeconds(10);
    assertThat(activity.snapshot().quietSince()).as("nothing read").isEqualTo(entered);

    activity.progressed();
    now = now.plusSeconds(1);
    assertThat(activity.snapshot().quietSince()).isEqualTo(now);
    now = now.plusSeconds(5);
    assertThat(activity.snapshot().quietSince())
        .as("nothing read since the previous snapshot")
        .isEqualTo(now.minusSeconds(5));
    assertThat(activity.snapshot().since()).as("still the same phase").isEqualTo(entered);
  }

  @Test
  void theProgressLogRecordsEachCompletedBatch() {
    RunActivity activity = new RunActivity(clock);
    ProgressLog log = new ProgressLog(5, Secrets.NONE, activity);
    assertThat(log.activity()).isSameAs(activity);
    now = now.plus(Duration.ofMinutes(1));
    log.add(batch());
    RunActivity.Snapshot done = activity.snapshot();
    assertThat(done.lastBatch()).isEqualTo(Optional.of(now));
    assertThat(done.batches()).isEqualTo(1);
    assertThat(done.quietSince()).isEqualTo(now);
  }

  private static BatchProgress batch() {
    return new BatchProgress(
        "p",
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
}
