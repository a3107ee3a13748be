package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.tributary.config.internal.Keys;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The published JSON Schema accepts what the parser accepts, refuses typos, and lists the same
 * keys.
 */
class PipelineSchemaTest {

  static final String RESOURCE = "/dev/tributary/config/pipeline.schema.json";

  static JsonNode schemaJson;
  static Schema schema;

  @BeforeAll
  static void loadSchema() throws Exception {
    try (InputStream in = PipelineSchemaTest.class.getResourceAsStream(RESOURCE)) {
      schemaJson = new ObjectMapper().readTree(in);
    }
    schema =
        SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(schemaJson);
  }

  static List<String> validate(String yaml) throws Exception {
    return schema.validate(new YAMLMapper().readTree(yaml)).stream().map(Error::toString).toList();
  }

  static Stream<Path> examples() throws Exception {
    return Files.walk(PipelineParserTest.PIPELINES)
        .filter(p -> p.toString().endsWith(".yaml"))
        .sorted();
  }

  @ParameterizedTest
  @MethodSource("examples")
  void everyExamplePipelineParsesAndMatchesTheSchema(Path example) throws Exception {
    assertThat(PipelineParser.parse(example, Map.of()).id()).isNotEmpty();
    assertThat(validate(Files.readString(example))).isEmpty();
  }

  @Test
  void acceptsTheValidPipelinesOfTheParserTests() throws Exception {
    assertThat(validate(PipelineParserTest.MINIMAL)).isEmpty();
    assertThat(validate(PipelineValidationTest.BASE)).isEmpty();
    assertThat(
            validate(
                PipelineParserTest.MINIMAL
                    + """
        trigger: { available-now: true }
        storage: { s3: { endpoint: "${S3_ENDPOINT:-http://localhost:9000}", path-style: "${PATH_STYLE:-true}" } }
        aggregate:
          window: { column: at, size: 1 HOUR, slide: 30 Minutes }
          measures: { n: count(), m: count_distinct(id) }
        output-mode: complete
        """))
        .isEmpty();
  }

  @Test
  void acceptsADeltaSourceWithoutFormatAndRefusesAFormatOrASecondSource() throws Exception {
    assertThat(validate(DeltaSourceConfigTest.SILVER)).isEmpty();
    assertThat(
            validate(
                DeltaSourceConfigTest.SILVER.replace(
                    "    path: /lake/bronze/events\n",
                    ""
                        + "    path: /lake/bronze/events\n    starting-version: 12\n    max-bytes-per-trigger: 1GB\n"
                        + "    ignore-deletes: true\n    skip-change-commits: false\n")))
        .isEmpty();
    assertThat(
            validate(
                DeltaSourceConfigTest.SILVER.replace(
                    "transform:", "format: { json: { schema: { id: long } } }\ntransform:")))
        .isNotEmpty();
    assertThat(
            validate(
                DeltaSourceConfigTest.SILVER.replace(
                    "  delta:\n    path: /lake/bronze/events\n",
                    "  delta:\n    path: /lake/bronze/events\n  kafka: { bootstrap-servers: b:9092, topics: [t] }\n")))
        .isNotEmpty();
    assertThat(
            validate(
                DeltaSourceConfigTest.SILVER.replace(
                    "path: /lake/bronze/events",
                    "path: /lake/bronze/events\n    starting-offsets: latest")))
        .isNotEmpty();
    assertThat(
            validate(
                DeltaSourceConfigTest.SILVER.replace(
                    "path: /lake/bronze/events",
                    "path: /lake/bronze/events\n    starting-version: yesterday")))
        .isNotEmpty();
  }

  @Test
  void acceptsJoinsAndRefusesABadJoinType() throws Exception {
    String join =
        """
        join:
          - delta: { path: /dims/c, storage: { s3: { endpoint: "http://127.0.0.1:9000" } } }
            on: [id]
            type: left
            max-size: 256MB
            columns: [segment]
        """;
    assertThat(PipelineParser.parse(PipelineParserTest.MINIMAL + join, "j.yaml", Map.of()).joins())
        .hasSize(1);
    assertThat(validate(PipelineParserTest.MINIMAL + join)).isEmpty();
    assertThat(validate(PipelineParserTest.MINIMAL + join.replace("type: left", "type: outer")))
        .isNotEmpty();
    assertThat(validate(PipelineParserTest.MINIMAL + join.replace("on: [id]", "on: []")))
        .isNotEmpty();
  }

  @Test
  void acceptsAStreamJoinAndRefusesWhatTheParserRefuses() throws Exception {
    String seed = JoinReaderTest.SEED_PIPELINE;
    assertThat(PipelineParser.parse(seed, "j.yaml", Map.of()).streamJoin()).isPresent();
    assertThat(validate(seed)).isEmpty();
    assertThat(
            validate(
                seed.replace(
                    "delay: 10 minutes }\nsink", "delay: 10 minutes, multiple: max }\nsink")))
        .isEmpty();
    assertThat(validate(seed.replace("type: inner", "type: full"))).isEmpty();
    assertThat(
            validate(
                seed.replace(
                    "delay: 10 minutes }\nsink", "delay: 10 minutes, multiple: avg }\nsink")))
        .isNotEmpty();
    assertThat(validate(seed.replace("type: inner", "type: left-anti"))).isNotEmpty();
    assertThat(validate(seed.replace("      prefix: p_\n", ""))).isNotEmpty();
    assertThat(validate(seed.replace("prefix: p_", "prefix: 9p"))).isNotEmpty();
    assertThat(validate(seed + "    max-size: 1GB\n")).isNotEmpty();
    assertThat(
            validate(
                seed.replace(
                    "      prefix: p_\n",
                    "      prefix: p_\n      transform: [{ filter: \"x\" }]\n")))
        .isNotEmpty();
    // no format with a Kafka second input; a Delta one has none
    assertThat(
            validate(
                seed.replace(
                    "      format: { json: { schema: { user_id: string, order_id: string, event_ts:"
                        + " timestamp } } }\n",
                    "")))
        .isNotEmpty();
    // a static join has no time condition
    assertThat(
            validate(
                JoinReaderTest.CLICKS
                    + "join:\n  - delta: { path: /d }\n    on: [user_id]\n    time: \"a < b\"\n"))
        .isNotEmpty();
  }

  @Test
  void refusesATypoedKey() throws Exception {
    String yaml =
        PipelineParserTest.MINIMAL.replace(
            "topics: [clicks]", "topics: [clicks]\n    max-offset-per-trigger: 5");

    assertThat(validate(yaml))
        .singleElement()
        .asString()
        .contains("/source/kafka")
        .contains("max-offset-per-trigger");
  }

  @Test
  void refusesWrongValuesAndMissingKeys() throws Exception {
    assertThat(validate(PipelineParserTest.MINIMAL.replace("at: timestamp", "at: instant")))
        .isNotEmpty();
    assertThat(validate(PipelineParserTest.MINIMAL + "trigger: { processing-time: soon }\n"))
        .isNotEmpty();
    assertThat(
            validate(PipelineParserTest.MINIMAL + "trigger: { once: true, available-now: true }\n"))
        .isNotEmpty();
    assertThat(
            validate(
                PipelineParserTest.MINIMAL.replace("checkpoint: /data/checkpoints/clicks", "")))
        .singleElement()
        .asString()
        .contains("checkpoint");
    assertThat(
            validate(
                PipelineParserTest.MINIMAL.replace(
                    "topics: [clicks]", "topics: [a]\n    topic-pattern: b")))
        .isNotEmpty();
    assertThat(
            validate(
                PipelineParserTest.MINIMAL
                    + "maintenance: { vacuum: { schedule: \"0 3 * * *\" } }\n"))
        .isNotEmpty();
  }

  @Test
  void anAvroKafkaSinkNeedsARegistryAndOnlyItDoes() throws Exception {
    String head =
        PipelineParserTest.MINIMAL.substring(0, PipelineParserTest.MINIMAL.indexOf("sink:"))
            + "checkpoint: /c\n";
    String avro = "sink: { kafka: { topic: out, value: avro";
    assertThat(validate(head + avro + ", registry: { url: \"http://r:8081\" } } }\n")).isEmpty();
    assertThat(validate(head + avro + " } }\n")).isNotEmpty();
    assertThat(
            validate(
                head
                    + "sink: { kafka: { topic: out, value: json, registry: { url: \"http://r\" } }"
                    + " }\n"))
        .isNotEmpty();
    assertThat(
            validate(head + "sink: { kafka: { topic: out, registry: { url: \"http://r\" } } }\n"))
        .isNotEmpty();
  }

  @Test
  void listsExactlyTheKeysTheParserAccepts() {
    Map<String, List<String>> schemaSections = new LinkedHashMap<>();
    List<String> freeForm = new ArrayList<>();
    walk(schemaJson, "", schemaSections, freeForm);

    assertThat(schemaSections.keySet()).containsExactlyInAnyOrderElementsOf(Keys.SECTIONS.keySet());
    Keys.SECTIONS.forEach(
        (section, keys) ->
            assertThat(schemaSections.get(section))
                .as("keys of section '%s'", section)
                .containsExactlyElementsOf(keys));
    assertThat(freeForm).containsExactlyInAnyOrderElementsOf(Keys.FREE_FORM);
  }

  @Test
  void theDocsCopyIsIdenticalToThePublishedSchema() throws Exception {
    try (InputStream in = PipelineSchemaTest.class.getResourceAsStream(RESOURCE)) {
      assertThat(Files.readString(Path.of("..", "docs", "pipeline.schema.json")))
          .isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  /**
   * Records the properties of every object schema under its key path ({@code []} for list items).
   */
  private static void walk(
      JsonNode node, String path, Map<String, List<String>> sections, List<String> freeForm) {
    JsonNode resolved = resolve(node);
    if (resolved.has("properties")) {
      List<String> keys = new ArrayList<>();
      Iterator<Map.Entry<String, JsonNode>> fields = resolved.get("properties").fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        keys.add(field.getKey());
        walk(
            field.getValue(),
            path.isEmpty() ? field.getKey() : path + "." + field.getKey(),
            sections,
            freeForm);
      }
      assertThat(resolved.get("additionalProperties").asBoolean(true))
          .as("closed object at '%s'", path)
          .isFalse();
      sections.put(path, keys);
    } else if (resolved.path("additionalProperties").isObject()) {
      freeForm.add(path);
    }
    if (resolved.has("items")) {
      walk(resolved.get("items"), path + "[]", sections, freeForm);
    }
  }

  private static JsonNode resolve(JsonNode node) {
    JsonNode ref = node.get("$ref");
    return ref == null ? node : schemaJson.at(ref.asText().substring(1));
  }
}
