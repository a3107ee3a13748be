package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code validate} compiles of a {@code columns: all} pipeline, without I/O: expressions over
 * the columns every record has, and a reference to a writer field refused with the rule.
 */
class ColumnsAllCompileTest {
  private static PipelineSpec spec(String extra) {
    return PipelineParser.parse(
        """
        pipeline: cdc
        source: { kafka: { bootstrap-servers: "localhost:1", topic-pattern: "db\\\\..*" } }
        format:
          avro: { registry: { url: "http://localhost:1" }, envelope: debezium, columns: all }
        sink: { delta: { path: "/lake/{route}", route: _kafka_topic, write: upsert } }
        checkpoint: /c/cdc
        """
            + extra,
        "cdc.yaml",
        Map.of());
  }

  @Test
  void theFixedColumnsAreTheEnvelopesTheDerivedAndTheKafkaColumns() {
    CompiledPipeline compiled =
        PipelineFactory.compile(
            spec(
                "transform:\n  - filter: \"_op <> 'r'\"\n  - derive: { source: \"upper(_kafka_topic)\" }\n"));
    assertThat(compiled.outputSchema().fieldNames())
        .containsExactly(
            "_op",
            "_source_ts",
            "source",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp");
  }

  @Test
  void anExpressionOverAWriterFieldIsRefusedNamingTheColumnsThereAre() {
    assertThatThrownBy(
            () -> PipelineFactory.compile(spec("transform:\n  - filter: \"amount > 10\"\n")))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("amount")
        .hasMessageContaining(
            "with columns: all, expressions see only the columns every record has: _op,"
                + " _source_ts, _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp");
  }
}
