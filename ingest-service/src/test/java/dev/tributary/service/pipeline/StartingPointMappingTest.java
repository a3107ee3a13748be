package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.StartingVersion;
import dev.tributary.table.stream.StartingPoint;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The {@code starting-version} text, parsed once by the config module, reaches the Delta source
 * planner as the starting point it names (the table format has no parser of its own).
 */
class StartingPointMappingTest {
  private static StartingPoint of(String text) {
    return PipelineFactory.startingPoint(StartingVersion.parse(text));
  }

  @Test
  void everyFormMapsToItsStartingPoint() {
    assertThat(of("earliest")).isEqualTo(new StartingPoint.Earliest());
    assertThat(of("latest")).isEqualTo(new StartingPoint.Latest());
    assertThat(of("12")).isEqualTo(new StartingPoint.AtVersion(12));
    assertThat(of("timestamp:2026-01-02"))
        .isEqualTo(new StartingPoint.AtTimestamp(Instant.parse("2026-01-02T00:00:00Z")));
  }
}
