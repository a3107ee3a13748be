package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({
    "30s, PT30S",
    "15 minutes, PT15M",
    "1 hour, PT1H",
    "7 days, PT168H",
    "500ms, PT0.5S",
    "2h, PT2H",
    "10 min, PT10M",
    "1 minute, PT1M",
    "1.5 hours, PT1H30M",
    "2 Weeks, PT336H",
    "45 SECONDS, PT45S",
    "0s, PT0S"
  })
  void parsesNumberAndUnit(String text, String iso) {
    assertThat(Durations.parse(text)).isEqualTo(Duration.parse(iso));
  }

  @ParameterizedTest
  @ValueSource(strings = {"30", "fast", "10 lightyears", "-5s", "1h30m", "", "PT30S"})
  void refusesOtherSyntaxWithAHint(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cannot parse '"
                + text
                + "' as a duration; write a number and a unit like 500ms, 30s, 10 minutes, 1 hour or 7 days");
  }

  @ParameterizedTest
  @CsvSource({
    "PT1H, 1 hour",
    "PT1H30M, 90 minutes",
    "PT168H, 7 days",
    "PT0.5S, 500ms",
    "PT2S, 2 seconds",
    "PT0S, 0ms",
    "PT0.000000001S, 1ns"
  })
  void formatsReadablyAndReadsBack(String iso, String text) {
    Duration duration = Duration.parse(iso);
    assertThat(Durations.format(duration)).isEqualTo(text);
    assertThat(Durations.parse(text)).isEqualTo(duration);
  }

  @Test
  void refusesDurationsBeyondALong() {
    assertThatThrownBy(() -> Durations.parse("999999999 weeks"))
        .hasMessage("the duration '999999999 weeks' is too long; the maximum is about 292 years");
  }
}
