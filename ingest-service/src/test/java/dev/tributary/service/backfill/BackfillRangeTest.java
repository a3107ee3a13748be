package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.WindowSpec;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class BackfillRangeTest {
  private static final Instant T1 = Instant.parse("2026-11-01T00:30:00Z");
  private static final Instant T2 = Instant.parse("2026-11-01T03:00:00Z");
  private final BackfillRange range = new BackfillRange(T1, T2);

  @Test
  void isHalfOpen() {
    assertThat(range.contains(T1)).isTrue();
    assertThat(range.contains(T1.minusNanos(1000))).isFalse();
    assertThat(range.contains(T2.minusNanos(1000))).isTrue();
    assertThat(range.contains(T2)).isFalse();
  }

  @Test
  void aWindowIsInsideOnlyWhenBothEndsAre() {
    assertThat(range.containsWindow(T1, T2)).isTrue();
    assertThat(range.containsWindow(T1.minusSeconds(60), T1.plusSeconds(3600))).isFalse();
    assertThat(range.containsWindow(T2.minusSeconds(3600), T2.plusSeconds(60))).isFalse();
  }

  @Test
  void readsTheWatermarkDelayBeforeAndAfterTheRange() {
    assertThat(range.readFrom(Duration.ofMinutes(10)))
        .isEqualTo(Instant.parse("2026-11-01T00:20:00Z"));
    assertThat(range.readUntil(Duration.ofMinutes(10)))
        .isEqualTo(Instant.parse("2026-11-01T03:10:00Z"));
  }

  @Test
  void refusesAnEmptyOrInvertedRange() {
    assertThatThrownBy(() -> BackfillRange.parse("2026-11-02T00:00:00Z", "2026-11-01T00:00:00Z"))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessageContaining("--to 2026-11-01T00:00:00Z is not after --from 2026-11-02T00:00:00Z");
    assertThatThrownBy(() -> BackfillRange.parse("2026-11-01T00:00:00Z", "2026-11-01T00:00:00Z"))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessageContaining("is not after --from");
  }

  @Test
  void refusesAnInstantThatDoesNotParseNamingTheOption() {
    assertThatThrownBy(() -> BackfillRange.parse("2026-11-01", "2026-11-02T00:00:00Z"))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessageContaining("--from '2026-11-01' is not an instant")
        .hasMessageContaining("2026-11-01T00:00:00Z");
  }

  @Test
  void tumblingEdgeWindowsAreTheOnesAcrossEitherEnd() {
    var edges = EdgeWindows.of(new WindowSpec.Tumbling("ts", Duration.ofHours(1)), range);
    // 00:30 lies inside [00:00, 01:00); 03:00 is a window boundary
    assertThat(edges).hasSize(1);
    assertThat(edges.get(0).start()).isEqualTo(Instant.parse("2026-11-01T00:00:00Z"));
    assertThat(edges.get(0).end()).isEqualTo(Instant.parse("2026-11-01T01:00:00Z"));
    assertThat(edges.get(0).why()).contains("starts before --from");

    var aligned =
        EdgeWindows.of(
            new WindowSpec.Tumbling("ts", Duration.ofHours(1)),
            new BackfillRange(Instant.parse("2026-11-01T00:00:00Z"), T2));
    assertThat(aligned).isEmpty();
  }

  @Test
  void slidingEdgeWindowsAreEveryWindowAcrossAnEnd() {
    var edges =
        EdgeWindows.of(
            new WindowSpec.Sliding("ts", Duration.ofMinutes(60), Duration.ofMinutes(20)),
            new BackfillRange(
                Instant.parse("2026-11-01T01:00:00Z"), Instant.parse("2026-11-01T02:10:00Z")));
    assertThat(edges)
        .extracting(e -> e.start().toString() + "/" + e.end())
        .containsExactly(
            // across 01:00: windows starting 00:20 and 00:40 (00:00 ends exactly at it)
            "2026-11-01T00:20:00Z/2026-11-01T01:20:00Z",
            "2026-11-01T00:40:00Z/2026-11-01T01:40:00Z",
            // across 02:10: windows starting 01:20, 01:40, 02:00
            "2026-11-01T01:20:00Z/2026-11-01T02:20:00Z",
            "2026-11-01T01:40:00Z/2026-11-01T02:40:00Z",
            "2026-11-01T02:00:00Z/2026-11-01T03:00:00Z");
  }
}
