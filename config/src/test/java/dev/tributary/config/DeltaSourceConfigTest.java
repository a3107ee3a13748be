package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * {@code source.delta}: its keys, its defaults, and what it excludes (format, Kafka keys, a second
 * source).
 */
class DeltaSourceConfigTest {

  /** Lines 1-9: a silver pipeline over a bronze table, valid as it is. */
  static final String SILVER =
      """
      pipeline: silver
      source:
        delta:
          path: /lake/bronze/events
      transform:
        - derive: { id_times_two: "id * 2" }
      sink:
        delta: { path: /lake/silver/events }
      checkpoint: /chk/silver
      """;

  static PipelineSpec parse(String yaml) {
    return PipelineParser.parse(yaml, "orders.yaml", Map.of());
  }

  @Test
  void readsTheDefaults() {
    PipelineSpec spec = parse(SILVER);
    DeltaSourceSpec delta = spec.deltaSource().orElseThrow();
    assertThat(delta)
        .isEqualTo(
            new DeltaSourceSpec(
                "/lake/bronze/events",
                new StartingVersion.Earliest(),
                OptionalLong.empty(),
                Optional.empty(),
                false,
                false,
                Optional.empty()));
    assertThat(spec.kafkaSource()).isEmpty();
    assertThat(spec.format()).isEmpty();
    assertThat(spec.outputColumns()).containsExactly("id_times_two");
  }

  @Test
  void readsEveryKey() {
    PipelineSpec spec =
        parse(
            SILVER.replace(
                "    path: /lake/bronze/events\n",
                ""
                    + "    path: /lake/bronze/events\n"
                    + "    starting-version: timestamp:2026-01-01T00:00:00Z\n"
                    + "    max-files-per-trigger: 7\n"
                    + "    max-bytes-per-trigger: 1GB\n"
                    + "    ignore-deletes: true\n"
                    + "    skip-change-commits: true\n"
                    + "    storage: { s3: { endpoint: \"http://127.0.0.1:9000\", path-style: true } }\n"));
    DeltaSourceSpec delta = spec.deltaSource().orElseThrow();
    assertThat(delta.startingVersion())
        .isEqualTo(new StartingVersion.AtTimestamp(Instant.parse("2026-01-01T00:00:00Z")));
    assertThat(delta.maxFilesPerTrigger()).hasValue(7);
    assertThat(delta.maxBytesPerTrigger()).contains(Size.parse("1GB"));
    assertThat(delta.ignoreDeletes()).isTrue();
    assertThat(delta.skipChangeCommits()).isTrue();
    assertThat(delta.storage().orElseThrow().endpoint()).contains("http://127.0.0.1:9000");
    assertThat(
            parse(
                    SILVER.replace(
                        "path: /lake/bronze/events",
                        "path: /lake/bronze/events\n    starting-version: 12"))
                .deltaSource()
                .orElseThrow()
                .startingVersion())
        .isEqualTo(new StartingVersion.AtVersion(12));
    assertThat(
            parse(
                    SILVER.replace(
                        "path: /lake/bronze/events",
                        "path: /lake/bronze/events\n    starting-version: latest"))
                .deltaSource()
                .orElseThrow()
                .startingVersion())
        .isEqualTo(new StartingVersion.Latest());
  }

  @Test
  void refusesABadStartingVersionAndLimitsAtTheirLines() {
    assertThat(
            errors(
                SILVER.replace(
                    "path: /lake/bronze/events",
                    """
        path: /lake/bronze/events
            starting-version: yesterday
            max-files-per-trigger: 0
            max-bytes-per-trigger: 0B""")))
        .containsExactly(
            "orders.yaml:5:23: source.delta.starting-version: 'yesterday' is not a starting version; use earliest,"
                + " latest, a table version (e.g. 12) or timestamp:2026-01-01T00:00:00Z",
            "orders.yaml:6:28: source.delta.max-files-per-trigger: '0' is too small; the minimum is 1",
            "orders.yaml:7:28: source.delta.max-bytes-per-trigger: the size must be greater than zero");
  }

  @Test
  void refusesAFormatWithADeltaSource() {
    assertThat(
            errors(
                SILVER.replace(
                    "transform:", "format: { json: { schema: { id: long } } }\ntransform:")))
        .singleElement()
        .asString()
        .isEqualTo(
            "orders.yaml:5:9: format: a Delta source's rows are already typed: the source table's schema is"
                + " the input schema; remove the format section");
  }

  @Test
  void refusesKafkaKeysInTheDeltaSourceNamingWhereTheyBelong() {
    assertThat(
            errors(
                SILVER.replace(
                    "path: /lake/bronze/events",
                    "path: /lake/bronze/events\n    starting-offsets: latest")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:5:5: source.delta.starting-offsets: unknown key")
        .contains("source.kafka");
  }

  @Test
  void refusesTwoSourcesOrNone() {
    assertThat(
            errors(
                SILVER.replace(
                    "  delta:\n    path: /lake/bronze/events\n",
                    "  delta:\n    path: /lake/bronze/events\n  kafka: { bootstrap-servers: localhost:9092, topics: [t] }\n")))
        .singleElement()
        .asString()
        .isEqualTo(
            "orders.yaml:4:5: source.delta: a pipeline reads one source: declare either source.kafka or"
                + " source.delta, not both");
    assertThat(errors(SILVER.replace("  delta:\n    path: /lake/bronze/events\n", "  {}\n")))
        .singleElement()
        .asString()
        .contains("source: declare the source:");
  }

  @Test
  void aKafkaSourceStillNeedsItsFormat() {
    assertThat(
            errors(
                PipelineParserTest.MINIMAL.replace(
                    """
        format:
          json:
            schema:
              id: string
              at: timestamp
        """,
                    "")))
        .singleElement()
        .asString()
        .contains("format");
  }

  @Test
  void theCheckpointIdentityNamesTheSourceTable() {
    Map<String, String> identity = parse(SILVER).checkpointIdentity();
    assertThat(identity)
        .containsEntry("source.delta", "/lake/bronze/events")
        .containsEntry("format.schema", "the source table's")
        .doesNotContainKey("source.topics");
    assertThat(
            parse(SILVER.replace("/lake/bronze/events", "/lake/bronze/other")).checkpointIdentity())
        .isNotEqualTo(identity);
    // a Kafka pipeline's identity keeps its keys: existing checkpoints still match
    assertThat(
            PipelineValidationTest.parse(PipelineValidationTest.BASE).checkpointIdentity().keySet())
        .startsWith("source.topics", "format.schema");
  }

  @Test
  void columnsTheQueryNamesAreLeftToTheStart() {
    // The table's columns are unknown without reading it: a stateful pipeline naming them is valid
    // here.
    PipelineSpec spec =
        parse(
            SILVER.replace(
                "sink:",
                """
        watermark: { column: at, delay: 1 minute }
        aggregate:
          window: { column: at, size: 1 hour }
          group-by: [name]
          measures: { n: count() }
        sink:"""));
    assertThat(spec.outputColumns()).isEqualTo(List.of("window_start", "window_end", "name", "n"));
  }

  @Test
  void refusesASourceTableThePipelineWrites() {
    assertThat(errors(SILVER.replace("path: /lake/silver/events", "path: /lake/bronze/events")))
        .singleElement()
        .asString()
        .isEqualTo(
            "orders.yaml:4:11: source.delta.path: the source table '/lake/bronze/events' overlaps the"
                + " sink.delta.path location '/lake/bronze/events': a pipeline cannot read what it writes (each batch"
                + " would read the previous batch's output again); read another table, or move the sink.delta.path"
                + " location");
    assertThat(
            errors(
                SILVER.replace("checkpoint: /chk/silver", "checkpoint: /lake/bronze/events/_chk")))
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains("source.delta.path: the source table")
                    .contains("checkpoint"));
  }
}
