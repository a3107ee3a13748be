package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@link PipelineFactory#compile} makes of a stream-stream join without I/O: the sink's
 * columns (the left row, then the second input's prefixed columns without its Kafka columns), and
 * the refusals, by the pipeline's name, of what this version does not run yet (a Delta table as
 * either input).
 */
class StreamJoinCompileTest {
  private static final String KAFKA_MAIN =
      """
      source: { kafka: { bootstrap-servers: "localhost:1", topics: [clicks] } }
      format: { json: { schema: { user_id: string, event_ts: timestamp } } }
      """;

  private static String pipeline(String main, String second) {
    return """
        pipeline: attribution
        %s
        join:
          - stream:
        %s
              prefix: p_
            on: [user_id]
        sink: { delta: { path: /tmp/sink } }
        checkpoint: /tmp/checkpoint
        """
        .formatted(main, second.indent(6).stripTrailing());
  }

  private static CompiledPipeline compile(String yaml) {
    return PipelineFactory.compile(PipelineParser.parse(yaml, "attribution.yaml", Map.of()));
  }

  @Test
  void theSinkHasTheLeftRowThenTheSecondInputsPrefixedColumns() {
    CompiledPipeline compiled =
        compile(
            pipeline(
                KAFKA_MAIN,
                """
                source: { kafka: { topics: [purchases] } }
                format: { json: { schema: { user_id: string, amount: double } } }
                """));
    assertThat(compiled.streamJoin()).isPresent();
    assertThat(compiled.outputSchema().fieldNames())
        .containsExactly(
            "user_id",
            "event_ts",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp",
            "p_user_id",
            "p_amount");
  }

  @Test
  void aDeltaTableAsTheSecondInputIsRefusedByName() {
    assertThatThrownBy(
            () ->
                compile(
                    pipeline(
                        KAFKA_MAIN,
                        """
                        source: { delta: { path: /tmp/purchases } }
                        """)))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("Pipeline attribution")
        .hasMessageContaining(
            "join[0].stream.source.delta: a Delta table as the second input of a stream-stream"
                + " join is not built yet (issue 25)");
  }

  @Test
  void aDeltaTableAsTheMainInputIsRefusedByName() {
    assertThatThrownBy(
            () ->
                compile(
                    pipeline(
                        "source: { delta: { path: /tmp/clicks } }",
                        """
                        source: { kafka: { bootstrap-servers: "localhost:1", topics: [p] } }
                        format: { json: { schema: { user_id: string } } }
                        """)))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("Pipeline attribution")
        .hasMessageContaining(
            "source.delta: a Delta table as the main input of a stream-stream join is not built"
                + " yet (issue 25)");
  }
}
