package dev.tributary.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SuggestionsTest {

  static final List<String> KAFKA = Keys.SECTIONS.get("source.kafka");

  @Test
  void findsTheNearestKeyForTypicalTypos() {
    assertThat(Suggestions.nearest("max-offset-per-trigger", KAFKA))
        .contains("max-offsets-per-trigger");
    assertThat(Suggestions.nearest("bootstrap.servers", KAFKA)).contains("bootstrap-servers");
    assertThat(Suggestions.nearest("topic", KAFKA)).contains("topics");
    assertThat(Suggestions.nearest("startingOffsets", KAFKA)).contains("starting-offsets");
  }

  @Test
  void suggestsNothingForUnrelatedNames() {
    assertThat(Suggestions.nearest("colour", Keys.SECTIONS.get(Keys.ROOT))).isEmpty();
    assertThat(Suggestions.nearest("ab", List.of("xy"))).isEmpty();
  }

  @Test
  void measuresEditDistance() {
    assertThat(Suggestions.distance("kitten", "sitting")).isEqualTo(3);
    assertThat(Suggestions.distance("", "abc")).isEqualTo(3);
    assertThat(Suggestions.distance("same", "same")).isZero();
  }
}
