package dev.tributary.config;

import static dev.tributary.config.PipelineParserTest.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Structural errors: every one is reported, each at its exact line and column. */
class PipelineParserErrorsTest {

  static List<String> errors(String yaml) {
    return errors(yaml, Map.of());
  }

  static List<String> errors(String yaml, Map<String, String> env) {
    try {
      PipelineParser.parse(yaml, "orders.yaml", env);
    } catch (PipelineValidationException e) {
      assertThat(e.getMessage())
          .isEqualTo(String.join("\n", e.errors().stream().map(ValidationError::render).toList()));
      return e.errors().stream().map(ValidationError::render).toList();
    }
    throw new AssertionError("expected the pipeline to be refused:\n" + yaml);
  }

  @Test
  void rendersTheExampleOfTheContract() {
    String yaml =
        MINIMAL.replace(
            "path: /data/tables/clicks/", "path: /data/tables/clicks/\n    target-file-size: 12XB");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:14:23: sink.delta.target-file-size: cannot parse '12XB'"
                + " as a size; write it like 128MB or 1GB (units B, KB, MB, GB, TB)");
  }

  @Test
  void collectsEveryErrorSortedByPosition() {
    String yaml =
        MINIMAL
            .replace("topics: [clicks]", "topics: [clicks]\n    max-offsets-per-trigger: lots")
            .replace("at: timestamp", "at: instant")
            .replace(
                "checkpoint: /data/checkpoints/clicks",
                "checkpoint: /data/checkpoints/clicks\ntrigger: { processing-time: soon }");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:6:30: source.kafka.max-offsets-per-trigger: cannot parse 'lots' as a whole number;"
                + " write digits only, like 500000",
            "orders.yaml:11:11: format.json.schema.at: unknown column type 'instant'; use string, byte,"
                + " short, int, long, float, double, boolean, timestamp, timestamp(seconds|micros|nanos),"
                + " timestamp_ntz, date or decimal(p,s) like decimal(10,2)",
            "orders.yaml:16:29: trigger.processing-time: cannot parse 'soon' as a duration; write a number and a"
                + " unit like 500ms, 30s, 10 minutes, 1 hour or 7 days");
  }

  @Test
  void suggestsTheNearestKeyForATypo() {
    String yaml =
        MINIMAL.replace("topics: [clicks]", "topics: [clicks]\n    max-offset-per-triger: 10");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:6:5: source.kafka.max-offset-per-triger: unknown key"
                + " 'max-offset-per-triger'; did you mean 'max-offsets-per-trigger'?");
  }

  @Test
  void listsTheValidKeysWhenNoneIsClose() {
    assertThat(errors(MINIMAL + "colour: blue\n"))
        .containsExactly(
            "orders.yaml:15:1: colour: unknown key 'colour';"
                + " valid keys here are pipeline, source, format, transform, expectations, join, watermark,"
                + " deduplicate, aggregate,"
                + " output-mode, sink, sinks, quarantine, late-events, checkpoint, trigger, maintenance, backfill,"
                + " schema-evolution, storage");
  }

  @Test
  void pointsAKeyAtTheLevelItBelongsTo() {
    assertThat(errors(MINIMAL + "delay: 5 minutes\n"))
        .containsExactly(
            "orders.yaml:15:1: delay: unknown key 'delay' here; it belongs under 'watermark'");
  }

  @Test
  void reportsMissingRequiredKeysAtTheirParent() {
    String yaml =
        """
        pipeline: clicks
        sink:
          delta: {}
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:1:1: source: missing required key 'source'; add it, for example"
                + " source: { kafka: { bootstrap-servers: localhost:9092, topics: [orders] } }",
            "orders.yaml:1:1: format: missing required key 'format'; add it, for example"
                + " format: { json: { schema: { order_id: string } } }",
            "orders.yaml:1:1: checkpoint: missing required key 'checkpoint'; add it, for example"
                + " checkpoint: s3://checkpoints/orders-hourly",
            "orders.yaml:3:3: sink.delta.path: missing required key 'path'; add it, for example"
                + " path: s3://bucket/table or a local directory");
  }

  @Test
  void reportsAKeyWithoutValue() {
    assertThat(errors(MINIMAL.replace("checkpoint: /data/checkpoints/clicks", "checkpoint:")))
        .containsExactly(
            "orders.yaml:14:1: checkpoint: this key has no value; give one or remove the key");
  }

  @Test
  void reportsWrongTypes() {
    String yaml =
        MINIMAL
            .replace("topics: [clicks]", "topics: clicks\n    fail-on-data-loss: maybe")
            .replace("path: /data/tables/clicks/", "path: [a, b]")
            .replace("pipeline: clicks", "pipeline: { name: clicks }");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:1:11: pipeline: expected a single value, found a mapping",
            "orders.yaml:5:13: source.kafka.topics: expected a list like [a, b], found the value 'clicks'",
            "orders.yaml:6:24: source.kafka.fail-on-data-loss: cannot parse 'maybe' as a boolean; write true or false",
            "orders.yaml:14:11: sink.delta.path: expected a single value, found a list");
  }

  @Test
  void reportsASectionThatIsNotAMapping() {
    assertThat(
            errors(
                MINIMAL.replace(
                    "sink:\n  delta:\n    path: /data/tables/clicks/", "sink: /data/tables")))
        .containsExactly(
            "orders.yaml:11:7: sink: expected a mapping of keys, found the value '/data/tables'");
  }

  @Test
  void reportsDuplicateKeys() {
    String yaml = MINIMAL.replace("at: timestamp", "at: timestamp\n      id: long");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:11:7: format.json.schema.id: duplicate key 'id' (first declared on line 9); keep only one");
  }

  @Test
  void refusesSeveralDocuments() {
    assertThat(errors(MINIMAL + "---\n" + MINIMAL))
        .containsExactly(
            "orders.yaml:15:1: the file holds more than one"
                + " YAML document (a second '---'); declare one pipeline per file");
  }

  @Test
  void refusesAnEmptyFile() {
    String expected =
        "orders.yaml:1:1: the file is empty; a pipeline needs at least the keys pipeline, source,"
            + " format, sink and checkpoint (see docs/PIPELINE_REFERENCE.md)";
    assertThat(errors("")).containsExactly(expected);
    assertThat(errors("# only a comment\n")).containsExactly(expected);
  }

  @Test
  void refusesATopLevelList() {
    assertThat(errors("- pipeline: clicks\n"))
        .containsExactly("orders.yaml:1:1: expected a mapping of keys, found a list");
  }

  @Test
  void reportsSyntaxErrorsWithTheirPosition() {
    String yaml = MINIMAL.replace("id: string", "id: string: text");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:9:17: invalid YAML: mapping values are not allowed"
                + " here; check the indentation and quoting at this position");
  }

  @Test
  void reportsBadIndentationWithItsPosition() {
    String yaml = "pipeline: clicks\nsource:\n  kafka:\n    topics: [a]\n   bootstrap-servers: x\n";

    assertThat(errors(yaml))
        .hasSize(1)
        .first()
        .asString()
        .startsWith(
            "orders.yaml:5:4: invalid YAML: expected <block end>, but found '<block mapping start>'");
  }

  @Test
  void namesTheKeyAndVariableOfAnUnsetReference() {
    String yaml = MINIMAL.replace("localhost:9092", "${KAFKA_BOOTSTRAP}");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:4:24: source.kafka.bootstrap-servers: environment"
                + " variable KAFKA_BOOTSTRAP is not set; set it, or give a default like ${KAFKA_BOOTSTRAP:-value}");
  }

  @Test
  void reportsAMalformedReference() {
    String yaml = MINIMAL.replace("localhost:9092", "${KAFKA_BOOTSTRAP");

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:4:24: source.kafka.bootstrap-servers: malformed"
                + " environment reference in '${KAFKA_BOOTSTRAP'; write ${NAME} or ${NAME:-default} (NAME made of"
                + " letters, digits and _), or $${...} for a literal ${...}");
  }

  @Test
  void convertsSubstitutedValuesAndReportsThemAtTheValue() {
    String yaml =
        MINIMAL.replace(
            "topics: [clicks]", "topics: [clicks]\n    max-offsets-per-trigger: ${MAX:-1000}");

    // The value of a variable whose name does not look secret is shown (see SecretsTest).
    assertThat(errors(yaml, Map.of("MAX", "many")))
        .containsExactly(
            "orders.yaml:6:30:"
                + " source.kafka.max-offsets-per-trigger: cannot parse 'many' as a whole number; write digits only,"
                + " like 500000");
  }

  @Test
  void doesNotEchoValuesThatMayBeSecret() {
    String yaml = MINIMAL + "storage: \"my-secret-value\"\n";

    assertThat(errors(yaml))
        .containsExactly("orders.yaml:15:10: storage: expected a mapping of keys, found a value");
  }

  @Test
  void refusesTransformStepsWithZeroOrTwoKinds() {
    String yaml =
        MINIMAL
            + """
        transform:
          - filter: "a > 1"
            derive: { b: "a" }
          - {}
          - filter: ""
          - derive: { 1b: "a", c: "" }
          - fliter: "x"
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:16:5: transform[0]: each transform step must have exactly one key, filter or derive,"
                + " found filter, derive",
            "orders.yaml:18:5: transform[1]: each transform step must have exactly one key, filter or derive,"
                + " found none",
            "orders.yaml:19:13: transform[2].filter: a filter expression cannot be empty",
            "orders.yaml:20:15: transform[3].derive.1b: derived column name '1b' must start with a letter or _ and"
                + " contain only letters, digits and _",
            "orders.yaml:20:24: transform[3].derive.c: a derive expression cannot be empty",
            "orders.yaml:21:5: transform[4].fliter: unknown key 'fliter'; did you mean 'filter'?");
  }

  @Test
  void reportsOnlyTheTypoWhenATriggerKeyIsMisspelt() {
    assertThat(errors(MINIMAL + "trigger: { proccessing-time: 30s }\n"))
        .containsExactly(
            "orders.yaml:15:12: trigger.proccessing-time: unknown key 'proccessing-time'; did you mean"
                + " 'processing-time'?");
  }

  @Test
  void acceptsAnchorsAndAliasesButNotMergeKeys() {
    String yaml =
        MINIMAL.replace(
                "bootstrap-servers: localhost:9092", "bootstrap-servers: &servers localhost:9092")
            + "storage: { s3: { endpoint: \"http://s3:9000\", region: *servers } }\n";
    assertThat(PipelineParser.parse(yaml, "orders.yaml", Map.of()).storage().orElseThrow().region())
        .contains("localhost:9092");

    String merge =
        MINIMAL + "maintenance:\n  vacuum: &v { schedule: \"@daily\" }\n  compaction: { <<: *v }\n";
    assertThat(errors(merge))
        .containsExactly(
            "orders.yaml:17:3: maintenance.compaction.schedule: missing required key 'schedule'; add it, for"
                + " example schedule: \"0 0 * * * *\"",
            "orders.yaml:17:17: maintenance.compaction.<<: unknown key '<<'; valid keys here are schedule, min-files");
  }

  @Test
  void refusesAnUnreadableFile(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("missing.yaml");
    assertThatThrownBy(() -> PipelineParser.parse(missing))
        .isInstanceOf(PipelineValidationException.class)
        .hasMessage(
            missing
                + ": cannot read the pipeline file (no such file); check the path and permissions");

    Path latin1 = dir.resolve("latin1.yaml");
    Files.write(latin1, new byte[] {'p', ':', ' ', (byte) 0xE9});
    assertThatThrownBy(() -> PipelineParser.parse(latin1))
        .hasMessage(
            latin1
                + ": cannot read the pipeline file (it is not UTF-8 text); check the path and permissions");
  }

  @Test
  void namesTheFileAsGiven(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("orders.yaml");
    Files.writeString(file, MINIMAL.replace("pipeline: clicks", "pipeline: Clicks"));

    assertThatThrownBy(() -> PipelineParser.parse(file))
        .hasMessage(
            file
                + ":1:11: pipeline: pipeline id 'Clicks' may only contain lower-case letters, digits"
                + " and '-', like orders-hourly");
  }
}
