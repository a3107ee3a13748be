package dev.tributary.service.join;

import static dev.tributary.service.join.DimensionTables.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka sink's {@code key} in a pipeline with a stream-static join: checked by {@code validate}
 * (the compile, without I/O) against the stream's columns and the columns a join may add, and at
 * start against the joined columns read from the dimension table.
 */
class KafkaKeyWithJoinTest {
  @TempDir Path dir;
  DimensionTables customers;

  @BeforeEach
  void createDimension() throws Exception {
    customers =
        DimensionTables.create(
            dir.resolve("dims/customers"), List.<Object[]>of(customer("c1", "gold", "eu", 1)));
  }

  private PipelineSpec spec(String joinColumns, String key) {
    return PipelineParser.parse(
        """
        pipeline: keyed-join
        source:
          kafka:
            bootstrap-servers: 127.0.0.1:9092
            topics: [orders]
        format:
          json:
            schema: { order_id: long, customer_id: string }
        join:
          - delta: { path: %s }
            on: [customer_id]
            type: left
        %s
        sink:
          kafka: { topic: enriched, key: "%s" }
        checkpoint: %s/checkpoints/out
        """
            .formatted(customers.path(), joinColumns.indent(4).stripTrailing(), key, dir),
        "keyed-join.yaml",
        Map.of());
  }

  private static CompiledPipeline bind(PipelineSpec spec) throws Exception {
    CompiledPipeline bound = PipelineFactory.bindJoins(PipelineFactory.compile(spec));
    bound.processor().close();
    return bound;
  }

  @Test
  void aKeyOverAJoinedColumnIsAccepted() throws Exception {
    assertThat(bind(spec("", "concat(segment, '-', customer_id)")).outputSchema().fieldNames())
        .contains("segment");
    assertThat(bind(spec("columns: [segment]", "segment")).outputSchema().fieldNames())
        .contains("segment")
        .doesNotContain("region");
  }

  @Test
  void validateRefusesAKeyOverAColumnNeitherTheStreamNorTheDeclaredJoinColumnsHave() {
    assertThatThrownBy(() -> PipelineFactory.compile(spec("columns: [segment]", "regoin")))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("keyed-join")
        .hasMessageContaining("sink.kafka.key: unknown column 'regoin'");
  }

  @Test
  void validateRefusesAKeyThatDoesNotCompileWhateverTheJoinsAdd() {
    assertThatThrownBy(() -> PipelineFactory.compile(spec("", "order_id +")))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("sink.kafka.key: ");
    assertThatThrownBy(() -> PipelineFactory.compile(spec("", "customer_id.name")))
        .as("a stream column that is no struct: no join can change that")
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("sink.kafka.key: column 'customer_id' is a string, not a struct");
  }

  @Test
  void theStartRefusesAKeyOverAColumnTheDimensionDoesNotHaveNamingIt() {
    // without columns, validate cannot know the dimension's columns: the start checks them
    CompiledPipeline compiled = PipelineFactory.compile(spec("", "regoin"));

    assertThatThrownBy(() -> PipelineFactory.bindJoins(compiled))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("keyed-join")
        .hasMessageContaining("sink.kafka.key: unknown column 'regoin'; did you mean 'region'?")
        .hasMessageContaining("(the columns after the joins, read from their dimension tables)");
  }
}
