package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

  @Test
  void doublesFromTheInitialDelayUpToTheMaximum() {
    assertThat(backoff.delay(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.delay(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(backoff.delay(5)).isEqualTo(Duration.ofSeconds(16));
    assertThat(backoff.delay(6)).isEqualTo(Duration.ofSeconds(30));
    assertThat(backoff.delay(1_000)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> backoff.delay(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retry attempts count from 1, was 0");
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("backoff initial delay must be positive, was PT0S");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("backoff max delay PT1S is shorter than the initial delay PT2S");
  }
}
