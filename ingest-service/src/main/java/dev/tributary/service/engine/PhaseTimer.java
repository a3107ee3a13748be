package dev.tributary.service.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Measures the consecutive phases of one batch. */
final class PhaseTimer {
  private final Clock clock;
  private final Map<String, Long> phases = new LinkedHashMap<>();
  private Instant start;
  private Instant last;

  PhaseTimer(Clock clock) {
    this.clock = clock;
  }

  Instant start() {
    start = clock.instant();
    last = start;
    return start;
  }

  /** Ends the current phase, naming it. */
  void mark(String phase) {
    Instant now = clock.instant();
    phases.merge(phase, Duration.between(last, now).toMillis(), Long::sum);
    last = now;
  }

  Instant startedAt() {
    return start;
  }

  long elapsedMs() {
    return Duration.between(start, clock.instant()).toMillis();
  }

  Map<String, Long> phases() {
    return Map.copyOf(phases);
  }
}
