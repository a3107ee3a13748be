package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.service.engine.WriteAheadLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The agreed watermark: the minimum over every partition's latest commits entry, none until each
 * has one.
 */
class AgreedWatermarkTest {
  private static Optional<CommitEntry> commit(OptionalLong next) {
    return Optional.of(new CommitEntry(3, next, Instant.EPOCH, Map.of()));
  }

  @Test
  void theMinimumOfEveryPartitionNotTheMaximum() {
    assertThat(
            AgreedWatermark.minimum(
                List.of(
                    commit(OptionalLong.of(50)),
                    commit(OptionalLong.of(20)),
                    commit(OptionalLong.of(90)))))
        .hasValue(20);
  }

  @Test
  void noneWhileAPartitionHasNoCommitOrNoWatermark() {
    assertThat(AgreedWatermark.minimum(List.of(commit(OptionalLong.of(50)), Optional.empty())))
        .isEmpty();
    assertThat(
            AgreedWatermark.minimum(
                List.of(commit(OptionalLong.of(50)), commit(OptionalLong.empty()))))
        .isEmpty();
    assertThat(AgreedWatermark.minimum(List.of())).isEmpty();
  }

  private static Optional<CommitEntry> commitAt(long next, Instant at) {
    return Optional.of(new CommitEntry(3, OptionalLong.of(next), at, Map.of()));
  }

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  private static AgreedWatermark agreement(Optional<Duration> idleTimeout, Clock clock) {
    return new AgreedWatermark(
        n -> {
          throw new AssertionError("not read");
        },
        3,
        new AgreedWatermark.Idleness(idleTimeout, clock));
  }

  @Test
  void withoutAnIdleTimeoutAQuietPartitionHoldsTheWatermarkBackForever() {
    Clock muchLater = Clock.fixed(T0.plus(Duration.ofDays(30)), ZoneOffset.UTC);
    AgreedWatermark agreement = agreement(Optional.empty(), muchLater);
    assertThat(
            agreement.minimumOf(
                List.of(commitAt(50, T0), commitAt(900, muchLater.instant()), Optional.empty())))
        .isEmpty();
    assertThat(agreement.minimumOf(List.of(commitAt(50, T0), commitAt(900, muchLater.instant()))))
        .hasValue(50);
  }

  @Test
  void anIdlePartitionStopsHoldingTheWatermarkBackAfterTheTimeoutAndCountsAgainWhenItCommits() {
    Instant[] now = {T0};
    Clock clock =
        new Clock() {
          @Override
          public Instant instant() {
            return now[0];
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
    AgreedWatermark agreement = agreement(Optional.of(Duration.ofMinutes(5)), clock);
    Optional<CommitEntry> quiet = commitAt(50, T0);

    now[0] = T0.plus(Duration.ofMinutes(5)); // exactly the timeout: not idle yet
    assertThat(agreement.minimumOf(List.of(quiet, commitAt(900, now[0]), commitAt(700, now[0]))))
        .hasValue(50);

    now[0] = T0.plus(Duration.ofMinutes(5)).plusMillis(1); // idle: the others decide
    assertThat(agreement.minimumOf(List.of(quiet, commitAt(900, now[0]), commitAt(700, now[0]))))
        .hasValue(700);

    // It has records again: its new commit counts (the engine never lets the applied one go back).
    assertThat(
            agreement.minimumOf(
                List.of(commitAt(60, now[0]), commitAt(900, now[0]), commitAt(700, now[0]))))
        .hasValue(60);
  }

  @Test
  void aPartitionThatNeverCommittedIsIdleOnceTheTimeoutPassedSinceTheStart() {
    Instant[] now = {T0};
    Clock clock =
        new Clock() {
          @Override
          public Instant instant() {
            return now[0];
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
    AgreedWatermark agreement = agreement(Optional.of(Duration.ofMinutes(1)), clock);
    now[0] = T0.plusSeconds(30);
    List<Optional<CommitEntry>> oneNeverCommitted =
        List.of(commitAt(400, now[0]), Optional.empty(), commitAt(300, now[0]));
    assertThat(agreement.minimumOf(oneNeverCommitted)).isEmpty();
    now[0] = T0.plusSeconds(61);
    assertThat(
            agreement.minimumOf(
                List.of(commitAt(400, now[0]), Optional.empty(), commitAt(300, now[0]))))
        .hasValue(300);
  }

  @Test
  void whenEveryPartitionIsIdleNoneIsLeftOut() {
    Clock later = Clock.fixed(T0.plus(Duration.ofHours(1)), ZoneOffset.UTC);
    AgreedWatermark agreement = agreement(Optional.of(Duration.ofMinutes(5)), later);
    assertThat(agreement.minimumOf(List.of(commitAt(50, T0), commitAt(900, T0)))).hasValue(50);
  }

  @Test
  void aPartitionThatOnlyMovesItsWatermarkWithoutInputIsStillIdle() {
    Instant now = T0.plus(Duration.ofMinutes(10));
    AgreedWatermark agreement =
        agreement(Optional.of(Duration.ofMinutes(5)), Clock.fixed(now, ZoneOffset.UTC));
    // committed a moment ago, but its last batch with input was 10 minutes ago
    Optional<CommitEntry> noDataBatch =
        Optional.of(
            new CommitEntry(
                7,
                OptionalLong.of(50),
                now.minusSeconds(1),
                Map.of(WriteAheadLog.LAST_INPUT_AT, T0.toString())));
    assertThat(agreement.minimumOf(List.of(noDataBatch, commitAt(900, now), commitAt(700, now))))
        .hasValue(700);
    assertThat(AgreedWatermark.lastInput(noDataBatch.get())).isEqualTo(T0);
    assertThat(AgreedWatermark.lastInput(commitAt(1, now).get())).isEqualTo(now);
  }
}
