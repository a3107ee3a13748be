package dev.tributary.service.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Measures the consecutive phases of one batch (plan, walCommit, process, commit, ...). */
public final class PhaseTimer {
  private final Clock clock;
  private final Map<String, Long> phases = new LinkedHashMap<>();
  private Instant start;
  private Instant last;

  public PhaseTimer(Clock clock) {
    this.clock = clock;
  }

  /** Starts the first phase now; returns now. */
  public Instant start() {
    start = clock.instant();
    last = start;
    return start;
  }

  /** Ends the current phase, naming it. */
  public void mark(String phase) {
    Instant now = clock.instant();
    phases.merge(phase, Duration.between(last, now).toMillis(), Long::sum);
    last = now;
  }

  /** When {@link #start} was called. */
  public Instant startedAt() {
    return start;
  }

  /** Milliseconds since {@link #start}. */
  public long elapsedMs() {
    return Duration.between(start, clock.instant()).toMillis();
  }

  /** Each phase's milliseconds, in the order they were marked. */
  public Map<String, Long> phases() {
    return Map.copyOf(phases);
  }
}
