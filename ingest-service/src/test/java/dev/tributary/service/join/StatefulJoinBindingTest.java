package dev.tributary.service.join;

import static dev.tributary.service.join.DimensionTables.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stateful pipeline with a join, bound to a real local dimension table: its stateful part is
 * compiled against the joined rows at start (a column of a join without {@code columns} is checked
 * then), and its checkpoint refuses a changed join.
 */
class StatefulJoinBindingTest {
  @TempDir Path dir;
  DimensionTables customers;

  @BeforeEach
  void createDimension() throws Exception {
    customers =
        DimensionTables.create(
            dir.resolve("dims/customers"), List.<Object[]>of(customer("c1", "gold", "eu", 1)));
  }

  private PipelineSpec spec(String join, String groupBy) {
    return PipelineParser.parse(
        """
        pipeline: stateful-join
        source:
          kafka:
            bootstrap-servers: 127.0.0.1:9092
            topics: [orders]
        format:
          json:
            schema:
              order_id: long
              customer_id: string
              event_time: timestamp
        join:
          - delta: { path: %s }
            on: [customer_id]
        %s
        watermark: { column: event_time, delay: 10 minutes }
        aggregate:
          window: { column: event_time, size: 1 hour }
          group-by: [%s]
          measures: { orders: count() }
        output-mode: append
        sink:
          delta:
            path: %s/tables/out
        checkpoint: %s/checkpoints/out
        """
            .formatted(customers.path(), join.indent(4).stripTrailing(), groupBy, dir, dir),
        "stateful-join.yaml",
        Map.of());
  }

  @Test
  void theStatefulPlanIsCompiledAgainstTheJoinedRowsAtStart() throws Exception {
    CompiledPipeline bound =
        PipelineFactory.bindJoins(PipelineFactory.compile(spec("type: left", "segment")));
    try {
      assertThat(bound.stateful().orElseThrow().provisional()).isFalse();
      assertThat(bound.stateful().orElseThrow().inputSchema().fieldNames())
          .endsWith("_kafka_timestamp", "segment", "region", "tier");
      assertThat(bound.outputSchema().fields())
          .containsExactly(
              StructField.nullable("window_start", PrimitiveType.TIMESTAMP),
              StructField.nullable("window_end", PrimitiveType.TIMESTAMP),
              StructField.nullable("segment", PrimitiveType.STRING),
              StructField.nullable("orders", PrimitiveType.LONG));
    } finally {
      bound.processor().close();
    }
  }

  @Test
  void aStatefulColumnTheDimensionDoesNotHaveIsRefusedAtStartNamingIt() {
    // without columns, the validator cannot know the dimension's columns: the start checks them
    CompiledPipeline compiled = PipelineFactory.compile(spec("type: left", "segmnt"));

    assertThatThrownBy(() -> PipelineFactory.bindJoins(compiled))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("stateful-join")
        .hasMessageContaining(
            "aggregate.group-by: column 'segmnt' is not a column of the transformed rows;"
                + " columns are [order_id, customer_id, event_time, _kafka_topic, _kafka_partition, _kafka_offset,"
                + " _kafka_timestamp, segment, region, tier] (the columns after the joins, read from their dimension tables)");
  }

  @Test
  void aCheckpointRefusesAChangedJoinOfAStatefulPipeline() throws Exception {
    PipelineSpec before = spec("type: left\ncolumns: [segment]", "segment");
    try (ObjectStore store = ObjectStores.open(dir.resolve("checkpoints/out").toString(), null)) {
      PipelineFactory.checkpoint(before, store);
      PipelineFactory.checkpoint(before, store); // unchanged: opens

      for (String changed :
          List.of("type: inner\ncolumns: [segment]", "type: left\ncolumns: [segment, region]")) {
        assertThatThrownBy(() -> PipelineFactory.checkpoint(spec(changed, "segment"), store))
            .as(changed)
            .isInstanceOf(CheckpointMismatchException.class)
            .hasMessageContaining(
                "join changed from [left join "
                    + customers.path()
                    + " on [customer_id] columns"
                    + " [segment]]");
      }
    }
  }
}
