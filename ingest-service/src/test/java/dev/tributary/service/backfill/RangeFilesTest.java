package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.backfill.RangeFiles.Bounds;
import dev.tributary.table.ReplaceRangeTransaction.Placement;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How {@code --replace} places a live file against the range [10:00, 12:00). */
class RangeFilesTest {
  static final BackfillRange RANGE =
      new BackfillRange(
          Instant.parse("2026-11-01T10:00:00Z"), Instant.parse("2026-11-01T12:00:00Z"));

  static long micros(String time) {
    return BackfillRange.micros(Instant.parse("2026-11-01T" + time + "Z"));
  }

  static Optional<Bounds> exact(String min, String max) {
    return Optional.of(new Bounds(micros(min), micros(max), false, false));
  }

  @Test
  void eventsInsideOutsideAndAcross() {
    assertThat(RangeFiles.placeEvents(exact("10:00:00", "11:59:59.999999"), RANGE))
        .isEqualTo(Placement.INSIDE);
    assertThat(RangeFiles.placeEvents(exact("08:00:00", "09:59:59.999999"), RANGE))
        .isEqualTo(Placement.OUTSIDE);
    assertThat(RangeFiles.placeEvents(exact("12:00:00", "13:00:00"), RANGE))
        .isEqualTo(Placement.OUTSIDE);
    assertThat(RangeFiles.placeEvents(exact("09:59:59.999999", "10:30:00"), RANGE))
        .isEqualTo(Placement.STRADDLES);
    assertThat(RangeFiles.placeEvents(exact("11:00:00", "12:00:00"), RANGE))
        .isEqualTo(Placement.STRADDLES);
  }

  @Test
  void aMaximumThatMayBeTruncatedToMillisecondsIsReadAsItsLatestValue() {
    // 11:59:59.999 may stand for 11:59:59.999999 (inside) - still inside; 09:59:59.999 for up to
    // 09:59:59.999999 - still before the range; but a truncated 12:00:00.000 - maximum may be
    // 12:00:00.000999, so a file ending there is not inside
    Optional<Bounds> truncated =
        Optional.of(new Bounds(micros("10:00:00"), micros("11:59:59.999") + 999, false, false));
    assertThat(RangeFiles.placeEvents(truncated, RANGE)).isEqualTo(Placement.INSIDE);
    Optional<Bounds> atEnd =
        Optional.of(new Bounds(micros("10:00:00"), micros("12:00:00") + 999, false, false));
    assertThat(RangeFiles.placeEvents(atEnd, RANGE)).isEqualTo(Placement.STRADDLES);
  }

  @Test
  void nullsAndMissingStatisticsAreNeverRemovedWhole() {
    Optional<Bounds> withNulls =
        Optional.of(new Bounds(micros("10:00:00"), micros("11:00:00"), true, false));
    assertThat(RangeFiles.placeEvents(withNulls, RANGE)).isEqualTo(Placement.STRADDLES);
    assertThat(RangeFiles.placeEvents(Optional.of(new Bounds(0, 0, true, true)), RANGE))
        .isEqualTo(Placement.OUTSIDE); // a row without event time lies outside every range
    assertThat(RangeFiles.placeEvents(Optional.empty(), RANGE)).isEqualTo(Placement.STRADDLES);
  }

  @Test
  void windowsInsideOnlyWhenEveryWindowLiesInTheRange() {
    assertThat(
            RangeFiles.placeWindows(
                exact("10:00:00", "11:30:00"), exact("10:30:00", "12:00:00"), RANGE))
        .isEqualTo(Placement.INSIDE);
    // an edge window [09:30, 10:30) in the file: it is the live run's, kept by a rewrite
    assertThat(
            RangeFiles.placeWindows(
                exact("09:30:00", "11:00:00"), exact("10:30:00", "11:30:00"), RANGE))
        .isEqualTo(Placement.STRADDLES);
    // every window starts before the range, or every window ends after it
    assertThat(
            RangeFiles.placeWindows(
                exact("09:00:00", "09:30:00"), exact("09:30:00", "10:30:00"), RANGE))
        .isEqualTo(Placement.OUTSIDE);
    assertThat(
            RangeFiles.placeWindows(
                exact("11:30:00", "12:00:00"), exact("12:30:00", "13:00:00"), RANGE))
        .isEqualTo(Placement.OUTSIDE);
  }
}
