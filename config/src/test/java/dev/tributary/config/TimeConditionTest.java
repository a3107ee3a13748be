package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The time condition's parser: each conjunct becomes {@code lower + offset (<|<=) upper}, BETWEEN
 * gives two, and what Spark cannot bound the state with (months, one-side conjuncts) or what the
 * grammar does not have is refused with the reason.
 */
class TimeConditionTest {

  private static final long MINUTE = 60_000_000L;

  /** Left columns ts, created; right columns p_ts, p_created. */
  static final Function<String, Optional<JoinSide>> SIDES =
      name ->
          Set.of("ts", "created").contains(name)
              ? Optional.of(JoinSide.LEFT)
              : Set.of("p_ts", "p_created").contains(name)
                  ? Optional.of(JoinSide.RIGHT)
                  : Optional.empty();

  static TimeCondition parse(String text) {
    return TimeCondition.parse(text, SIDES);
  }

  @Test
  void theSeedConditionIsTwoBounds() {
    TimeCondition seed = parse("p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES");

    assertThat(seed.bounds())
        .containsExactly(
            new Bound(JoinSide.LEFT, "ts", JoinSide.RIGHT, "p_ts", 0, false),
            new Bound(JoinSide.RIGHT, "p_ts", JoinSide.LEFT, "ts", -30 * MINUTE, false));
    assertThat(seed.canonical()).isEqualTo("ts <= p_ts AND p_ts - 30 min <= ts");
    assertThat(seed.text()).isEqualTo("p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES");
  }

  @Test
  void eachComparisonKeepsItsStrictnessAndDirection() {
    assertThat(parse("ts < p_ts").bounds())
        .containsExactly(new Bound(JoinSide.LEFT, "ts", JoinSide.RIGHT, "p_ts", 0, true));
    assertThat(parse("ts <= p_ts").bounds())
        .containsExactly(new Bound(JoinSide.LEFT, "ts", JoinSide.RIGHT, "p_ts", 0, false));
    assertThat(parse("ts > p_ts").bounds())
        .containsExactly(new Bound(JoinSide.RIGHT, "p_ts", JoinSide.LEFT, "ts", 0, true));
    assertThat(parse("ts >= p_ts").bounds())
        .containsExactly(new Bound(JoinSide.RIGHT, "p_ts", JoinSide.LEFT, "ts", 0, false));
  }

  @Test
  void intervalsOnBothOperandsMoveToTheLowerSide() {
    // ts - 10 min < p_ts + 5 min  is  ts - 15 min < p_ts
    assertThat(parse("ts - INTERVAL 10 MINUTES < p_ts + INTERVAL '5' minute").bounds())
        .containsExactly(
            new Bound(JoinSide.LEFT, "ts", JoinSide.RIGHT, "p_ts", -15 * MINUTE, true));
    // every unit from microsecond to day, singular or plural, any case
    assertThat(parse("ts + interval 1 microsecond < p_ts").bounds().get(0).offsetMicros())
        .isEqualTo(1);
    assertThat(parse("ts + INTERVAL 2 MILLISECONDS < p_ts").bounds().get(0).offsetMicros())
        .isEqualTo(2_000);
    assertThat(parse("ts + INTERVAL 3 second < p_ts").bounds().get(0).offsetMicros())
        .isEqualTo(3_000_000);
    assertThat(parse("ts + INTERVAL 1 HOUR < p_ts").bounds().get(0).offsetMicros())
        .isEqualTo(60 * MINUTE);
    assertThat(parse("ts + INTERVAL 2 DAYS < p_ts").bounds().get(0).offsetMicros())
        .isEqualTo(2 * 24 * 60 * MINUTE);
    assertThat(parse("ts + INTERVAL -5 MINUTES < p_ts").bounds().get(0).offsetMicros())
        .isEqualTo(-5 * MINUTE);
  }

  @Test
  void conjunctsAreJoinedWithAndAndBacktickedColumnsAreRead() {
    TimeCondition condition =
        parse("`p_ts` >= ts - INTERVAL 1 HOUR and p_created <= created + INTERVAL 2 HOURS");

    assertThat(condition.bounds())
        .containsExactly(
            new Bound(JoinSide.LEFT, "ts", JoinSide.RIGHT, "p_ts", -60 * MINUTE, false),
            new Bound(JoinSide.RIGHT, "p_created", JoinSide.LEFT, "created", -120 * MINUTE, false));
  }

  @Test
  void aBoundHoldsOnExactMicroseconds() {
    Bound within = parse("p_ts <= ts + INTERVAL 30 MINUTES").bounds().get(0);

    assertThat(within.holds(30 * MINUTE, 0)).isTrue(); // p_ts - 30 min <= ts, equal
    assertThat(within.holds(30 * MINUTE + 1, 0)).isFalse();
    Bound strict = parse("ts < p_ts").bounds().get(0);
    assertThat(strict.holds(5, 5)).isFalse();
    assertThat(strict.holds(4, 5)).isTrue();
    assertThat(strict.holds(Long.MAX_VALUE, Long.MAX_VALUE)).isFalse();
  }

  @Test
  void monthsAndYearsAreRefusedAsSparkFindsNoBoundInThem() {
    assertThatThrownBy(() -> parse("p_ts <= ts + INTERVAL 1 MONTH"))
        .hasMessage(
            "INTERVAL 1 MONTH: months and years are imprecise (their length varies), so Spark"
                + " derives no state watermark from them; write the interval in days, e.g."
                + " INTERVAL 30 DAYS");
    assertThatThrownBy(() -> parse("p_ts <= ts + INTERVAL 2 years"))
        .hasMessageStartingWith("INTERVAL 2 YEARS: months and years are imprecise");
  }

  @Test
  void aConjunctNamingOneSideOnlyIsRefused() {
    assertThatThrownBy(() -> parse("p_ts BETWEEN ts AND ts + INTERVAL 1 HOUR AND ts < created"))
        .hasMessage(
            "'ts < created' compares two columns of the left side (ts, created); every conjunct of"
                + " a time condition relates a left column to a right one (a filter on one side"
                + " belongs in transform)");
    assertThatThrownBy(() -> parse("p_ts BETWEEN p_created AND ts"))
        .hasMessageContaining("compares two columns of the right side (p_created, p_ts)");
  }

  @Test
  void anythingElseIsRefusedWithWhereAndHow() {
    assertThatThrownBy(() -> parse("ts < p_ts OR ts > p_ts"))
        .hasMessage(
            "unexpected 'OR ts > p_ts' (at character 11); a time condition is comparisons (<, <=,"
                + " >, >=, BETWEEN) joined with AND");
    assertThatThrownBy(() -> parse("ts = p_ts"))
        .hasMessage(
            "expected <, <=, >, >= or BETWEEN at '= p_ts' (at character 4); a time condition"
                + " compares the two sides' event times, e.g. p_ts >= ts");
    assertThatThrownBy(() -> parse("ts < other"))
        .hasMessage(
            "'other' (at character 6) is a column of neither side of the join; name a left column"
                + " as it is, a right one with the stream's prefix");
    assertThatThrownBy(() -> parse("ts + INTERVAL 3 fortnights < p_ts"))
        .hasMessage(
            "unknown interval unit 'fortnights' (at character 27); use one of microsecond,"
                + " millisecond, second, minute, hour, day (or their plurals)");
    assertThatThrownBy(() -> parse("ts + 5 < p_ts"))
        .hasMessageStartingWith("expected INTERVAL at '5 < p_ts'");
    assertThatThrownBy(() -> parse("ts + INTERVAL 99999999999999 DAYS < p_ts"))
        .hasMessageStartingWith("INTERVAL 99999999999999 DAYS is too large");
    assertThatThrownBy(() -> parse("  ")).hasMessageStartingWith("the condition is empty");
    assertThatThrownBy(() -> parse("ts <")).hasMessageStartingWith("the condition ends early");
    assertThatThrownBy(() -> parse("p_ts BETWEEN ts ts"))
        .hasMessageStartingWith("BETWEEN needs AND");
  }
}
