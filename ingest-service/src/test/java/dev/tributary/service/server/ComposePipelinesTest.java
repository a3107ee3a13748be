package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The pipelines docker-compose.yml serves must parse and compile with the environment it sets. */
class ComposePipelinesTest {
  private static final Path DIR = Path.of("..", "deploy", "compose", "pipelines");
  private static final Map<String, String> COMPOSE_ENV =
      Map.of(
          "KAFKA_BOOTSTRAP",
          "kafka:9092",
          "S3_ENDPOINT",
          "http://minio:9000",
          "S3_ACCESS_KEY",
          "tributary",
          "S3_SECRET_KEY",
          "tributary-secret",
          "TRIBUTARY_BUCKET",
          "tributary");

  @Test
  void everyComposePipelineIsValidAndWritesToMinio() throws Exception {
    List<Path> files;
    try (Stream<Path> list = Files.list(DIR)) {
      files = list.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(2);
    for (Path file : files) {
      PipelineSpec spec = PipelineParser.parse(file, COMPOSE_ENV);
      PipelineFactory.compile(spec);
      assertThat(spec.sink().path()).as(file.toString()).startsWith("s3://tributary/tables/");
      assertThat(spec.checkpoint()).as(file.toString()).startsWith("s3://tributary/checkpoints/");
      assertThat(spec.storage().orElseThrow().endpoint()).contains("http://minio:9000");
    }
  }
}
