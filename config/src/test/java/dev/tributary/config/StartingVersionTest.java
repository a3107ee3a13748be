package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one parser of {@code source.delta.starting-version}: every documented form, and what it
 * refuses.
 */
class StartingVersionTest {
  @Test
  void parsesEveryDocumentedForm() {
    assertThat(StartingVersion.parse("earliest")).isEqualTo(new StartingVersion.Earliest());
    assertThat(StartingVersion.parse(" latest ")).isEqualTo(new StartingVersion.Latest());
    assertThat(StartingVersion.parse("0")).isEqualTo(new StartingVersion.AtVersion(0));
    assertThat(StartingVersion.parse("12")).isEqualTo(new StartingVersion.AtVersion(12));
    assertThat(StartingVersion.parse("timestamp:2026-01-01T00:00:00Z"))
        .isEqualTo(new StartingVersion.AtTimestamp(Instant.parse("2026-01-01T00:00:00Z")));
    assertThat(StartingVersion.parse("timestamp:2026-01-02"))
        .isEqualTo(new StartingVersion.AtTimestamp(Instant.parse("2026-01-02T00:00:00Z")));
  }

  @Test
  void printsBackAsTheKeyIsWritten() {
    for (String text : List.of("earliest", "latest", "12", "timestamp:2026-01-01T00:00:00Z")) {
      assertThat(StartingVersion.parse(text)).asString().isEqualTo(text);
    }
  }

  @Test
  void refusesAnythingElseSayingWhatIsAccepted() {
    for (String bad : List.of("", "first", "-3", "1.5", "99999999999999999999")) {
      assertThatThrownBy(() -> StartingVersion.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not a starting version; use earliest, latest, a table version");
    }
    assertThatThrownBy(() -> StartingVersion.parse("timestamp:yesterday"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'yesterday' is not an ISO-8601 instant or date");
  }
}
