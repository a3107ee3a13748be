package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code tributary status}: the overview's layout, and the messages when the API is not read. */
class StatusCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void formatsOneAlignedLinePerPipelineWithItsLastErrorBelow() throws Exception {
    String out =
        StatusCommand.format(
            JSON.readTree(
                """
                [{"id":"orders","state":"RUNNING","lag":12,"commitLag":500,
                  "freshnessSeconds":65.4,"activity":{"phase":"COMMITTING"}},
                 {"id":"payments-eu","state":"FAILED","reason":"Cannot start: no such topic",
                  "lag":null,"commitLag":0,"freshnessSeconds":null,"activity":null}]
                """));
    assertThat(out)
        .isEqualTo(
            """
            PIPELINE     STATE    LAG  COMMIT-LAG  FRESHNESS  ACTIVITY
            orders       RUNNING  12   500         1m05s      COMMITTING
            payments-eu  FAILED   -    0           -          -
              last error: Cannot start: no such topic
            """);
  }

  @Test
  void saysSoWhenNoPipelineIsServed() throws Exception {
    assertThat(StatusCommand.format(JSON.readTree("[]")))
        .isEqualTo(
            "PIPELINE  STATE  LAG  COMMIT-LAG  FRESHNESS  ACTIVITY\n(no pipelines served)\n");
  }

  @Test
  void durationsAreCompact() {
    assertThat(StatusCommand.duration(0.4)).isEqualTo("0s");
    assertThat(StatusCommand.duration(59.9)).isEqualTo("59s");
    assertThat(StatusCommand.duration(3600 + 61)).isEqualTo("1h01m");
    assertThat(StatusCommand.duration(2 * 86400 + 3 * 3600)).isEqualTo("2d03h");
    assertThat(StatusCommand.duration(-3)).isEqualTo("0s"); // a clock skew never shows negative
  }

  @Test
  void refusalsNameTheFix() {
    assertThat(StatusCommand.refusal(200, "http://h:1", false)).isNull();
    assertThat(StatusCommand.refusal(401, "http://h:1", false))
        .isEqualTo(
            "The Tributary API at http://h:1 needs a token: set TRIBUTARY_API_TOKEN to the"
                + " service's token.");
    assertThat(StatusCommand.refusal(401, "http://h:1", true))
        .contains("refused the token in TRIBUTARY_API_TOKEN");
    assertThat(StatusCommand.refusal(403, "http://h:1", false))
        .contains("answers only loopback requests");
    assertThat(StatusCommand.refusal(404, "http://h:1", false))
        .contains("answered HTTP 404 to GET /api/pipelines");
  }

  @Test
  void anUnreachableServiceExitsOneWithAClearMessage() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort(); // closed again: nothing listens there
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        StatusCommand.run(
            CliArguments.parse(
                new String[] {"status", "--url", "http://127.0.0.1:" + port + "/"},
                Set.of(),
                Set.of("url")),
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("tributary: cannot reach the Tributary API at http://127.0.0.1:" + port + " (")
        .contains("ConnectException")
        .contains("Is `tributary serve` running there? Pass its address with --url URL.");
  }
}
