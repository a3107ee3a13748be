package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The per-side state watermark, checked against Spark's arithmetic (StreamingJoinHelper's
 * getStateWatermarkFromLessThenPredicate: {@code ((W_ms × 1000.0 + c) / 1000.0).toLong}, minus 1 ms
 * for {@code <=}/{@code >=}, the minimum over conjuncts; docs/STREAM_JOINS_SPARK_RULES.md, S2r).
 */
class TimeBoundsTest {

  private static final long MINUTE_MS = 60_000L;

  /** 2026-12-02T10:00:00Z in milliseconds: a batch's W_evict. */
  private static final long W_MS = 1_796_205_600_000L;

  private static final Optional<String> LEFT_WM = Optional.of("ts");
  private static final Optional<String> RIGHT_WM = Optional.of("p_ts");

  static TimeBounds bounds(String condition, Optional<String> left, Optional<String> right) {
    return new TimeBounds(
        TimeConditionTest.parse(condition).bounds(), left, right, Optional.empty());
  }

  static OptionalLong stateMs(TimeBounds bounds, JoinSide side) {
    OptionalLong micros = bounds.stateWatermarkMicros(side, W_MS * 1000);
    return micros.isEmpty() ? micros : OptionalLong.of(micros.getAsLong() / 1000);
  }

  @Test
  void theSeedQueryKeepsClicksThirtyMinutesLongerThanPurchases() {
    TimeBounds seed = bounds("p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES", LEFT_WM, RIGHT_WM);

    assertThat(stateMs(seed, JoinSide.LEFT)).hasValue(W_MS - 30 * MINUTE_MS - 1);
    assertThat(stateMs(seed, JoinSide.RIGHT)).hasValue(W_MS - 1);
    assertThat(seed.describe(JoinSide.LEFT))
        .isEqualTo("left state keeps ts > watermark − 30 min − 1 ms");
    assertThat(seed.describe(JoinSide.RIGHT))
        .isEqualTo("right state keeps p_ts > watermark − 1 ms");
    assertThat(seed.evictionColumn(JoinSide.LEFT)).hasValue("ts");
  }

  @Test
  void aStrictComparisonDoesNotSubtractTheMillisecond() {
    TimeBounds strict = bounds("p_ts > ts AND p_ts < ts + INTERVAL 30 MINUTES", LEFT_WM, RIGHT_WM);

    assertThat(stateMs(strict, JoinSide.LEFT)).hasValue(W_MS - 30 * MINUTE_MS);
    assertThat(stateMs(strict, JoinSide.RIGHT)).hasValue(W_MS);
    assertThat(strict.describe(JoinSide.RIGHT)).isEqualTo("right state keeps p_ts > watermark");
  }

  @Test
  void betweenIsTwoNonStrictBounds() {
    TimeBounds between =
        bounds("ts BETWEEN p_ts - INTERVAL 1 HOUR AND p_ts + INTERVAL 2 HOURS", LEFT_WM, RIGHT_WM);

    // ts >= p_ts - 1 h bounds the left: W - 1 h - 1 ms; ts <= p_ts + 2 h bounds the right:
    // p_ts >= ts - 2 h: W - 2 h - 1 ms.
    assertThat(stateMs(between, JoinSide.LEFT)).hasValue(W_MS - 60 * MINUTE_MS - 1);
    assertThat(stateMs(between, JoinSide.RIGHT)).hasValue(W_MS - 120 * MINUTE_MS - 1);
  }

  @Test
  void theMinimumOverTheConjunctsWins() {
    TimeBounds two =
        bounds(
            "ts > p_ts - INTERVAL 10 MINUTES AND ts >= p_ts - INTERVAL 20 MINUTES",
            LEFT_WM,
            RIGHT_WM);

    assertThat(stateMs(two, JoinSide.LEFT)).hasValue(W_MS - 20 * MINUTE_MS - 1);
    assertThat(two.limiting(JoinSide.LEFT)).hasSize(2);
    assertThat(two.describe(JoinSide.LEFT))
        .isEqualTo("left state keeps ts > watermark − 20 min − 1 ms");
  }

  @Test
  void aBoundWithTheWrongSignGivesNone() {
    // only an upper bound on the left time: nothing says when a left row can go
    TimeBounds upperOnly = bounds("ts < p_ts + INTERVAL 5 MINUTES", LEFT_WM, RIGHT_WM);

    assertThat(stateMs(upperOnly, JoinSide.LEFT)).isEmpty();
    assertThat(upperOnly.evicts(JoinSide.LEFT)).isFalse();
    assertThat(upperOnly.evictionColumn(JoinSide.LEFT)).isEmpty();
    assertThat(stateMs(upperOnly, JoinSide.RIGHT)).hasValue(W_MS - 5 * MINUTE_MS);
    assertThat(upperOnly.describe(JoinSide.LEFT))
        .isEqualTo(
            "left state is never evicted (the time condition does not bound ts from below by"
                + " p_ts)");
  }

  @Test
  void aSideWithoutItsOwnWatermarkOrWithoutTheOthersIsNeverEvicted() {
    TimeBounds noRight =
        bounds("p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES", LEFT_WM, Optional.empty());
    assertThat(stateMs(noRight, JoinSide.LEFT)).isEmpty(); // its bound needs the right's watermark
    assertThat(stateMs(noRight, JoinSide.RIGHT)).isEmpty(); // no watermark of its own
    assertThat(noRight.limiting(JoinSide.RIGHT)).hasSize(1); // what Spark's R2 check looks at
    assertThat(noRight.describe(JoinSide.RIGHT))
        .isEqualTo("right state is never evicted (the right input has no watermark)");
    assertThat(noRight.describe(JoinSide.LEFT))
        .isEqualTo(
            "left state is never evicted (the right input has no watermark to bound it with)");
    assertThat(bounds("p_ts >= ts", LEFT_WM, RIGHT_WM).stateWatermarkMicros(JoinSide.LEFT, 0))
        .isEmpty();
  }

  @Test
  void truncationIsTowardZeroAsSparksToLong() {
    Bound plus = new Bound(JoinSide.RIGHT, "p_ts", JoinSide.LEFT, "ts", 1_500, true);
    Bound minus = new Bound(JoinSide.RIGHT, "p_ts", JoinSide.LEFT, "ts", -1_500, true);

    assertThat(TimeBounds.stateWatermarkMs(plus, 10)).isEqualTo(11); // 11.5 -> 11
    assertThat(TimeBounds.stateWatermarkMs(minus, 10)).isEqualTo(8); // 8.5 -> 8
    // below zero toLong rounds up, not down: -1.5 -> -1 (floor would give -2)
    assertThat(TimeBounds.stateWatermarkMs(minus, 0)).isEqualTo(-1);
    assertThat(TimeBounds.stateWatermarkMs(minus, 0)).isNotEqualTo(Math.floorDiv(-1_500, 1_000));
    Bound notStrict = new Bound(JoinSide.RIGHT, "p_ts", JoinSide.LEFT, "ts", -1_500, false);
    assertThat(TimeBounds.stateWatermarkMs(notStrict, 0)).isEqualTo(-2); // -1, then - 1 ms
    // the first batch's watermark is 0: the seed's left state watermark is negative, not floored
    TimeBounds seed = bounds("p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES", LEFT_WM, RIGHT_WM);
    assertThat(seed.stateWatermarkMicros(JoinSide.LEFT, 0)).hasValue((-30 * MINUTE_MS - 1) * 1000);
  }

  @Test
  void aKeyCarryingTheWatermarkEvictsBothSidesWithTheWatermarkItself() {
    StreamJoinSpec join =
        new StreamJoinSpec(
            new InputSpec(
                new DeltaSourceSpec(
                    "/lake/purchases",
                    new StartingVersion.Earliest(),
                    OptionalLong.empty(),
                    Optional.empty(),
                    false,
                    false,
                    Optional.empty()),
                Optional.empty(),
                Optional.of(new WatermarkSpec("ts", Duration.ofMinutes(10))),
                "p_"),
            List.of("user_id", "ts"),
            TimeCondition.NONE,
            StreamJoinType.LEFT);
    TimeBounds keyed = TimeBounds.of(join, Optional.of(new WatermarkSpec("ts", Duration.ZERO)));

    assertThat(keyed.keyTime()).hasValue(new TimeBounds.KeyTime("ts", "p_ts"));
    assertThat(keyed.stateWatermarkMicros(JoinSide.LEFT, W_MS * 1000)).hasValue(W_MS * 1000);
    assertThat(keyed.stateWatermarkMicros(JoinSide.RIGHT, W_MS * 1000)).hasValue(W_MS * 1000);
    assertThat(keyed.evictionColumn(JoinSide.RIGHT)).hasValue("p_ts");
    assertThat(keyed.describe(JoinSide.LEFT))
        .isEqualTo("left state keeps keys whose ts > watermark (a join key carries the watermark)");
    // the right's watermark column as a key (the left has none): the same case (Spark looks at
    // the left keys first, then the right's)
    TimeBounds rightKeyed = TimeBounds.of(join, Optional.empty());
    assertThat(rightKeyed.keyTime()).hasValue(new TimeBounds.KeyTime("ts", "p_ts"));
  }
}
