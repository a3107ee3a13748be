package dev.tributary.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvSubstitutionTest {

  static final Map<String, String> ENV = Map.of("HOST", "kafka", "PORT", "9093", "EMPTY", "");

  static String apply(String text) {
    return EnvSubstitution.apply(text, ENV::get);
  }

  @Test
  void replacesReferencesAnywhereInTheValue() {
    assertThat(apply("${HOST}:${PORT}")).isEqualTo("kafka:9093");
    assertThat(apply("plain text")).isEqualTo("plain text");
    assertThat(apply("costs $5")).isEqualTo("costs $5");
  }

  @Test
  void usesTheDefaultWhenUnsetOrEmpty() {
    assertThat(apply("${MISSING:-localhost:9092}")).isEqualTo("localhost:9092");
    assertThat(apply("${EMPTY:-fallback}")).isEqualTo("fallback");
    assertThat(apply("${MISSING:-}")).isEmpty();
    assertThat(apply("${HOST:-other}")).isEqualTo("kafka");
    assertThat(apply("[${EMPTY}]")).isEqualTo("[]");
  }

  @Test
  void keepsEscapedReferencesLiterally() {
    assertThat(apply("$${HOST} is ${HOST}")).isEqualTo("${HOST} is kafka");
    assertThat(apply("$${NOT_SET}")).isEqualTo("${NOT_SET}");
  }

  @Test
  void doesNotSubstituteRecursively() {
    assertThat(EnvSubstitution.apply("${A}", Map.of("A", "${B}", "B", "x")::get)).isEqualTo("${B}");
  }

  @Test
  void namesAnUnsetVariable() {
    assertThatThrownBy(() -> apply("${HOST}:${KAFKA_PORT}"))
        .hasMessage(
            "environment variable KAFKA_PORT is not set; set it, or give a default like ${KAFKA_PORT:-value}");
  }

  @Test
  void refusesMalformedReferences() {
    String hint =
        "; write ${NAME} or ${NAME:-default} (NAME made of letters, digits and _), or $${...} for a"
            + " literal ${...}";
    assertThatThrownBy(() -> apply("${HOST"))
        .hasMessage("malformed environment reference in '${HOST'" + hint);
    assertThatThrownBy(() -> apply("${1X}"))
        .hasMessage("malformed environment reference in '${1X}'" + hint);
    assertThatThrownBy(() -> apply("${}"))
        .hasMessage("malformed environment reference in '${}'" + hint);
  }
}
