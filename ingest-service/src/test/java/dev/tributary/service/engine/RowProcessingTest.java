package dev.tributary.service.engine;

import static dev.tributary.service.join.DimensionTables.customer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.JoinSpec;
import dev.tributary.config.JoinType;
import dev.tributary.service.expr.Step;
import dev.tributary.service.expr.Transforms;
import dev.tributary.service.join.DimensionTables;
import dev.tributary.service.join.StreamJoins;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The row entry point of the stateless processor: a table source's typed rows go through the
 * transforms (compiled against the table's schema, no Kafka columns) and the joins as they are.
 */
class RowProcessingTest {
  static final StructType ORDERS =
      StructType.of(
          StructField.nullable("order_id", PrimitiveType.LONG),
          StructField.nullable("customer_id", PrimitiveType.STRING));

  @TempDir Path dir;

  /** Collects what a batch writes. */
  private static final class Collected implements TableSink.BatchWriter {
    final List<Object[]> rows = new ArrayList<>();

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public void write(Object[] row) {
      rows.add(row);
    }

    @Override
    public long rows() {
      return rows.size();
    }

    @Override
    public long commit(Map<String, String> commitInfo) {
      return 0;
    }

    @Override
    public void close() {}
  }

  private static SourceRow row(long index, Object... values) {
    AddFile add = new AddFile("part-0.parquet", Map.of(), 10, 0, true, null, Map.of());
    return new SourceRow(new SourceFile(4, 0, false, add), index, values);
  }

  @Test
  void rowsAreFilteredDerivedAndJoinedWithoutParsingOrKafkaColumns() throws Exception {
    DimensionTables customers =
        DimensionTables.create(
            dir.resolve("customers"),
            List.of(customer("c1", "gold", "eu", 1), customer("c2", "silver", "us", 2)));
    LinkedHashMap<String, String> derived = new LinkedHashMap<>();
    derived.put("next_id", "order_id + 1");
    var transforms =
        Transforms.compile(
            ORDERS, List.of(new Step.Filter("order_id > 1"), new Step.Derive(derived)));
    StatelessProcessor stream =
        StatelessProcessor.forRows("silver", "/lake/bronze", ORDERS, transforms, List.of(), null);
    assertThat(stream.transformedSchema().fieldNames())
        .containsExactly("order_id", "customer_id", "next_id");
    JoinSpec join =
        new JoinSpec(
            customers.path().toString(),
            Optional.empty(),
            List.of("customer_id"),
            JoinType.LEFT,
            JoinSpec.DEFAULT_MAX_SIZE,
            Optional.of(List.of("segment")));
    StreamJoins joins =
        StreamJoins.open(
            "silver",
            List.of(join),
            stream.transformedSchema(),
            j -> ObjectStores.open(j.path(), null));
    try (StatelessProcessor processor =
        StatelessProcessor.forRows(
            "silver", "/lake/bronze", ORDERS, transforms, List.of(), joins)) {
      Map<String, String> recorded = processor.planBatch(0);
      processor.beginBatch(
          new RecordProcessor.BatchContext(
              0, Instant.EPOCH, OptionalLong.empty(), OptionalLong.empty(), Set.of(), recorded));
      Collected main = new Collected();
      BatchOutputs outputs = new BatchOutputs(main, new Collected(), null);
      processor.processRow(row(0, 1L, "c1"), outputs); // filtered
      processor.processRow(row(1, 2L, "c2"), outputs);
      processor.processRow(row(2, 3L, "c9"), outputs);
      processor.endBatch(outputs);

      assertThat(processor.outputSchema().fieldNames())
          .containsExactly("order_id", "customer_id", "next_id", "segment");
      assertThat(main.rows.stream().map(Arrays::asList).toList())
          .containsExactly(List.of(2L, "c2", 3L, "silver"), Arrays.asList(3L, "c9", 4L, null));
      assertThat(outputs.inputRows()).isEqualTo(3);
      assertThat(outputs.filteredRows()).isEqualTo(1);
    }
  }
}
