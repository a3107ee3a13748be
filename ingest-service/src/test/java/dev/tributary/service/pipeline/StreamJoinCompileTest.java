package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@link PipelineFactory#compile} makes of a stream-stream join without I/O: the sink's
 * columns (the left row, then the second input's prefixed columns without its Kafka columns), and a
 * Delta table as either input leaving the join to be bound at start ({@link
 * StreamJoinInputs#bind}), once the table's columns are known.
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
  void aDeltaTableAsEitherInputLeavesTheJoinToBeBoundAtStart() {
    CompiledPipeline second =
        compile(
            pipeline(
                KAFKA_MAIN,
                """
                source: { delta: { path: /tmp/purchases } }
                """));
    assertThat(second.awaitsSourceSchema()).isTrue();
    assertThat(second.streamJoin()).isEmpty();
    assertThat(StreamJoinInputs.bindsAtStart(second.spec())).isTrue();
    assertThat(StreamJoinInputs.secondIsTable(second.spec())).isTrue();

    CompiledPipeline main =
        compile(
            pipeline(
                "source: { delta: { path: /tmp/clicks } }",
                """
                source: { kafka: { bootstrap-servers: "localhost:1", topics: [p] } }
                format: { json: { schema: { user_id: string } } }
                """));
    assertThat(main.awaitsSourceSchema()).isTrue();
    assertThat(StreamJoinInputs.bindsAtStart(main.spec())).isTrue();
    assertThat(StreamJoinInputs.secondIsTable(main.spec())).isFalse();
  }

  @Test
  void aBadMainInputIsStillRefusedByCompileWithATableAsTheSecondInput() {
    assertThatThrownBy(
            () ->
                compile(
                    pipeline(
                        KAFKA_MAIN + "transform: [ { filter: \"no_such_column > 0\" } ]\n",
                        """
                        source: { delta: { path: /tmp/purchases } }
                        """)))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("Pipeline attribution")
        .hasMessageContaining("no_such_column");
  }
}
