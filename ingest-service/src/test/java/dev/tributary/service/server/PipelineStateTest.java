package dev.tributary.service.server;

import static dev.tributary.service.server.PipelineState.DEGRADED;
import static dev.tributary.service.server.PipelineState.FAILED;
import static dev.tributary.service.server.PipelineState.IDLE;
import static dev.tributary.service.server.PipelineState.RUNNING;
import static dev.tributary.service.server.PipelineState.STARTING;
import static dev.tributary.service.server.PipelineState.STOPPED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.Secrets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The written transitions of a pipeline's life (the table in PipelineState and OPERATIONS.md). */
class PipelineStateTest {

  /** The documented table, written out independently of the enum. */
  private static final Map<PipelineState, Set<PipelineState>> DOCUMENTED =
      Map.of(
          STARTING, EnumSet.of(RUNNING, DEGRADED, STOPPED, FAILED),
          RUNNING, EnumSet.of(DEGRADED, IDLE, STOPPED, FAILED),
          DEGRADED, EnumSet.of(RUNNING, IDLE, STOPPED, FAILED),
          IDLE, EnumSet.of(STARTING),
          STOPPED, EnumSet.of(STARTING),
          FAILED, EnumSet.of(STARTING));

  static List<Arguments> legal() {
    return DOCUMENTED.entrySet().stream()
        .flatMap(e -> e.getValue().stream().map(to -> Arguments.of(e.getKey(), to)))
        .toList();
  }

  static List<Arguments> illegal() {
    return DOCUMENTED.entrySet().stream()
        .flatMap(
            e ->
                EnumSet.complementOf(EnumSet.copyOf(e.getValue())).stream()
                    .filter(to -> to != e.getKey())
                    .map(to -> Arguments.of(e.getKey(), to)))
        .toList();
  }

  @Test
  void everyStateListsExactlyTheDocumentedSuccessors() {
    for (PipelineState state : PipelineState.values()) {
      assertThat(state.successors()).as(state.name()).isEqualTo(DOCUMENTED.get(state));
    }
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("legal")
  void aLegalChangeIsMade(PipelineState from, PipelineState to) {
    PipelineLifecycle life = lifecycle(from);
    life.moveTo(to, to == FAILED || to == DEGRADED ? "why" : null);
    assertThat(life.state()).isEqualTo(to);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("illegal")
  void anIllegalChangeIsRefusedNamingThePipelineAndBothStates(
      PipelineState from, PipelineState to) {
    PipelineLifecycle life = lifecycle(from);
    assertThatThrownBy(() -> life.moveTo(to, null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Pipeline orders cannot change from " + from + " to " + to + ":")
        .hasMessageContaining(from + " may only change to " + from.successors());
    assertThat(life.state()).as("unchanged").isEqualTo(from);
  }

  @Test
  void theIllegalChangesIncludeTheOnesASupervisorBugWouldMake() {
    assertThat(illegal())
        .extracting(a -> a.get()[0] + " -> " + a.get()[1])
        .contains(
            "RUNNING -> STARTING", // a restart after a failure stays DEGRADED
            "STOPPED -> RUNNING", // a start goes through STARTING
            "FAILED -> DEGRADED",
            "IDLE -> STOPPED",
            "STARTING -> IDLE"); // a finite run is opened (RUNNING) before it ends
  }

  @Test
  void movingToTheSameStateOnlyReplacesTheReason() {
    Clock start = Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC);
    PipelineLifecycle life =
        new PipelineLifecycle(
            "orders", DEGRADED, "cannot reach Kafka for 5 s", start, Secrets.NONE);
    Instant since = life.snapshot().since();
    life.moveTo(DEGRADED, "cannot reach Kafka for 6 s");
    assertThat(life.snapshot().reason()).isEqualTo("cannot reach Kafka for 6 s");
    assertThat(life.snapshot().since()).isEqualTo(since);
  }

  @Test
  void onlyStartingRunningAndDegradedAreActive() {
    assertThat(EnumSet.allOf(PipelineState.class).stream().filter(PipelineState::active))
        .containsExactlyInAnyOrder(STARTING, RUNNING, DEGRADED);
  }

  private static PipelineLifecycle lifecycle(PipelineState from) {
    return new PipelineLifecycle("orders", from, null, Clock.systemUTC(), Secrets.NONE);
  }
}
